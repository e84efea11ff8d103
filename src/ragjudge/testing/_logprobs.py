"""Token log probabilities for the test server's replies, as an OpenAI endpoint sends
them when a request asks for ``logprobs``: the reply is cut into tokens (a word, a
number or a punctuation mark with the spaces before it), and each token gets the
probabilities a test chose for it, so a test knows the distribution a judge reports
and can compute a weighted verdict by hand."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any

TokenAlternatives = Mapping[str, Mapping[str, float]]
"""A token's text (spaces stripped) → the probabilities of the tokens that could stand
at its place, itself included (``{"4": {"4": 0.6, "3": 0.3, "5": 0.1}}``). A token not
named here is certain; a token named without itself among its alternatives has the
probability left over by the others."""

_TOKEN = re.compile(r"\s*(?:\w+|[^\w\s])|\s+")


def reply_tokens(text: str) -> list[str]:
    """``text`` cut into tokens that join back into it."""
    return _TOKEN.findall(text)


def reply_logprobs(text: str, alternatives: TokenAlternatives, top: int) -> dict[str, Any]:
    """The ``logprobs`` object of a chat choice whose reply is ``text``: every token with
    its log probability and the ``top`` most likely tokens at its place."""
    return {"content": [_token_entry(t, alternatives, top) for t in reply_tokens(text)]}


def _token_entry(token: str, alternatives: TokenAlternatives, top: int) -> dict[str, Any]:
    core = token.strip()
    lead = token[: len(token) - len(token.lstrip())]
    chances = dict(alternatives.get(core, {}))
    if core not in chances:
        chances[core] = max(1e-9, 1.0 - sum(chances.values()))
    ranked = sorted(chances.items(), key=lambda item: -item[1])[: max(top, 0)]
    return {
        "token": token,
        "logprob": math.log(chances[core]),
        "top_logprobs": [{"token": lead + name, "logprob": math.log(p)} for name, p in ranked],
    }

"""The probability-weighted verdict of a scale judge (G-Eval's form): at the place in
the reply where the judge wrote its verdict, the probabilities the endpoint reports for
the scale's answers are renormalised over those answers, and the score is the sum of
each answer's probability times its value."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ragjudge.models import TokenLogprob, TopLogprob

__all__ = ["Weighed", "weigh"]

_TRIM = " \t\r\n*_`[]()\"'.,:;!?。、"


@dataclass(frozen=True)
class Weighed:
    """The distribution over the scale's answers at the verdict and the score it gives."""

    distribution: dict[str, float]
    weighted: float


def weigh(
    tokens: Sequence[TokenLogprob] | None, values: Mapping[str, float], written: str
) -> Weighed | str:
    """The weighted verdict of a reply whose verdict is the answer ``written`` (a key of
    ``values``), or why there is none: no log probabilities, a verdict that is not one
    token of the reply (the last such token is the verdict's place), or no answer of
    the scale among the most likely tokens there."""
    if not tokens:
        return "the judge endpoint returned no token log probabilities"
    place = _verdict_place(tokens, written)
    if place is None:
        return f"the verdict {written!r} is not written as one token of the reply"
    chances = dict.fromkeys(values, 0.0)
    at = tokens[place]
    for candidate in at.top or (TopLogprob(token=at.token, logprob=at.logprob),):
        answer = _answer(candidate.token, values)
        if answer is not None:  # " 4" and "4" are both ways of writing 4
            chances[answer] += math.exp(candidate.logprob)
    total = sum(chances.values())
    if total <= 0.0:
        return "no answer of the scale among the most likely tokens at the verdict"
    distribution = {answer: p / total for answer, p in chances.items()}
    weighted = sum(p * values[answer] for answer, p in distribution.items())
    return Weighed(distribution, weighted)


def _verdict_place(tokens: Sequence[TokenLogprob], written: str) -> int | None:
    wanted = written.casefold()
    for place in range(len(tokens) - 1, -1, -1):
        if _core(tokens[place].token) == wanted:
            return place
    return None


def _answer(token: str, values: Mapping[str, float]) -> str | None:
    core = _core(token)
    return next((answer for answer in values if answer.casefold() == core), None)


def _core(token: str) -> str:
    return token.strip(_TRIM).casefold()

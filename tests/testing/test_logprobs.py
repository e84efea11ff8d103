"""The test server's token log probabilities: tokens that join back into the reply, the
chosen alternatives with the token's own spaces, the rest certain."""

from __future__ import annotations

import math

import httpx2
import pytest

from ragjudge.models.scripted import ReplyScript
from ragjudge.testing._logprobs import reply_logprobs, reply_tokens
from ragjudge.testing.server import OpenAITestServer


def test_tokens_join_back_into_the_reply() -> None:
    text = "Fine, really.\n[RESULT] 4\n"
    assert "".join(reply_tokens(text)) == text
    assert " 4" in reply_tokens(text)


def test_a_token_gets_its_alternatives_and_the_rest_is_certain() -> None:
    content = reply_logprobs("Score 4", {"4": {"3": 0.3, "5": 0.1}}, top=2)["content"]

    first, verdict = content
    assert first["logprob"] == 0.0 and first["top_logprobs"] == [{"token": "Score", "logprob": 0.0}]
    assert verdict["token"] == " 4" and verdict["logprob"] == pytest.approx(math.log(0.6))
    assert [t["token"] for t in verdict["top_logprobs"]] == [" 4", " 3"]


def test_the_server_sends_them_only_when_asked() -> None:
    server = OpenAITestServer(replies=ReplyScript(default="yes"), token_alternatives={})
    with server:
        url = f"{server.base_url}/chat/completions"
        body = {"model": "m", "messages": [{"role": "user", "content": "q"}]}
        plain = httpx2.post(url, json=body).json()
        asked = httpx2.post(url, json={**body, "logprobs": True, "top_logprobs": 1}).json()

    assert plain["choices"][0]["logprobs"] is None
    assert asked["choices"][0]["logprobs"]["content"][0]["token"] == "yes"

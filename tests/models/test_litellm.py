"""The LiteLLM provider leaves out the request for token log probabilities (it does not
read them, and a provider without them would refuse the call)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from ragjudge.models import GenerateConfig, _litellm
from ragjudge.models._litellm import LiteLLMProvider


async def test_log_probabilities_are_not_asked_of_litellm(monkeypatch: pytest.MonkeyPatch) -> None:
    sent: list[dict[str, Any]] = []

    async def acompletion(**kwargs: Any) -> dict[str, Any]:
        sent.append(kwargs)
        return {"choices": [{"message": {"content": "[RESULT] 4"}}], "model": "m"}

    monkeypatch.setattr(
        _litellm, "import_litellm", lambda: SimpleNamespace(acompletion=acompletion)
    )
    provider = LiteLLMProvider("anthropic/claude-3-5-haiku-latest")
    config = GenerateConfig(temperature=0.0, logprobs=True, top_logprobs=5)
    reply = await provider.complete([{"role": "user", "content": "q"}], config)

    assert reply.text == "[RESULT] 4" and reply.logprobs is None
    assert sent[0]["temperature"] == 0.0
    assert "logprobs" not in sent[0] and "top_logprobs" not in sent[0]

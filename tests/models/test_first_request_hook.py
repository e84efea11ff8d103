"""``JudgeModel.before_first_request``: called once, when the first request of any call
is about to go out to the provider; a call answered from the reply cache sends none and
does not call it."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragjudge.models import JudgeModel, ModelError, ResponseCache
from ragjudge.models.scripted import ReplyScript, ScriptedProvider

ASK = [{"role": "user", "content": "Is the answer right?"}]


class Counter:
    def __init__(self) -> None:
        self.calls = 0

    def __call__(self) -> None:
        self.calls += 1


async def test_it_is_called_once_before_the_first_request(tmp_path: Path) -> None:
    provider = ScriptedProvider(ReplyScript(default="yes"))
    with ResponseCache(tmp_path / "cache.db") as cache:
        model = JudgeModel(provider, cache=cache)
        hook = Counter()
        model.before_first_request = hook
        await model.generate(ASK)
        assert hook.calls == 1 and len(provider.calls) == 1
        await model.generate([{"role": "user", "content": "And this one?"}])
        assert hook.calls == 1 and len(provider.calls) == 2  # once, not per request


async def test_a_call_answered_from_the_cache_does_not_call_it(tmp_path: Path) -> None:
    with ResponseCache(tmp_path / "cache.db") as cache:
        await JudgeModel(ScriptedProvider(ReplyScript(default="yes")), cache=cache).generate(ASK)
        provider = ScriptedProvider(ReplyScript(default="yes"))
        model = JudgeModel(provider, cache=cache)
        hook = Counter()
        model.before_first_request = hook
        reply = await model.generate(ASK)
    assert reply.cached and provider.calls == [] and hook.calls == 0


async def test_it_is_called_before_a_request_that_fails() -> None:
    failure = ModelError("refused", kind="client", status=404)
    provider = ScriptedProvider(ReplyScript(default="yes"), errors=[failure])
    model = JudgeModel(provider)
    hook = Counter()
    model.before_first_request = hook
    with pytest.raises(ModelError, match="refused"):
        await model.generate(ASK)
    assert hook.calls == 1 and len(provider.calls) == 1

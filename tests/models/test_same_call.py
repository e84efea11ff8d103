"""Identical judge calls in flight at the same time are made once: the others wait for
that reply and take it as a cached one."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from model_helpers import MemoryRecorder, user

from conftest import QUICKSTART
from ragjudge.config import load_config
from ragjudge.models import (
    JudgeCallError,
    JudgeModel,
    ModelError,
    ModelSettings,
    ResponseCache,
)
from ragjudge.models.scripted import ReplyScript, ScriptedProvider
from ragjudge.run._runner import run_evaluation
from ragjudge.testing import FaultPlan, OpenAITestServer
from virtual_time import run_in_virtual_time

QUICK = ModelSettings(backoff_base=0.0, backoff_max=0.0, max_retries=1)


def judge_with_cache(
    tmp_path: Path, provider: ScriptedProvider, settings: ModelSettings = QUICK
) -> tuple[JudgeModel, MemoryRecorder]:
    recorder = MemoryRecorder()
    cache = ResponseCache(tmp_path / "cache.db")
    return JudgeModel(provider, settings=settings, cache=cache, recorder=recorder), recorder


async def test_identical_calls_in_flight_make_one_request(tmp_path: Path) -> None:
    provider = ScriptedProvider(ReplyScript(default="[RESULT] 3"), latency=0.05)
    judge, recorder = judge_with_cache(tmp_path, provider)
    same = [judge.generate(user("Score this.")) for _ in range(5)]
    other = judge.generate(user("Score that."))
    replies = await asyncio.gather(*same, other)
    assert len(provider.calls) == 2  # one per distinct prompt
    assert {r.text for r in replies} == {"[RESULT] 3"}
    assert sorted(r.cached for r in replies[:5]) == [False, True, True, True, True]
    assert [r.attempts for r in replies if r.cached] == [0, 0, 0, 0]
    totals = judge.usage.total()
    assert (totals.calls, totals.cached_calls, totals.attempts) == (6, 4, 2)
    assert len(recorder.records) == 6 and sum(r.cached for r in recorder.records) == 4
    await judge.aclose()


async def test_a_later_identical_call_finds_the_cache(tmp_path: Path) -> None:
    provider = ScriptedProvider(ReplyScript(default="fine"))
    judge, _ = judge_with_cache(tmp_path, provider)
    first = await judge.generate(user("hi"))
    again = await judge.generate(user("hi"))
    assert (first.cached, again.cached, len(provider.calls)) == (False, True, 1)
    await judge.aclose()


async def test_without_a_cache_every_call_is_made(tmp_path: Path) -> None:
    provider = ScriptedProvider(ReplyScript(default="fine"), latency=0.02)
    judge = JudgeModel(provider, settings=QUICK)
    await asyncio.gather(*(judge.generate(user("hi")) for _ in range(3)))
    assert len(provider.calls) == 3


async def test_followers_share_the_leaders_failure_without_requests(tmp_path: Path) -> None:
    broken = ModelError("bad request", kind="bad_request", status=400)
    provider = ScriptedProvider(ReplyScript(), latency=0.02, errors=[broken] * 5)
    judge, recorder = judge_with_cache(tmp_path, provider)
    outcomes = await asyncio.gather(
        *(judge.generate(user("hi")) for _ in range(3)), return_exceptions=True
    )
    assert all(isinstance(o, JudgeCallError) for o in outcomes)
    assert len(provider.calls) == 1  # a 400 is not retried, and nobody asked again
    assert sorted(r.attempts for r in recorder.records) == [0, 0, 1]
    assert all(r.error and "bad request" in r.error for r in recorder.records)
    await judge.aclose()


def test_when_the_leader_is_cancelled_a_follower_asks_itself(tmp_path: Path) -> None:
    provider = ScriptedProvider(ReplyScript(default="fine"), latency=0.1)
    settings = QUICK.model_copy(update={"in_flight_grace": 0.0})
    judge, _ = judge_with_cache(tmp_path, provider, settings)

    async def main() -> str:
        # in virtual time: the follower comes, and the leader is cancelled, while the
        # leader's request is still out
        leader = asyncio.ensure_future(judge.generate(user("hi")))
        await asyncio.sleep(0.01)
        follower = asyncio.ensure_future(judge.generate(user("hi")))
        await asyncio.sleep(0.01)
        leader.cancel()
        reply = await asyncio.wait_for(follower, timeout=5)
        await judge.aclose()
        return reply.text

    assert run_in_virtual_time(main()) == "fine"
    assert len(provider.calls) == 2  # the cancelled leader's request, then its own


@pytest.fixture
def judge_server() -> OpenAITestServer:
    server = OpenAITestServer(
        replies=ReplyScript(default="Feedback: grounded. [RESULT] 4"),
        faults=FaultPlan(latency=(0.05, 0.05)),
    )
    server.start()
    yield server  # type: ignore[misc]
    server.stop()


async def test_the_quickstart_judged_run_sends_each_distinct_prompt_once(
    tmp_path: Path, judge_server: OpenAITestServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", judge_server.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", "test")
    monkeypatch.setenv("RAGJUDGE_JUDGE_MODEL", "judge-x")
    monkeypatch.chdir(tmp_path)
    config = load_config(QUICKSTART / "eval-judged.yaml", store=str(tmp_path / "runs.db"), seed=0)
    judge = config.judge
    assert judge is not None
    config = config.model_copy(
        update={
            "judge": judge.model_copy(update={"preflight": False}),
            "cache": str(tmp_path / "cache.db"),
        }
    )
    result = await run_evaluation(config, progress=False)
    prompts = [json.dumps(body["messages"], sort_keys=True) for body in judge_server.requests_log]
    judged = [u for u in result.judge_usage if u.get("calls")]
    calls = sum(int(u["calls"]) for u in judged)
    assert calls == 62  # 31 questions, E3 and E2 each
    # the E2 and E3 prompts of a question are the same when both retrievals agree
    assert len(prompts) == len(set(prompts)) == 55

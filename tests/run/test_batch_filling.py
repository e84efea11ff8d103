"""A batched judge fills its batches by itself: with ``concurrency`` unset, a run keeps a
batch's worth of samples in flight, so the calls of a large run go out in full batches;
an explicit ``concurrency`` still bounds them, and the run's notes say which was used."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest

import ragjudge as rj
from ragjudge.config import EvalConfig, JudgeConfig
from ragjudge.models import JudgeModel, ModelSettings, OpenAIProvider
from ragjudge.models._batch_openai import OpenAIBatches
from ragjudge.models._batching import BatchingProvider, BatchSettings
from ragjudge.models._types import GenerateConfig
from ragjudge.models.scripted import ReplyScript
from ragjudge.run._batch_judge import batch_model_settings, with_batch_concurrency
from ragjudge.store._store import Store
from ragjudge.testing.server import OpenAITestServer
from served import running
from virtual_time import ManualClock

ROWS = [
    {"request_id": f"q{i}", "request": f"Question {i}?", "expected_response": f"Answer {i}."}
    for i in range(40)
]


@pytest.fixture(scope="module")
def server() -> Iterator[OpenAITestServer]:
    yield from running(OpenAITestServer(replies=ReplyScript(default="Ok. [RESULT] 5")))


def evaluate(tmp_path: Path, server: OpenAITestServer, **settings: Any) -> rj.EvaluationResult:
    batch_wait = settings.pop("batch_wait")
    return rj.evaluate(
        ROWS,
        target=lambda query: f"About {query}",
        metrics=[{"metric": "answer_accuracy", "contexts": "none"}],
        judge={
            "model": "openai/test-model",
            "base_url": server.base_url,
            "preflight": False,
            "timeout": 30,
            "mode": "batch",
            "batch_size": 20,
            "batch_wait": batch_wait,
            "batch_poll": 0.05,
        },
        cache=False,
        store=tmp_path / "runs.db",
        progress=False,
        **settings,
    )


def stored_batch_sizes(tmp_path: Path, run_id: str) -> list[int]:
    with Store(tmp_path / "runs.db") as store:
        return sorted(store.run_batches(run_id).values())


def test_without_concurrency_a_run_sends_full_batches(
    tmp_path: Path, server: OpenAITestServer
) -> None:
    before = len(server.batches.sizes)
    # a batch goes out only when full (or after a minute): 8 samples in flight would
    # send batches of 8
    run = evaluate(tmp_path, server, batch_wait=60.0)
    assert run.status == "completed"
    assert server.batches.sizes[before:] == [20, 20]
    assert stored_batch_sizes(tmp_path, run.run_id) == [20, 20]
    assert "batch mode: up to 20 samples in flight (concurrency not set)" in run.notes


def test_an_explicit_concurrency_bounds_the_batches(
    tmp_path: Path, server: OpenAITestServer
) -> None:
    before = len(server.batches.sizes)
    run = evaluate(tmp_path, server, batch_wait=0.2, concurrency=4)
    assert run.status == "completed"
    sizes = server.batches.sizes[before:]
    assert sum(sizes) == len(ROWS) and max(sizes) <= 4
    assert "batch mode: up to 4 samples in flight (concurrency set)" in run.notes


def config(concurrency: int | None = None, **judge: Any) -> EvalConfig:
    settings: dict[str, Any] = {"metrics": ["answer_accuracy"], "judge": {"model": "openai/m"}}
    settings["judge"].update(judge)
    if concurrency is not None:
        settings["concurrency"] = concurrency
    return EvalConfig.model_validate(settings)


@pytest.mark.parametrize(("batch_size", "chosen"), [(20, 20), (1000, 1000), (50_000, 1000)])
def test_an_unset_concurrency_is_the_batch_size_up_to_the_most_allowed(
    batch_size: int, chosen: int
) -> None:
    resolved, note = with_batch_concurrency(config(mode="batch", batch_size=batch_size))
    assert resolved.concurrency == chosen
    assert note == f"batch mode: up to {chosen} samples in flight (concurrency not set)"


def test_a_named_batched_judge_counts_too() -> None:
    named = EvalConfig.model_validate(
        {
            "metrics": ["answer_accuracy"],
            "judges": {
                "quick": {"model": "openai/m"},
                "slow": {"model": "openai/m", "mode": "batch", "batch_size": 300},
            },
        }
    )
    assert with_batch_concurrency(named)[0].concurrency == 300


@pytest.mark.parametrize(
    "given", [config(concurrency=4, mode="batch"), config(), config(concurrency=50)]
)
def test_a_set_concurrency_or_a_direct_judge_keeps_the_config(given: EvalConfig) -> None:
    resolved, note = with_batch_concurrency(given)
    assert resolved.concurrency == given.concurrency
    assert (note is None) == (given.judge is not None and given.judge.mode != "batch")


def test_a_resumed_run_chooses_again_unless_given_a_concurrency(
    tmp_path: Path, server: OpenAITestServer
) -> None:
    first = evaluate(tmp_path, server, batch_wait=0.2, concurrency=4)
    again = evaluate(tmp_path, server, batch_wait=0.2, resume=first.run_id)
    assert again.run_id == first.run_id
    assert "batch mode: up to 20 samples in flight (concurrency not set)" in again.notes
    assert "batch mode: up to 4 samples in flight (concurrency set)" in again.notes


async def test_calls_waiting_in_a_batch_do_not_hold_back_the_next_one() -> None:
    clock = ManualClock()
    slow = OpenAITestServer(replies=ReplyScript(default="Ok. [RESULT] 5"), clock=clock)
    slow.batches.batch_seconds = 3600.0  # the batches end when the test moves the clock
    judge = JudgeConfig(model="openai/test-model", mode="batch", batch_size=5)
    with ExitStack() as stack:
        stack.enter_context(contextlib.contextmanager(running)(slow))
        inner = OpenAIProvider("test-model", base_url=slow.base_url, timeout=30.0)
        quick = BatchSettings(batch_size=5, batch_wait=60.0, poll_interval=0.02, poll_max=0.05)
        provider = BatchingProvider(inner, OpenAIBatches(inner), settings=quick)
        settings = batch_model_settings(ModelSettings(max_concurrency=2), judge)
        model = JudgeModel(provider, settings=settings)
        asked = [
            model.generate([{"role": "user", "content": f"Grade {i}"}], GenerateConfig())
            for i in range(10)
        ]
        calls = asyncio.gather(*asked)
        for _ in range(600):  # a safety net, not a measure: both batches go out at once
            if slow.batches.created == 2:
                break
            await asyncio.sleep(0.1)
        assert slow.batches.sizes == [5, 5]
        clock.now = 3600.0
        replies = await calls
        await model.aclose()
    assert [reply.text for reply in replies] == ["Ok. [RESULT] 5"] * 10

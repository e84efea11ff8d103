"""Judge calls through the Batch API (``mode: batch``) against the test server's batch
endpoints: the same replies and parsing as direct calls, error lines as explicit errors,
ended batches' missing calls sent again, and a stopped caller's batch found again by a
new process instead of being sent (and paid for) twice.

The server runs on a clock the tests move, so a batch ends exactly when a test says."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest
from batch_helpers import FAST, PROMPTS, QUICK, replies
from model_helpers import MemoryRecorder, result_score, user

from ragjudge.models import JudgeCallError, JudgeModel, OpenAIProvider
from ragjudge.models._batch_openai import OpenAIBatches
from ragjudge.models._batching import BatchingProvider, BatchLedger, MemoryLedger
from ragjudge.store._store import Store
from ragjudge.testing.server import OpenAITestServer
from served import running
from virtual_time import ManualClock


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


@pytest.fixture
def server(clock: ManualClock) -> Iterator[OpenAITestServer]:
    yield from running(OpenAITestServer(replies=replies(), clock=clock))


def batched(
    server: OpenAITestServer, ledger: BatchLedger | None = None
) -> tuple[JudgeModel, BatchingProvider, MemoryRecorder]:
    inner = OpenAIProvider("test-model", base_url=server.base_url, timeout=30.0)
    provider = BatchingProvider(
        inner, OpenAIBatches(inner), ledger=ledger or MemoryLedger(), settings=QUICK
    )
    recorder = MemoryRecorder()
    return JudgeModel(provider, settings=FAST, recorder=recorder), provider, recorder


async def grade_all(model: JudgeModel, prompts: list[str]) -> list[int | None]:
    try:
        parsed = await asyncio.gather(
            *(model.generate_parsed(user(p), result_score) for p in prompts)
        )
    finally:
        await model.aclose()
    return [p.value[0] if p.value is not None else None for p in parsed]


def test_batched_calls_give_the_scores_of_direct_calls(server: OpenAITestServer) -> None:
    direct = JudgeModel(OpenAIProvider("test-model", base_url=server.base_url), settings=FAST)
    expected = asyncio.run(grade_all(direct, PROMPTS[:5]))
    model, provider, recorder = batched(server)

    got = asyncio.run(grade_all(model, PROMPTS[:5]))

    assert got == expected == [5, 2, 5, 2, 5]
    assert provider.submitted == 1 and server.batches.created == 1
    assert server.batches.lines_answered == 5
    assert [r.error for r in recorder.records] == [None] * 5
    assert all(r.usage.input_tokens > 0 for r in recorder.records)


def test_an_unreadable_reply_is_asked_again_in_a_later_batch(server: OpenAITestServer) -> None:
    model, provider, recorder = batched(server)

    (value,) = asyncio.run(grade_all(model, [PROMPTS[5]]))

    assert value is None  # every ask said "no verdict": an explicit parse error
    assert provider.submitted == 1 + FAST.reask_limit
    assert len(recorder.records) == 1 + FAST.reask_limit
    assert all(r.text == "no verdict" and r.parsed is None for r in recorder.records)


def test_an_error_file_line_is_that_calls_explicit_error(server: OpenAITestServer) -> None:
    server.batches.fail_line = lambda body: (
        "prompt too long" if "answer 1" in str(body["messages"]) else None
    )
    model, _, recorder = batched(server)

    async def grade() -> tuple[BaseException | int | None, ...]:
        try:
            results = await asyncio.gather(
                *(model.generate_parsed(user(p), result_score) for p in PROMPTS[:3]),
                return_exceptions=True,
            )
        finally:
            await model.aclose()
        return tuple(
            r if isinstance(r, BaseException) else r.value[0] if r.value else None for r in results
        )

    first, failed, third = asyncio.run(grade())

    assert (first, third) == (5, 5)
    assert isinstance(failed, JudgeCallError)
    assert "HTTP 400" in str(failed) and "prompt too long" in str(failed)
    assert server.batches.created == 1  # a refused line is not sent again
    errors = [r.error for r in recorder.records if r.error]
    assert len(errors) == 1 and "prompt too long" in errors[0]


def test_calls_an_expired_batch_did_not_answer_are_sent_again(
    server: OpenAITestServer,
) -> None:
    server.batches.expire_next = 1
    model, provider, _ = batched(server)

    assert asyncio.run(grade_all(model, PROMPTS[:2])) == [5, 2]
    assert provider.submitted == 2
    assert server.batches.lines_answered == 2


def test_a_stopped_run_waits_for_its_batch_instead_of_sending_it_again(
    server: OpenAITestServer, clock: ManualClock, tmp_path: Path
) -> None:
    server.batches.batch_seconds = 3600.0
    store = Store(tmp_path / "runs.db")
    first, _, first_records = batched(server, store.batch_ledger("run-1"))

    async def stop_mid_batch() -> None:
        task = asyncio.create_task(grade_all(first, PROMPTS[:4]))
        while server.batches.retrievals < 1:
            await asyncio.sleep(0.01)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(stop_mid_batch())
    store.close()
    assert server.batches.created == 1 and server.batches.lines_answered == 0

    clock.now = 3600.0  # the batch ends while no process watches it
    reopened = Store(tmp_path / "runs.db")
    second, provider, records = batched(server, reopened.batch_ledger("run-1"))
    got = asyncio.run(grade_all(second, PROMPTS[:4]))
    assert reopened.run_batches("run-1") == {"batch-test-2": 4}
    reopened.close()

    assert got == [5, 2, 5, 2]
    assert provider.submitted == 0 and server.batches.created == 1
    assert server.batches.lines_answered == len(records.records) == 4
    # the stopped process kept its calls on record as interrupted, with no reply
    assert [r.text for r in first_records.records] == [None] * 4
    assert all("interrupted while in flight" in str(r.error) for r in first_records.records)


def test_another_run_does_not_take_a_runs_batches(server: OpenAITestServer, tmp_path: Path) -> None:
    with Store(tmp_path / "runs.db") as store:
        first, _, _ = batched(server, store.batch_ledger("run-1"))
        asyncio.run(grade_all(first, PROMPTS[:1]))
        second, provider, _ = batched(server, store.batch_ledger("run-2"))
        asyncio.run(grade_all(second, PROMPTS[:1]))
    assert provider.submitted == 1 and server.batches.created == 2

"""The intent recorded before a batch is created (``models/_batch_intents.py`` and the
batching provider): a process that dies between the provider's reply to the create
request and the record of the batch id leaves an intent, and the resumed run finds the
batch created for it instead of creating (and paying for) another."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest
from batch_helpers import FLAVOURS, PROMPTS, answered, batched, created, grade_all, replies

from ragjudge.models import JudgeCallError, JudgeModel
from ragjudge.models._batch_intents import Intent
from ragjudge.store._batches import RunBatches
from ragjudge.store._store import Store
from ragjudge.testing.server import OpenAITestServer
from served import running
from virtual_time import ManualClock


class DiesBeforeTheRecord(RunBatches):
    """A run's ledger whose process dies as it would record a created batch's id."""

    def record_batch(self, batch_id: str, custom_ids: Sequence[str]) -> None:
        if Intent.from_mark(batch_id) is None:
            raise RuntimeError("killed after the batch was created, before its record")
        super().record_batch(batch_id, custom_ids)


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


@pytest.fixture
def server(clock: ManualClock) -> Iterator[OpenAITestServer]:
    yield from running(OpenAITestServer(replies=replies(), clock=clock))


def die_after_creating(model: JudgeModel, server: OpenAITestServer, flavour: str) -> None:
    async def grade_until_killed() -> None:
        task = asyncio.create_task(grade_all(model, PROMPTS[:3]))
        while created(server, flavour) < 1:
            await asyncio.sleep(0.01)
        await asyncio.sleep(0.1)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(grade_until_killed())


@pytest.mark.parametrize("flavour", FLAVOURS)
def test_a_batch_created_but_not_recorded_is_found_and_paid_once(
    flavour: str, server: OpenAITestServer, clock: ManualClock, tmp_path: Path
) -> None:
    server.batches.batch_seconds = server.anthropic.batch_seconds = 3600.0
    store = Store(tmp_path / "runs.db")
    first, _, _ = batched(server, flavour, DiesBeforeTheRecord(store, "run-1"))
    die_after_creating(first, server, flavour)
    assert store.run_batches("run-1") == {}  # only the intent is on record
    store.close()

    clock.now = 3600.0
    with Store(tmp_path / "runs.db") as reopened:
        second, provider, records = batched(server, flavour, reopened.batch_ledger("run-1"))
        assert asyncio.run(grade_all(second, PROMPTS[:3])) == [5, 2, 5]
        assert list(reopened.run_batches("run-1").values()) == [3]
    assert provider.submitted == 0 and created(server, flavour) == 1
    assert answered(server, flavour) == len(records.records) == 3


class DiesBeforeTheCreateRequest(RunBatches):
    """A run's ledger whose process dies right after recording an intent."""

    def record_batch(self, batch_id: str, custom_ids: Sequence[str]) -> None:
        super().record_batch(batch_id, custom_ids)
        if Intent.from_mark(batch_id) is not None:
            raise RuntimeError("killed after the intent, before the create request")


@pytest.mark.parametrize("flavour", FLAVOURS)
def test_an_intent_whose_batch_was_never_created_is_sent(
    flavour: str, server: OpenAITestServer, tmp_path: Path
) -> None:
    with Store(tmp_path / "runs.db") as store:
        earlier, _, _ = batched(server, flavour, store.batch_ledger("run-1"))
        asyncio.run(grade_all(earlier, PROMPTS[3:5]))  # a batch of the run of the same size
        first, _, _ = batched(server, flavour, DiesBeforeTheCreateRequest(store, "run-1"))
        with pytest.raises(JudgeCallError):
            asyncio.run(grade_all(first, PROMPTS[:2]))
        assert created(server, flavour) == 1
        second, provider, _ = batched(server, flavour, store.batch_ledger("run-1"))
        assert asyncio.run(grade_all(second, PROMPTS[:2])) == [5, 2]
    assert provider.submitted == 1 and created(server, flavour) == 2


def test_an_intent_mark_reads_back() -> None:
    intent = Intent.new(7)
    assert Intent.from_mark(intent.mark) == Intent(intent.key, round(intent.created, 3), 7)
    assert Intent.from_mark("batch-abc") is None

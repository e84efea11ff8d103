"""The judge-call writes in groups, without Ray: calls begun and ended together are
committed in few transactions, every record is stored once with its ending, and a
caller hears back only once its write is on disk (another connection reads it); a run's
recorder commits a lone call's write at once and holds the write of one of several
calls in flight for the others'."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import pytest

from ragjudge.models import JudgeCallRecord
from ragjudge.store import _group_commit as group_commit
from ragjudge.store._group_commit import GroupWriter
from ragjudge.store._judge_calls import IN_FLIGHT
from ragjudge.store._store import Store

RECORD = JudgeCallRecord(
    provider="openai", model="judge", messages=[{"role": "user", "content": "q"}], config={}
)


def stored(path: Path) -> list[tuple[int, str | None, str | None]]:
    with sqlite3.connect(path) as conn:
        return conn.execute(
            "SELECT call_id, text, error FROM judge_calls ORDER BY call_id"
        ).fetchall()


async def test_calls_arriving_together_are_stored_once_each_in_few_transactions(
    tmp_path: Path,
) -> None:
    path = tmp_path / "runs.db"
    with Store(path, write=True) as store:
        writer = GroupWriter(store, "run", None)

        async def call(i: int) -> int:
            call_id = await writer.begin(RECORD)
            await writer.end(call_id, RECORD.model_copy(update={"text": f"reply {i}"}))
            return call_id

        ids = await asyncio.gather(*(call(i) for i in range(300)))
        hit = await writer.save(RECORD.model_copy(update={"text": "cached", "cached": True}))
    rows = stored(path)
    assert len(set(ids)) == 300 and len(rows) == 301
    assert sorted(text for _, text, _ in rows[:300]) == sorted(f"reply {i}" for i in range(300))
    assert all(error is None for _, _, error in rows)
    assert rows[-1][0] == hit
    # 601 writes: begins together, ends together, the cache hit on its own
    assert writer.groups <= 6


async def test_a_begun_call_is_on_disk_when_its_id_comes_back(tmp_path: Path) -> None:
    path = tmp_path / "runs.db"
    with Store(path, write=True) as store:
        writer = GroupWriter(store, "run", None)
        call_id = await writer.begin(RECORD)
        assert stored(path) == [(call_id, None, IN_FLIGHT)]  # read by another connection


async def test_a_refused_group_fails_every_caller_in_it(tmp_path: Path) -> None:
    path = tmp_path / "runs.db"
    with Store(path, write=True) as store:
        writer = GroupWriter(store, "run", None)
        blocker = sqlite3.connect(path, timeout=0)
        blocker.execute("BEGIN EXCLUSIVE")  # another process holds the file
        store._conn.execute("PRAGMA busy_timeout = 0")
        try:
            results = await asyncio.gather(
                writer.begin(RECORD), writer.begin(RECORD), return_exceptions=True
            )
        finally:
            blocker.rollback()
            blocker.close()
    assert all(isinstance(result, Exception) for result in results)


async def test_a_lone_calls_write_of_a_runs_recorder_is_committed_at_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(group_commit, "GATHER_SECONDS", 3600.0)  # no timer to help
    path = tmp_path / "runs.db"
    with Store(path, write=True) as store:
        writer = GroupWriter(store, "run", None, delay=0)
        begun = writer.begin(RECORD)
        assert begun.done() and stored(path) == [(begun.result(), None, IN_FLIGHT)]
        ended = writer.end(begun.result(), RECORD.model_copy(update={"text": "reply"}))
        assert ended.done() and stored(path) == [(begun.result(), "reply", None)]
        assert writer.groups == 2


async def test_a_runs_recorder_holds_a_write_for_the_other_calls_in_flight(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "runs.db"
    with Store(path, write=True) as store:
        writer = GroupWriter(store, "run", None, delay=0)
        ids = await asyncio.gather(*(writer.begin(RECORD) for _ in range(3)))
        groups = writer.groups
        monkeypatch.setattr(group_commit, "GATHER_SECONDS", 3600.0)  # only the others help
        first = writer.end(ids[0], RECORD.model_copy(update={"text": "first"}))
        for _ in range(3):
            await asyncio.sleep(0)
        assert not first.done()  # two calls still in flight, one write queued
        second = writer.end(ids[1], RECORD.model_copy(update={"text": "second"}))
        await asyncio.gather(first, second)  # two writes for the one call left: committed
        assert writer.groups == groups + 1
        assert [text for _, text, _ in stored(path)] == ["first", "second", None]

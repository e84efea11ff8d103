"""Judge calls stored as workers make them, and the run's reply cache served to every
worker, through one actor on the driver's machine (:class:`CallLedger`).

A worker's judge call is stored, marked in flight, before its request goes out and
completed the moment its reply returns, as in a local run — not with its batch. So a
killed worker or driver loses only the calls still in flight (a resumed run marks them
lost), and a batch sent again (its worker restarted, or the run resumed) finds the
replies already paid for in the cache instead of paying for them again. The ledger
writes each cache entry at once to the run's cache file; workers on machines that do
not see that file read it through the ledger.

The ledger is pinned to the driver's node (it opens the driver's store and cache files)
and lives as long as the driver: a killed driver takes it along, leaving every
finished call stored.
"""

from __future__ import annotations

import asyncio
from typing import Any

import ray
from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

from ragjudge._util.known_secrets import register_secrets
from ragjudge.config import EvalConfig
from ragjudge.config._secrets import config_secrets
from ragjudge.models import JudgeCallRecord, ResponseCache
from ragjudge.run._judging import prices_of
from ragjudge.store._group_commit import MAX_DELAY, GroupWriter
from ragjudge.store._store import Store

__all__ = ["CallLedger", "LedgerCache", "LedgerRecorder", "start_ledger"]


class CallLedger:
    """The body of the ledger actor: stores the run's judge calls and keeps its reply
    cache (see the module docstring). Its methods share one event loop: the call
    records arriving together are committed in one transaction, each answered once
    stored (:mod:`ragjudge.store._group_commit`)."""

    def __init__(
        self, store_path: str, run_id: str, config: EvalConfig, cache_path: str | None
    ) -> None:
        # this process writes calls and cache entries: it masks the run's secrets too
        register_secrets(config_secrets(config))
        self.store = Store(store_path, write=True)
        self.recorder = GroupWriter(self.store, run_id, prices_of(config.judge))
        self.cache = ResponseCache(cache_path) if cache_path is not None else None

    async def begin(self, record: JudgeCallRecord) -> int:
        """Store a call whose request is about to go out; return its id."""
        return await self.recorder.begin(record)

    async def end(self, call_id: int, record: JudgeCallRecord) -> None:
        """Complete a call stored by :meth:`begin`."""
        await self.recorder.end(call_id, record)

    async def write(self, writes: list[tuple[str, int | None, JudgeCallRecord]]) -> list[int]:
        """Several writes of one worker — ``("begin" | "end" | "save", call id or None,
        record)`` — stored together; the calls' ids, in order."""
        return list(await asyncio.gather(*(self._write(*write) for write in writes)))

    async def _write(self, kind: str, call_id: int | None, record: JudgeCallRecord) -> int:
        if kind == "begin":
            return await self.recorder.begin(record)
        if kind == "end" and call_id is not None:
            await self.recorder.end(call_id, record)
            return call_id
        return await self.recorder.save(record)

    async def save(self, record: JudgeCallRecord) -> int:
        """Store a finished call that was not stored in flight (a cache hit)."""
        return await self.recorder.save(record)

    def cache_get(self, key: str) -> dict[str, Any] | None:
        """The cached reply under ``key``, or None."""
        return self.cache.get(key) if self.cache is not None else None

    def cache_recall(self, key: str) -> dict[str, Any] | None:
        """A fact about an endpoint the cache keeps under ``key`` (no hit counted)."""
        return self.cache.recall(key) if self.cache is not None else None

    def cache_put(self, key: str, value: dict[str, Any]) -> None:
        """Write a reply to the cache file at once (a driver killed next keeps it)."""
        if self.cache is not None:
            self.cache.put(key, value)
            self.cache.flush()

    def close(self) -> None:
        """Write what is queued and close the files."""
        self.recorder.flush()
        if self.cache is not None:
            self.cache.close()
        self.store.close()


def start_ledger(store_path: str, run_id: str, config: EvalConfig, cache_path: str | None) -> Any:
    """The ledger actor of a run, on this (the driver's) node; it is ready once it
    answers (:func:`ray.get` on ``ledger.cache_get.remote("")``)."""
    here = ray.get_runtime_context().get_node_id()
    remote: Any = ray.remote
    actor = remote(
        num_cpus=0,
        max_concurrency=10_000,  # the calls of every worker wait for one commit together
        scheduling_strategy=NodeAffinitySchedulingStrategy(node_id=here, soft=False),
    )(CallLedger)
    return actor.remote(store_path, run_id, config, cache_path)


class LedgerRecorder:
    """A worker's call recorder: each call goes to the ledger as it is sent and as it
    ends; the ids are the store's. The writes of the worker's concurrent calls that
    come within :data:`~ragjudge.store._group_commit.MAX_DELAY` travel to the ledger
    in one request, and each caller hears back once its write is stored."""

    def __init__(self, ledger: Any) -> None:
        self.ledger = ledger
        self._queue: list[tuple[str, int | None, JudgeCallRecord]] = []
        self._waiting: list[asyncio.Future[int]] = []
        self._due: asyncio.TimerHandle | None = None
        self._sending: set[asyncio.Task[None]] = set()

    def __getstate__(self) -> dict[str, Any]:
        return {"ledger": self.ledger}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(state["ledger"])  # type: ignore[misc]

    async def __call__(self, record: JudgeCallRecord) -> int:
        """Store a finished call; return its id."""
        return await self._write("save", None, record)

    async def begin(self, record: JudgeCallRecord) -> int:
        """Store a call whose request is about to go out; return its id."""
        return await self._write("begin", None, record)

    async def end(self, call_id: int, record: JudgeCallRecord) -> None:
        """Complete a call stored by :meth:`begin`."""
        await self._write("end", call_id, record)

    def _write(
        self, kind: str, call_id: int | None, record: JudgeCallRecord
    ) -> asyncio.Future[int]:
        loop = asyncio.get_running_loop()
        done: asyncio.Future[int] = loop.create_future()
        self._queue.append((kind, call_id, record))
        self._waiting.append(done)
        if self._due is None:
            self._due = loop.call_later(MAX_DELAY, self._send)
        return done

    def _send(self) -> None:
        self._due = None
        writes, self._queue = self._queue, []
        waiting, self._waiting = self._waiting, []
        task = asyncio.ensure_future(self._deliver(self.ledger.write.remote(writes), waiting))
        self._sending.add(task)
        task.add_done_callback(self._sending.discard)

    @staticmethod
    async def _deliver(reply: Any, waiting: list[asyncio.Future[int]]) -> None:
        try:
            ids: list[int] = await reply
        except Exception as exc:  # the ledger is gone or refused: every caller hears it
            for done in waiting:
                if not done.done():
                    done.set_exception(exc)
            return
        for done, call_id in zip(waiting, ids, strict=True):
            if not done.done():
                done.set_result(call_id)


class LedgerCache(ResponseCache):
    """A worker's view of the run's reply cache: read and written through the ledger,
    so every node sees the entries every other node made. Counters are not kept here."""

    def __init__(self, ledger: Any) -> None:
        super().__init__(":memory:")
        self.ledger = ledger

    def check(self, *, write: bool = False) -> None:
        """Nothing to check: the driver checked the file."""

    def get(self, key: str) -> dict[str, Any] | None:
        """The cached reply under ``key``, or None."""
        # the model's cache lookup is synchronous; one round trip to the ledger
        value: dict[str, Any] | None = ray.get(self.ledger.cache_get.remote(key))
        return value

    def recall(self, key: str) -> dict[str, Any] | None:
        """A fact about an endpoint the run's cache keeps under ``key``, or None."""
        value: dict[str, Any] | None = ray.get(self.ledger.cache_recall.remote(key))
        return value

    def put(self, key: str, value: dict[str, Any]) -> None:
        """Send a reply to the ledger (the ledger starts a worker's requests in order
        and stores a reply at once, so it is stored before the call that made it is
        completed)."""
        self.ledger.cache_put.remote(key, value)

    def flush(self) -> None:
        """Nothing is written here."""

    def close(self) -> None:
        """Nothing is open here."""

"""Judge-call records written in groups: the writes of calls that arrive together go to
the store in one transaction.

Every live call is written twice (in flight, then ended); a transaction of its own for
each write costs more than the write. :class:`GroupWriter` queues the writes arriving
together and commits them at once: for a run's own recorder (``delay`` 0), a lone
call's write at once (its future already resolved), the writes of calls in flight
together at the next turn of the event loop once as many writes are queued as calls
are in flight through the writer, else a call's record at the next turn too and its
end after at most :data:`GATHER_SECONDS` (what comes meanwhile joins the wait, so
calls in flight together mostly share their commits); for the Ray ledger, whose writes
come over the network, after ``delay`` seconds (up to :data:`LARGEST_GROUP`). Each
caller's answer (a call's id, or that its end is stored) comes only after the commit,
so a call acknowledged to its caller is on disk — a request is still sent only once
its record is stored.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ragjudge.models import JudgeCallRecord
from ragjudge.models._pricing import PriceTable
from ragjudge.store._judge_calls import insert_call, update_call

if TYPE_CHECKING:
    from ragjudge.store._store import Store

__all__ = ["GATHER_SECONDS", "LARGEST_GROUP", "MAX_DELAY", "GroupWriter"]

MAX_DELAY = 0.005
"""Seconds a write of the Ray ledger waits for others to share its transaction."""

GATHER_SECONDS = 0.001
"""Seconds the end of a call of a run's recorder waits at most for the other calls in
flight to queue their writes (a commit costs more than the wait: measured in
``benchmarks/call_overhead.py``)."""

LARGEST_GROUP = 512
"""Writes committed together at most."""


@dataclass
class _Write:
    record: JudgeCallRecord
    call_id: int | None
    """The call completed, or None for a new one."""
    in_flight: bool
    done: asyncio.Future[int]


class GroupWriter:
    """Writes the judge calls of run ``run_id`` in groups (see the module docstring);
    ``judge``: the named judge of a judge matrix whose calls these are."""

    def __init__(
        self,
        store: Store,
        run_id: str,
        prices: PriceTable | None,
        *,
        judge: str | None = None,
        delay: float = MAX_DELAY,
    ) -> None:
        self.store = store
        self.run_id = run_id
        self.prices = prices
        self.judge = judge
        self.delay = delay
        self.groups = 0
        """Transactions committed (for tests and benchmarks)."""
        self._queue: list[_Write] = []
        self._due: asyncio.Handle | None = None
        self._open = 0
        """Calls begun through the writer and not ended yet."""

    def begin(self, record: JudgeCallRecord) -> asyncio.Future[int]:
        """Store a call whose request is about to go out; resolves to its id once
        committed (the write stays queued if the caller stops waiting)."""
        self._open += 1
        return self._write(record, None, in_flight=True)

    def end(self, call_id: int, record: JudgeCallRecord) -> asyncio.Future[int]:
        """Complete a call stored by :meth:`begin`; resolves once committed."""
        self._open -= 1
        return self._write(record, call_id, in_flight=False)

    def save(self, record: JudgeCallRecord) -> asyncio.Future[int]:
        """Store a finished call (a cache hit); resolves to its id once committed."""
        return self._write(record, None, in_flight=False)

    def flush(self) -> None:
        """Commit what is queued now."""
        if self._due is not None:
            self._due.cancel()
            self._due = None
        writes, self._queue = self._queue, []
        if not writes:
            return
        try:
            with self.store.judge_call_writes() as conn:
                ids = [self._apply(conn, write) for write in writes]
        except Exception as exc:  # every caller of the group hears why
            self._open -= sum(write.in_flight for write in writes)  # never to be ended
            for write in writes:
                if not write.done.done():
                    write.done.set_exception(exc)
            return
        self.groups += 1
        for write, call_id in zip(writes, ids, strict=True):
            if not write.done.done():
                write.done.set_result(call_id)

    def _write(
        self, record: JudgeCallRecord, call_id: int | None, *, in_flight: bool
    ) -> asyncio.Future[int]:
        loop = asyncio.get_running_loop()
        done: asyncio.Future[int] = loop.create_future()
        self._queue.append(_Write(record, call_id, in_flight, done))
        if len(self._queue) >= LARGEST_GROUP:
            self.flush()
        elif self.delay > 0:
            if self._due is None:
                self._due = loop.call_later(self.delay, self.flush)
        elif self._open <= 1:
            self.flush()  # no other call in flight: nothing to wait for, not even a turn
        elif len(self._queue) >= self._open:  # as many writes as calls in flight: go
            if isinstance(self._due, asyncio.TimerHandle):
                self._due.cancel()
                self._due = None
            if self._due is None:
                self._due = loop.call_soon(self.flush)
        elif self._due is None:  # a record goes at the next turn, an end waits for others
            self._due = (
                loop.call_soon(self.flush)
                if in_flight
                else loop.call_later(GATHER_SECONDS, self.flush)
            )
        return done

    def _apply(self, conn: Any, write: _Write) -> int:
        if write.in_flight:
            return insert_call(conn, self.run_id, write.record, None, self.judge, in_flight=True)
        cost = self._cost(write.record)
        if write.call_id is None:
            return insert_call(conn, self.run_id, write.record, cost, self.judge)
        update_call(conn, write.call_id, write.record, cost)
        return write.call_id

    def _cost(self, record: JudgeCallRecord) -> float | None:
        if self.prices is None:
            return None
        return 0.0 if record.cached else self.prices.cost(record.model, record.usage)

"""The ``judge_calls`` table: every call a run made to a judge or agent model, written
before the request goes out and completed when the reply comes back, so a call in
flight when the process ends is still counted — the usage table shows what was paid."""

from __future__ import annotations

import json
import sqlite3
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from ragjudge.models._types import JudgeCallRecord
from ragjudge.store._file import transaction
from ragjudge.store._rows import timestamp

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "IN_FLIGHT",
    "LOST",
    "CallUsage",
    "JudgeCallStore",
    "cost_by_judge",
    "insert_call",
    "mark_lost_calls",
    "update_call",
    "usage_by_call",
    "usage_by_purpose",
]

IN_FLIGHT = "in flight: the request was sent and no reply has been recorded yet"
LOST = (
    "lost: the process ended while this call was in flight; "
    "the provider may have billed it, the reply never arrived"
)


class CallUsage(NamedTuple):
    """One judge call's tokens and cost in dollars (None when unpriced)."""

    input_tokens: int
    output_tokens: int
    cost: float | None


_COLUMNS = (
    "run_id, provider, model, purpose, trial, messages_json, config_json, text, parsed_json,"
    " input_tokens, output_tokens, latency, attempts, cached, error, cost, created_at"
)


_INSERT = f"INSERT INTO judge_calls ({_COLUMNS}, judge) VALUES ({', '.join('?' * 18)})"


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)


def _values(record: JudgeCallRecord, cost: float | None, error: str | None) -> tuple[Any, ...]:
    return (
        record.provider,
        record.model,
        record.purpose,
        record.trial,
        _dumps(record.messages),
        _dumps(record.config),
        *_ending_values(record, cost, error),
    )


def insert_call(
    conn: sqlite3.Connection,
    run_id: str | None,
    record: JudgeCallRecord,
    cost: float | None,
    judge: str | None = None,
    *,
    in_flight: bool = False,
) -> int:
    """Insert one call and return its id (the caller commits); ``judge`` is the named
    judge of a judge matrix that made it (None in a run with one judge); ``in_flight``:
    stored as sent with no reply yet (its error says so)."""
    error = IN_FLIGHT if in_flight else record.error
    cursor = conn.execute(_INSERT, (run_id, *_values(record, cost, error), timestamp(), judge))
    assert cursor.lastrowid is not None
    return cursor.lastrowid


_ENDING = (
    "text = ?, parsed_json = ?, input_tokens = ?, output_tokens = ?, latency = ?,"
    " attempts = ?, cached = ?, error = ?, cost = ?"
)
_UPDATE = f"UPDATE judge_calls SET {_ENDING} WHERE call_id = ?"


def update_call(
    conn: sqlite3.Connection, call_id: int, record: JudgeCallRecord, cost: float | None
) -> None:
    """Complete a call inserted in flight with how it ended (the caller commits). Only
    the columns an ending sets are written: the request (provider, model, purpose,
    trial, messages, settings) is the one stored when the call began."""
    conn.execute(_UPDATE, (*_ending_values(record, cost, record.error), call_id))


def _ending_values(
    record: JudgeCallRecord, cost: float | None, error: str | None
) -> tuple[Any, ...]:
    return (
        record.text,
        None if record.parsed is None else _dumps(record.parsed),
        record.usage.input_tokens,
        record.usage.output_tokens,
        record.latency,
        record.attempts,
        int(record.cached),
        error,
        cost,
    )


def mark_lost_calls(conn: sqlite3.Connection, run_id: str) -> int:
    """Mark the run's calls still in flight (the process that sent them ended) as lost;
    returns how many (the caller commits)."""
    cursor = conn.execute(
        "UPDATE judge_calls SET error = ? WHERE run_id = ? AND error = ?", (LOST, run_id, IN_FLIGHT)
    )
    return cursor.rowcount


def usage_by_purpose(conn: sqlite3.Connection, run_id: str) -> list[dict[str, Any]]:
    """Judge calls, tokens and cost per purpose (the metric that made them; with a
    judge matrix, per purpose and judge: ``faithfulness@big``); ``lost`` counts calls
    whose reply never arrived (in flight when the process ended or was interrupted)."""
    rows = conn.execute(
        "SELECT COALESCE(purpose, '(none)') || COALESCE('@' || judge, ''), COUNT(*), SUM(cached), SUM(input_tokens),"
        " SUM(output_tokens), SUM(cost), COUNT(cost), SUM(error IS NOT NULL),"
        " SUM(attempts), SUM(error LIKE 'lost:%' OR error LIKE 'interrupted%'"
        " OR error LIKE 'in flight:%')"
        " FROM judge_calls WHERE run_id = ? GROUP BY 1 ORDER BY MIN(call_id)",
        (run_id,),
    ).fetchall()
    return [
        {
            "purpose": r[0],
            "calls": r[1],
            "cached": r[2],
            "input_tokens": r[3],
            "output_tokens": r[4],
            "cost": r[5] if r[6] else None,
            "errors": r[7],
            "attempts": r[8],
            "lost": r[9],
        }
        for r in rows
    ]


def cost_by_judge(conn: sqlite3.Connection, run_id: str) -> dict[str | None, float | None]:
    """The dollars each named judge's calls cost (None: a judge with an unpriced call
    and no priced one); calls of no named judge are under None."""
    rows = conn.execute(
        "SELECT judge, SUM(cost), COUNT(cost) FROM judge_calls WHERE run_id = ?"
        " GROUP BY judge ORDER BY MIN(call_id)",
        (run_id,),
    ).fetchall()
    return {r[0]: (r[1] if r[2] else None) for r in rows}


def usage_by_call(conn: sqlite3.Connection, run_id: str) -> dict[int, CallUsage]:
    """Every call's tokens and cost (None when unpriced), by call id."""
    rows = conn.execute(
        "SELECT call_id, input_tokens, output_tokens, cost FROM judge_calls WHERE run_id = ?",
        (run_id,),
    ).fetchall()
    return {int(r[0]): CallUsage(int(r[1] or 0), int(r[2] or 0), r[3]) for r in rows}


class JudgeCallStore:
    """The judge-call writes and reads of :class:`~ragjudge.store._store.Store` (its
    connection): calls stored before their requests go out, then completed, and the
    usage and cost over a run's calls."""

    path: Path
    _conn: sqlite3.Connection

    def save_judge_call(
        self,
        run_id: str | None,
        record: JudgeCallRecord,
        *,
        cost: float | None = None,
        judge: str | None = None,
    ) -> int:
        """Store one judge call (with its cost in dollars, when priced, and the named
        judge of a judge matrix that made it) and return its id."""
        with transaction(self._conn, self.path) as conn:
            return insert_call(conn, run_id, record, cost, judge)

    def begin_judge_call(
        self, run_id: str | None, record: JudgeCallRecord, *, judge: str | None = None
    ) -> int:
        """Store a call about to be sent, marked in flight; returns its id."""
        with transaction(self._conn, self.path) as conn:
            return insert_call(conn, run_id, record, None, judge, in_flight=True)

    def end_judge_call(
        self, call_id: int, record: JudgeCallRecord, *, cost: float | None = None
    ) -> None:
        """Complete a call stored in flight with how it ended."""
        with transaction(self._conn, self.path) as conn:
            update_call(conn, call_id, record, cost)

    def judge_call_writes(self) -> AbstractContextManager[sqlite3.Connection]:
        """One transaction for many writes of calls (:func:`insert_call` and
        :func:`update_call` on the connection it gives), committed together."""
        return transaction(self._conn, self.path)

    def mark_lost_calls(self, run_id: str) -> int:
        """Mark calls left in flight by a process that ended (killed) as lost; returns
        how many."""
        with transaction(self._conn, self.path) as conn:
            return mark_lost_calls(conn, run_id)

    def judge_calls(self, run_id: str) -> pd.DataFrame:
        """Every judge call of the run (prompt, reply, usage, cost …), in call order."""
        import pandas as pd  # loaded by the commands that read frames, not by `runs`

        return pd.read_sql_query(
            "SELECT * FROM judge_calls WHERE run_id = ? ORDER BY call_id",
            self._conn,
            params=(run_id,),
        )

    def judge_usage(self, run_id: str) -> list[dict[str, Any]]:
        """Judge calls, tokens, cost, errors and lost calls per purpose."""
        return usage_by_purpose(self._conn, run_id)

    def judge_costs(self, run_id: str) -> dict[str | None, float | None]:
        """The dollars each named judge's calls cost (see :func:`cost_by_judge`)."""
        return cost_by_judge(self._conn, run_id)

    def call_usage(self, run_id: str) -> dict[int, CallUsage]:
        """Every judge call's tokens and cost, by call id."""
        return usage_by_call(self._conn, run_id)

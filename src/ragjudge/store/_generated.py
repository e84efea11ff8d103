"""The progress of test-set generations: one row per generation (its settings and the
fingerprint that finds it again) and one per candidate it checked, with what became of
it and what it cost. A generation run again with the same settings reads its candidates
back instead of paying for them twice."""

from __future__ import annotations

import json
import secrets
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ragjudge.store._file import transaction
from ragjudge.store._rows import timestamp

__all__ = ["GeneratedCandidates", "StoredCandidate"]


@dataclass(frozen=True)
class StoredCandidate:
    """One candidate of a generation as stored."""

    candidate: str
    """Its key, ``"{kind}-{position}"``."""
    kind: str
    position: int
    outcome: str
    """``passed`` (every check held) or the name of the check that dropped it."""
    record: dict[str, Any]
    calls: int
    cost: float | None


class GeneratedCandidates:
    """The generation writes and reads of :class:`~ragjudge.store._store.Store`."""

    path: Path
    _conn: sqlite3.Connection

    def generation_for(self, fingerprint: str, settings: dict[str, Any]) -> tuple[str, bool]:
        """The generation with this fingerprint, created when there is none; its id and
        whether it already existed."""
        row = self._conn.execute(
            "SELECT generation_id FROM testset_generations WHERE fingerprint = ?",
            (fingerprint,),
        ).fetchone()
        if row is not None:
            return str(row[0]), True
        generation_id = "gen-" + secrets.token_hex(6)
        with transaction(self._conn, self.path) as conn:
            conn.execute(
                "INSERT INTO testset_generations VALUES (?, ?, ?, ?)",
                (generation_id, fingerprint, json.dumps(settings, ensure_ascii=False), timestamp()),
            )
        return generation_id, False

    def save_candidate(self, generation_id: str, candidate: StoredCandidate) -> None:
        """Store one checked candidate (a second save of the same key replaces it)."""
        with transaction(self._conn, self.path) as conn:
            conn.execute(
                "INSERT OR REPLACE INTO testset_candidates VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    generation_id,
                    candidate.candidate,
                    candidate.kind,
                    candidate.position,
                    candidate.outcome,
                    json.dumps(candidate.record, ensure_ascii=False),
                    candidate.calls,
                    candidate.cost,
                    timestamp(),
                ),
            )

    def generated_candidates(self, generation_id: str) -> list[StoredCandidate]:
        """Every stored candidate of a generation, by kind and position."""
        rows = self._conn.execute(
            "SELECT candidate, kind, position, outcome, record_json, calls, cost"
            " FROM testset_candidates WHERE generation_id = ? ORDER BY kind, position",
            (generation_id,),
        ).fetchall()
        return [
            StoredCandidate(key, kind, int(pos), outcome, json.loads(record), int(calls), cost)
            for key, kind, pos, outcome, record, calls, cost in rows
        ]

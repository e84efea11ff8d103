"""Bringing the score names of runs an older version stored up to the current ones
(:data:`ragjudge._util.score_names.RENAMED_SCORES`), once, when the store is opened: a
run then reads, compares and exports under the current names, and a resumed run adds
its new scores under the names its old ones now have. A store that cannot be written
(read-only, or busy past the timeout) keeps the old names; they are still read, under
the old names.

A run whose meanings name an old score is found from the ``runs`` table alone. A run
stored without meanings (by a version before they were stored) has to have its scores
looked at; after such a look the largest ``runs`` rowid is kept in ``store_marks``, so
each such run is looked at once, not on every open (and a store with none is not
written to by being opened)."""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from ragjudge._util.score_names import RENAMED_SCORES, current_score_name

__all__ = ["rename_old_scores"]

_CANDIDATES = (
    "SELECT run_id, meanings_json FROM runs WHERE (meanings_json IS NULL AND rowid > ?) OR "
    + " OR ".join("instr(meanings_json, ?) > 0" for _ in RENAMED_SCORES)
)
_MARK = "renames_checked_rowid"


def rename_old_scores(conn: sqlite3.Connection) -> None:
    """Give every run that holds scores under an old name their current names: the
    scores and the run's meanings. Runs without old names are not touched."""
    try:
        checked = _checked_rowid(conn)
        last = conn.execute("SELECT COALESCE(MAX(rowid), 0) FROM runs").fetchone()[0]
        candidates = conn.execute(_CANDIDATES, (checked, *RENAMED_SCORES)).fetchall()
        for run_id, meanings_json in candidates:
            _rename_run(conn, run_id, meanings_json)
        if any(meanings_json is None for _, meanings_json in candidates):
            with conn:
                conn.execute(
                    "INSERT OR REPLACE INTO store_marks (name, value) VALUES (?, ?)", (_MARK, last)
                )
    except sqlite3.OperationalError:  # read-only, or busy: the old names stay readable
        return


def _checked_rowid(conn: sqlite3.Connection) -> int:
    row = conn.execute("SELECT value FROM store_marks WHERE name = ?", (_MARK,)).fetchone()
    return 0 if row is None else int(row[0])


def _rename_run(conn: sqlite3.Connection, run_id: str, meanings_json: str | None) -> None:
    stored = [
        row[0]
        for row in conn.execute("SELECT DISTINCT metric FROM scores WHERE run_id = ?", (run_id,))
    ]
    renames = {name: current_score_name(name) for name in stored}
    renames = {old: new for old, new in renames.items() if old != new}
    known = None if meanings_json is None else json.loads(meanings_json)
    meanings = None if known is None else _renamed_meanings(known)
    if not renames and meanings == known:
        return
    with conn:
        for old, new in renames.items():
            conn.execute(
                "UPDATE scores SET metric = ? WHERE run_id = ? AND metric = ?", (new, run_id, old)
            )
        if meanings != known:
            conn.execute(
                "UPDATE runs SET meanings_json = ? WHERE run_id = ?",
                (json.dumps(meanings), run_id),
            )


def _renamed_meanings(meanings: dict[str, Any]) -> dict[str, Any]:
    """The meanings under the current names; a judge's meaning also names its metric's
    score (``metric``), renamed the same way."""
    renamed: dict[str, Any] = {}
    for name, meaning in meanings.items():
        if isinstance(meaning, dict) and isinstance(meaning.get("metric"), str):
            meaning = {**meaning, "metric": current_score_name(meaning["metric"])}
        renamed[current_score_name(name)] = meaning
    return renamed

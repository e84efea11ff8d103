"""Runs stored without meanings (by a version before meanings were stored) are looked
at for old score names once, not on every open of the store."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import ragjudge as rj
from ragjudge.store import Store
from ragjudge.store._renames import rename_old_scores

ROWS = [{"request": f"q{i}", "response": "a b c", "expected_response": "a b"} for i in range(3)]


def without_meanings(store: Path, run_id: str) -> None:
    conn = sqlite3.connect(store)
    with conn:
        conn.execute("UPDATE runs SET meanings_json = NULL WHERE run_id = ?", (run_id,))
        conn.execute("DELETE FROM store_marks")
    conn.close()


def statements_of_a_rename_pass(store: Path) -> list[str]:
    """The SQL one pass of the renaming runs on opening the store."""
    seen: list[str] = []
    conn = sqlite3.connect(store)
    conn.set_trace_callback(seen.append)
    rename_old_scores(conn)
    conn.close()
    return seen


def test_a_run_without_meanings_is_looked_at_once(tmp_path: Path) -> None:
    store = tmp_path / "runs.db"
    run_id = rj.evaluate(ROWS, metrics=["token_f1"], store=store, progress=False).run_id
    without_meanings(store, run_id)

    first = statements_of_a_rename_pass(store)
    assert any("SELECT DISTINCT metric FROM scores" in s for s in first)

    again = statements_of_a_rename_pass(store)
    assert not any("SELECT DISTINCT metric FROM scores" in s for s in again)
    assert any("FROM runs" in s for s in again)  # the meanings are still looked at


def test_a_run_added_later_without_meanings_is_looked_at(tmp_path: Path) -> None:
    store = tmp_path / "runs.db"
    rj.evaluate(ROWS, metrics=["token_f1"], store=store, progress=False)
    with Store(store):
        pass  # marks every run so far as looked at
    later = rj.evaluate(ROWS, metrics=["token_f1"], store=store, progress=False).run_id
    conn = sqlite3.connect(store)
    with conn:
        conn.execute("UPDATE runs SET meanings_json = NULL WHERE run_id = ?", (later,))
    conn.close()
    seen = statements_of_a_rename_pass(store)
    scans = [s for s in seen if "SELECT DISTINCT metric FROM scores" in s]
    assert len(scans) == 1 and later in scans[0]

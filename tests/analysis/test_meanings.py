"""Score meanings of stored runs: read from the run record, recorded from the config for
runs an older version stored without them (the command line does it when it opens a
store), merged across runs."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from typer.testing import CliRunner

from ragjudge.analysis._meanings import exclusions, lower_is_better, merged_meanings, run_meanings
from ragjudge.cli import app
from ragjudge.metrics._stored import record_missing_meanings
from ragjudge.schema import Sample, ScoreMeaning
from ragjudge.store._store import Store


def test_meanings_of_a_run_stored_before_they_were_recorded_are_rebuilt(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    with Store(path) as store:
        samples = [Sample(request_id="a", request="q")]
        config = {"metrics": [{"metric": "multiturn", "name": "mqa"}, "no_such_metric", 42]}
        run_id = store.create_run(name=None, config=config, versions={}, samples=samples, trials=1)
    with sqlite3.connect(path) as conn:  # as an older version wrote it: no meanings
        conn.execute("UPDATE runs SET meanings_json = NULL")
    with Store(path) as store:
        assert run_meanings(store.run(run_id)) == {}  # reading alone rebuilds nothing
        record_missing_meanings(store)
        rebuilt = run_meanings(store.run(run_id))
    assert set(rebuilt) == {"mqa.wscore", "mqa.lscore", "mqa.mscore"}
    assert rebuilt["mqa.lscore"].lower_is_better


def test_a_store_written_before_meanings_existed_opens_and_gains_the_column(
    tmp_path: Path,
) -> None:
    path = tmp_path / "v0.db"
    with sqlite3.connect(path) as conn:
        conn.execute(
            "CREATE TABLE runs (run_id TEXT PRIMARY KEY, name TEXT, status TEXT NOT NULL,"
            " created_at TEXT NOT NULL, finished_at TEXT, config_json TEXT NOT NULL,"
            " versions_json TEXT NOT NULL, n_samples INTEGER NOT NULL, trials INTEGER NOT NULL)"
        )
        conn.execute(
            "INSERT INTO runs VALUES ('r1', NULL, 'completed', '2026-01-01', NULL,"
            " '{\"metrics\": [\"answer_accuracy\"]}', '{}', 0, 1)"
        )
    done = CliRunner().invoke(app, ["show", "r1", "--store", str(path)])
    assert done.exit_code == 0, done.output
    with Store(path) as store:
        run = store.run("r1")
    assert exclusions(run_meanings(run)) == {"answer_accuracy": [0.0]}
    with sqlite3.connect(path) as conn:  # recorded once, when the command opened the store
        [(stored,)] = conn.execute("SELECT meanings_json FROM runs").fetchall()
    assert json.loads(stored)["answer_accuracy"]["excluded"] == [0.0]


def test_meanings_of_two_runs_merge_their_left_out_values(tmp_path: Path) -> None:
    with Store(tmp_path / "r.db") as store:
        samples = [Sample(request_id="a", request="q")]
        first = store.create_run(
            name=None, config={}, versions={}, samples=samples, trials=1,
            meanings={"acc": ScoreMeaning(high=5, excluded=(0.0,)), "turns": ScoreMeaning(direction="lower")},
        )  # fmt: skip
        second = store.create_run(
            name=None, config={}, versions={}, samples=samples, trials=1,
            meanings={"acc": ScoreMeaning(high=5, excluded=(5.0,))},
        )  # fmt: skip
        merged = merged_meanings(store.run(first), store.run(second))
    assert exclusions(merged) == {"acc": [0.0, 5.0]}
    assert lower_is_better(merged) == {"turns"}

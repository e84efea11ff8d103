"""``ragjudge.evaluate_systems`` on a wide file of two systems: one result per system
with the same sample ids, a paired comparison over every row, and the resume of one
system's interrupted run; ``evaluate(systems=...)`` points to it."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

import ragjudge as rj
from ragjudge.config import ConfigError
from ragjudge.store._store import Store
from wide_files import mtrag_wide_rows, write_wide

ROWS = 12
SYSTEMS = {"gpt4o": "response_gpt4o", "llama": "response_llama"}
COLUMNS = {"request": "question", "expected_response": "reference"}


def wide_file(folder: Path, rows: int = ROWS) -> Path:
    return write_wide(folder / "mtrag_wide.tsv", mtrag_wide_rows(rows))


def sample_ids(store: Path, run_id: str) -> list[str]:
    with Store(store) as opened:
        return sorted(s.request_id for s in opened.samples(run_id))


def score_count(store: Path, run_id: str) -> int:
    with sqlite3.connect(store) as conn:
        (count,) = conn.execute(
            "SELECT COUNT(*) FROM scores WHERE run_id = ?", (run_id,)
        ).fetchone()
    return int(count)


def test_each_system_gets_its_own_run_over_the_same_samples(tmp_path: Path) -> None:
    store = tmp_path / "runs.db"

    runs = rj.evaluate_systems(
        wide_file(tmp_path),
        systems=SYSTEMS,
        columns=COLUMNS,
        metrics=["token_f1"],
        store=store,
        progress=False,
    )

    assert list(runs) == ["gpt4o", "llama"]
    assert runs["gpt4o"].run_id != runs["llama"].run_id
    assert [r.status for r in runs.values()] == ["completed", "completed"]
    ids = sample_ids(store, runs["gpt4o"].run_id)
    assert len(ids) == ROWS
    assert sample_ids(store, runs["llama"].run_id) == ids
    with Store(store) as opened:
        assert opened.run(runs["llama"].run_id).name == "mtrag_wide/llama"
    # the two systems answer differently, so their scores differ
    means = [r.summaries[0].mean for r in runs.values()]
    assert means[0] != means[1]


def test_the_comparison_of_two_systems_pairs_every_row(tmp_path: Path) -> None:
    runs = rj.evaluate_systems(
        wide_file(tmp_path),
        systems=SYSTEMS,
        columns=COLUMNS,
        metrics=["token_f1"],
        name="mtrag",
        store=tmp_path / "runs.db",
        progress=False,
    )

    comparison = runs.compare("gpt4o", "llama")

    (token_f1,) = comparison.rows
    assert token_f1.paired.n == ROWS
    assert token_f1.dropped == 0
    assert comparison.only_a == comparison.only_b == []
    assert (comparison.run_a.name, comparison.run_b.name) == ("mtrag/gpt4o", "mtrag/llama")
    gpt4o, llama = (runs[s].summaries[0].mean for s in SYSTEMS)
    assert token_f1.paired.difference == pytest.approx(llama - gpt4o)


def test_an_unknown_system_is_named_with_the_known_ones(tmp_path: Path) -> None:
    runs = rj.evaluate_systems(
        wide_file(tmp_path, 2),
        systems=SYSTEMS,
        columns=COLUMNS,
        metrics=["token_f1"],
        store=tmp_path / "runs.db",
        progress=False,
    )

    with pytest.raises(KeyError, match="no system 'mistral'; the systems are gpt4o, llama"):
        runs.compare("gpt4o", "mistral")


def test_resuming_one_systems_run_finishes_that_run_only(tmp_path: Path) -> None:
    store = tmp_path / "runs.db"
    data = wide_file(tmp_path)
    runs = rj.evaluate_systems(
        data, systems=SYSTEMS, columns=COLUMNS, metrics=["token_f1"], store=store, progress=False
    )
    gpt4o, llama = runs["gpt4o"].run_id, runs["llama"].run_id
    with sqlite3.connect(store) as conn:  # as if the llama run had been killed midway
        conn.execute("DELETE FROM scores WHERE run_id = ? AND rowid % 3 = 0", (llama,))
    assert score_count(store, llama) < ROWS

    resumed = rj.evaluate_systems(
        data,
        systems=SYSTEMS,
        columns=COLUMNS,
        metrics=["token_f1"],
        store=store,
        resume=llama,
        progress=False,
    )

    assert list(resumed) == ["llama"]
    assert resumed["llama"].run_id == llama
    assert resumed["llama"].status == "completed"
    assert resumed["llama"].summaries[0].mean == pytest.approx(runs["llama"].summaries[0].mean)
    assert score_count(store, llama) == score_count(store, gpt4o) == ROWS
    with Store(store) as opened:
        assert len(opened.runs()) == 2


def test_evaluate_with_systems_names_evaluate_systems(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"call evaluate_systems\(\)"):
        rj.evaluate(
            wide_file(tmp_path, 2),
            systems=SYSTEMS,
            columns=COLUMNS,
            metrics=["token_f1"],
            store=tmp_path / "runs.db",
            progress=False,
        )


def test_evaluate_systems_needs_a_system(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="systems: name at least one system"):
        rj.evaluate_systems(
            wide_file(tmp_path, 2), systems={}, columns=COLUMNS, metrics=["token_f1"]
        )


def test_an_unknown_argument_is_named(tmp_path: Path) -> None:
    with pytest.raises(TypeError, match=r"evaluate_systems\(\).*'metrix'"):
        rj.evaluate_systems(
            wide_file(tmp_path, 2), systems=SYSTEMS, metrics=["token_f1"], metrix=["rouge_l"]
        )


def test_a_failed_gate_raises_once_every_system_has_run(tmp_path: Path) -> None:
    store = tmp_path / "runs.db"

    with pytest.raises(rj.RunFailed, match="token_f1"):
        rj.evaluate_systems(
            wide_file(tmp_path, 3),
            systems=SYSTEMS,
            columns=COLUMNS,
            metrics=["token_f1"],
            fail_under={"token_f1": 0.999},
            on_failure="raise",
            store=store,
            progress=False,
        )

    with Store(store) as opened:
        assert sorted(r.name or "" for r in opened.runs()) == [
            "mtrag_wide/gpt4o",
            "mtrag_wide/llama",
        ]

"""Naming a run: the whole id, a unique start or end of it, or ``latest``; and the
counts over every run that a listing of the runs reads."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from ragjudge.schema import Sample, Score
from ragjudge.store import LATEST, ResultCount, RunNotFound, Store

SAMPLES = [Sample(request_id="a", request="q1"), Sample(request_id="b", request="q2")]


def _create(store: Store, run_id: str) -> str:
    return store.create_run(
        name=None, config={}, versions={}, samples=SAMPLES, trials=1, run_id=run_id
    )


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with Store(tmp_path / "runs.db") as store:
        for run_id in (
            "20250101-100000-aaa111",
            "20250101-110000-bbb222",
            "20250102-090000-ccc111",
        ):
            _create(store, run_id)
        yield store


def test_latest_names_the_run_created_last(store: Store) -> None:
    assert store.run(LATEST).run_id == "20250102-090000-ccc111"
    _create(store, "20240101-000000-ddd333")  # an older-looking id, created after
    assert store.run("latest").run_id == "20240101-000000-ddd333"


def test_latest_in_an_empty_store_says_there_is_none(tmp_path: Path) -> None:
    with Store(tmp_path / "empty.db") as empty, pytest.raises(RunNotFound, match="no run"):
        empty.run("latest")


def test_a_unique_end_of_an_id_names_the_run(store: Store) -> None:
    assert store.run("bbb222").run_id == "20250101-110000-bbb222"
    assert store.run("c111").run_id == "20250102-090000-ccc111"


def test_a_unique_start_still_names_the_run(store: Store) -> None:
    assert store.run("20250102").run_id == "20250102-090000-ccc111"


def test_an_ambiguous_part_lists_every_match(store: Store) -> None:
    with pytest.raises(RunNotFound) as raised:
        store.run("111")
    message = str(raised.value)
    assert "ambiguous" in message
    assert "20250101-100000-aaa111" in message and "20250102-090000-ccc111" in message
    assert "bbb222" not in message


def test_an_id_with_like_wildcards_is_matched_literally(store: Store) -> None:
    with pytest.raises(RunNotFound, match="no run"):
        store.run("%")
    with pytest.raises(RunNotFound, match="no run"):
        store.run("2025010_")


def test_a_whole_id_wins_over_longer_ids_it_starts(store: Store) -> None:
    _create(store, "20250101-110000-bbb222-2")
    assert store.run("20250101-110000-bbb222").run_id == "20250101-110000-bbb222"


def test_tallies_count_values_and_errors_per_run_and_metric(store: Store) -> None:
    run_id = "20250101-100000-aaa111"
    store.save_scores(run_id, "a", 0, [Score(metric="m", value=1.0), Score.failed("n", "boom")])
    store.save_scores(run_id, "b", 0, [Score.failed("m", "boom"), Score.failed("n", "boom")])
    tallies = store.result_counts()
    assert tallies == {run_id: [ResultCount("m", 1, 1), ResultCount("n", 0, 2)]}
    assert store.error_messages() == {run_id: {"boom": 3}}


def test_recording_the_outcome_changes_only_a_completed_run(store: Store) -> None:
    store.set_status("20250101-100000-aaa111", "completed")
    store.set_status("20250101-110000-bbb222", "interrupted")
    finished = store.run("aaa111").finished_at
    store.record_outcome("20250101-100000-aaa111", "failed")
    store.record_outcome("20250101-110000-bbb222", "failed")
    assert store.run("aaa111").status == "failed"
    assert store.run("aaa111").finished_at == finished
    assert store.run("bbb222").status == "interrupted"

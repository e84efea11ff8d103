"""Judge drift on anchor samples, read from stored runs: each judge's agreement with the
expected verdicts now and in the reference run, the anchors whose verdict changed, and
the flag on a judge whose anchors moved."""

from __future__ import annotations

from pathlib import Path

import pytest

from drift_runs import ANCHORS, AS_EXPECTED, BIG_MOVED, stored_run
from ragjudge.analysis._drift import judge_drift
from ragjudge.analysis._results import summarize_run
from ragjudge.store._store import Store


@pytest.fixture
def store(tmp_path: Path) -> Store:
    return Store(tmp_path / "runs.db")


def test_each_judge_is_compared_with_the_expected_verdicts_and_the_reference_run(
    store: Store,
) -> None:
    before = stored_run(store, AS_EXPECTED, anchors=ANCHORS)
    now = stored_run(store, BIG_MOVED, anchors=ANCHORS, reference_run=before)
    report = judge_drift(store, store.run(now))
    assert report is not None and report.reference_run == before
    scores = {s.score: s for s in report.scores}
    mini, big = scores["faithfulness@mini"], scores["faithfulness@big"]
    # a3's anchor names big's score only
    assert [v.request_id for v in mini.verdicts] == ["a1", "a2"]
    assert [v.request_id for v in big.verdicts] == ["a1", "a2", "a3"]
    assert (mini.judge, mini.metric, mini.agreeing, mini.reference_agreeing) == (
        "mini",
        "faithfulness",
        2,
        2,
    )
    assert (mini.changed, mini.moved) == ([], False)
    assert (big.agreeing, big.reference_agreeing) == (1, 3)
    assert big.changed == ["a2", "a3"] and big.missed == ["a2", "a3"] and big.moved
    assert [s.score for s in report.moved] == ["faithfulness@big"]
    # a9 is not a sample of the run
    assert report.unmatched == [("a9", "faithfulness")]


def test_a_changed_verdict_moves_a_judge_whose_agreement_did_not_drop(store: Store) -> None:
    before = stored_run(store, {"faithfulness@mini": {"a1": 0.0, "a2": 0.0}}, anchors=ANCHORS)
    swapped = {"faithfulness@mini": {"a1": 1.0, "a2": 1.0}}  # one right, one wrong, as before
    now = stored_run(store, swapped, anchors=ANCHORS, reference_run="previous")
    report = judge_drift(store, store.run(now))
    assert report is not None and report.reference_run == before
    (mini,) = report.scores
    assert (mini.agreeing, mini.reference_agreeing, mini.changed) == (1, 1, ["a1", "a2"])
    assert mini.moved


def test_a_tolerance_lets_a_scale_verdict_wander_without_moving(store: Store) -> None:
    anchors = [{"request_id": "a1", "metric": "faithfulness", "expected": 4.0, "tolerance": 0.5}]
    stored_run(store, {"faithfulness@mini": {"a1": 4.0}}, anchors=anchors)
    now = stored_run(
        store, {"faithfulness@mini": {"a1": 4.5}}, anchors=anchors, reference_run="previous"
    )
    report = judge_drift(store, store.run(now))
    assert report is not None
    (mini,) = report.scores
    assert (mini.agreeing, mini.reference_agreeing, mini.changed, mini.moved) == (1, 1, [], False)


def test_without_a_reference_run_agreement_is_shown_and_nothing_is_flagged(store: Store) -> None:
    now = stored_run(store, BIG_MOVED, anchors=ANCHORS)
    report = judge_drift(store, store.run(now))
    assert report is not None and report.reference_run is None and report.moved == []
    big = next(s for s in report.scores if s.judge == "big")
    assert (big.agreeing, big.reference_agreeing, big.missed) == (1, None, ["a2", "a3"])


def test_a_reference_run_that_cannot_be_found_is_named(store: Store) -> None:
    first = stored_run(store, AS_EXPECTED, anchors=ANCHORS, reference_run="previous")
    report = judge_drift(store, store.run(first))
    assert report is not None and report.reference_problem == (
        "reference_run: previous: no run was stored before this one"
    )
    absent = stored_run(store, AS_EXPECTED, anchors=ANCHORS, reference_run="no-such-run")
    report = judge_drift(store, store.run(absent))
    assert report is not None and "no run 'no-such-run'" in str(report.reference_problem)


def test_a_run_without_anchors_has_no_drift_report(store: Store) -> None:
    run_id = stored_run(store, AS_EXPECTED)
    assert judge_drift(store, store.run(run_id)) is None
    assert summarize_run(store, run_id).to_dict()["anchors"] is None

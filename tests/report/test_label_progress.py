"""The labelling page's progress panel: counts by how each label was drawn, the judge's
agreement with the labels, and the calibrated estimate from the random draws only."""

from __future__ import annotations

from pathlib import Path

import pytest

from label_sessions import SCORE, labelled_run
from ragjudge.report._label_progress import label_progress
from ragjudge.report._labelling import labelling_session
from ragjudge.store import Label, Store


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    store = tmp_path_factory.mktemp("progress") / "runs.db"
    return store, labelled_run(store)


def test_the_panel_counts_agreement_and_the_calibrated_interval(run: tuple[Path, str]) -> None:
    store, run_id = run
    session = labelling_session(store, run_id, SCORE, "ana")
    with Store(store) as s:
        empty = label_progress(s, session.task)
        assert (empty["samples"], empty["agreement"]["kind"]) == (0, "none")
        assert "No randomly drawn label" in empty["hint"]
        # the judge passes every response but q0, q3, q6, q9; people reject q1 too
        people = {f"q{i}": i % 3 != 0 and i != 1 for i in range(8)}
        drawn = {f"q{i}": "targeted" if i >= 6 else "random" for i in range(8)}
        s.save_labels(
            Label(
                run_id=run_id,
                request_id=r,
                metric=SCORE,
                annotator="ana",
                kind="yesno",
                value=v,
                drawn=drawn[r],
            )
            for r, v in people.items()
        )
        s.save_label(
            Label(
                run_id=run_id,
                request_id="q2",
                metric=SCORE,
                annotator="ben",
                kind="yesno",
                value=True,
            )
        )
        found = label_progress(s, session.task)
    assert (found["samples"], found["random"], found["targeted"]) == (8, 6, 2)
    assert (found["mine"], found["labels"], found["annotators"]) == (8, 9, 2)
    agreement = found["agreement"]
    assert agreement["kind"] == "yesno" and agreement["n"] == 8
    assert agreement["accuracy"]["value"] == pytest.approx(7 / 8)
    calibrated = found["calibrated"]
    assert calibrated["used"] == 6 and calibrated["target"] == "rate"
    low, high = calibrated["ci"]
    assert low <= calibrated["value"] <= high
    assert calibrated["width"] == pytest.approx(high - low)
    assert "wide" in found["hint"]


def test_the_panel_gives_agreement_among_people(tmp_path: Path) -> None:
    store = tmp_path / "runs.db"
    run_id = labelled_run(store)
    session = labelling_session(store, run_id, SCORE, "ana")
    # ana and ben agree on 5 of 6 shared samples; ana says yes on 4, ben on 3
    votes = {"ana": [1, 1, 1, 1, 0, 0], "ben": [1, 1, 1, 0, 0, 0]}
    with Store(store) as s:
        alone = label_progress(s, session.task)["people"]
        assert alone["pairs"] == [] and alone["fleiss_kappa"] is None
        s.save_labels(
            Label(
                run_id=run_id,
                request_id=f"q{i}",
                metric=SCORE,
                annotator=who,
                kind="yesno",
                value=bool(v),
            )
            for who, values in votes.items()
            for i, v in enumerate(values)
        )
        people = label_progress(s, session.task)["people"]
    (pair,) = people["pairs"]
    # observed 5/6; expected 4/6·3/6 + 2/6·3/6 = 1/2; κ = (5/6 − 1/2) / (1/2) = 2/3
    assert (pair["first"], pair["second"], pair["n"]) == ("ana", "ben", 6)
    assert pair["kappa"] == pytest.approx(2 / 3)
    assert people["fleiss_kappa"] is None


def test_a_session_with_strata_spreads_its_targeted_samples_over_the_subsets(
    tmp_path: Path,
) -> None:
    import ragjudge as rj

    rows = [
        {
            "request_id": f"r{i}",
            "request": "Which city is the capital of France?",
            "response": "Paris" if i % 2 else "Lyon",
            "metadata": {"topic": "maps" if i < 9 else "trains"},
        }
        for i in range(12)
    ]
    store = tmp_path / "runs.db"
    metric = {"metric": SCORE, "values": ["Paris"]}
    run_id = rj.evaluate(rows, metrics=[metric], store=store, progress=False).run_id
    session = labelling_session(store, run_id, SCORE, "ana", strata="metadata.topic")
    with Store(store) as s:
        queue = session.queue(s)
    targeted = [item for item in queue if item.drawn == "targeted"]
    trains = {"r9", "r10", "r11"}
    at = [k for k, item in enumerate(targeted) if item.request_id in trains]
    # the "trains" samples are not left to the end of the targeted stream; the random
    # stream's shuffle (seeded by the run's id) may have drawn all three before it
    if at:
        assert at[0] < 3
    else:
        assert trains <= {item.request_id for item in queue if item.drawn == "random"}
    assert any("few labels in topic=" in reason for item in targeted for reason in item.reasons)

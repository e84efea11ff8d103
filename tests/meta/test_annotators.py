from __future__ import annotations

from pathlib import Path

import pytest

from label_runs import label_run
from ragjudge.meta._annotators import annotator_agreements
from ragjudge.schema import Sample, Score, ScoreMeaning
from ragjudge.store import Label, Store


def _labels(run_id: str, metric: str, people: dict[str, list[object]]) -> list[Label]:
    kind = "yesno" if metric == "correct" else "scale"
    return [
        Label(
            run_id=run_id,
            request_id=f"s{i}",
            metric=metric,
            annotator=person,
            kind=kind,
            value=bool(v) if kind == "yesno" else float(v),  # type: ignore[arg-type]
        )
        for person, values in people.items()
        for i, v in enumerate(values)
        if v is not None
    ]


def test_two_people_get_cohens_kappa_and_alpha_as_computed_by_hand(tmp_path: Path) -> None:
    store, run_id = label_run(tmp_path)
    people: dict[str, list[object]] = {
        "ann": [1, 1, 1, 1, 0, 0, 0, 0],
        "bob": [1, 1, 1, 0, 0, 0, 1, 0],
    }
    store.save_labels(_labels(run_id, "correct", people))
    (found,) = annotator_agreements(store, run_id, n_resamples=50)
    (pair,) = found.pairs
    # observed 6/8, chance 0.5·0.5 + 0.5·0.5 = 0.5: (0.75 − 0.5) / 0.5
    assert (pair.first, pair.second, pair.n) == ("ann", "bob", 8)
    assert pair.kappa == pytest.approx(0.5)
    assert found.fleiss_n == 0 and found.fleiss_kappa is None
    # coincidences: 4 of 16 values disagree; chance 2·8·8 / (16·15)
    assert found.alpha is not None and found.alpha.alpha.value == pytest.approx(
        1 - 0.25 / (128 / 240)
    )
    assert found.alpha.units == 8
    judged = {row.human: row for row in found.judges}
    assert set(judged) == {"ann", "bob", "combined"}
    # the judge says yes on even samples: it matches ann on s0, s2, s5 and s7
    assert judged["ann"].accuracy is not None and judged["ann"].accuracy.value == pytest.approx(0.5)
    assert judged["ann"].threshold == 0.5
    # combined: the two agree on six samples; the split ones (s3, s6) are ties left out
    assert judged["combined"].n == 6


def test_three_people_get_fleiss_kappa_over_the_samples_all_labelled(tmp_path: Path) -> None:
    store, run_id = label_run(tmp_path)
    people: dict[str, list[object]] = {
        "ann": [1, 1, 0, 1, 1],
        "bob": [1, 1, 0, 0, None],
        "cy": [1, 0, 0, 0, None],
    }
    store.save_labels(_labels(run_id, "correct", people))
    (found,) = annotator_agreements(store, run_id, n_resamples=50)
    # per sample agreement 1, 1/3, 1, 1/3 (mean 2/3); yes in 6 of 12 votes: chance 0.5
    assert (found.fleiss_n, found.fleiss_raters) == (4, 3)
    assert found.fleiss_kappa == pytest.approx((2 / 3 - 0.5) / 0.5)
    kappas = {(p.first, p.second): (p.n, p.kappa) for p in found.pairs}
    assert kappas[("ann", "bob")] == (4, pytest.approx(0.5))
    assert found.annotators == {"ann": 5, "bob": 4, "cy": 4}


def test_scale_labels_get_the_quadratic_weighted_kappa(tmp_path: Path) -> None:
    store, run_id = label_run(tmp_path)
    people: dict[str, list[object]] = {"ann": [1, 2, 3, 3], "bob": [1, 3, 3, 2]}
    store.save_labels(_labels(run_id, "quality", people))
    (found,) = annotator_agreements(store, run_id, metric="quality", n_resamples=50)
    (pair,) = found.pairs
    # observed squared gaps 2/4; expected from the margins (¼, ¼, ½) each: 1.375
    assert pair.weighted_kappa == pytest.approx(1 - 0.5 / 1.375)
    # exact agreement 1/2, chance 1/16 + 1/16 + 1/4
    assert pair.kappa == pytest.approx((0.5 - 0.375) / 0.625)
    assert found.alpha is not None and found.alpha.level == "ordinal"
    assert {row.human for row in found.judges} == {"ann", "bob", "combined"}
    assert all(row.spearman is not None for row in found.judges)


def test_one_person_has_no_agreement_among_people_but_the_judge_is_compared(
    tmp_path: Path,
) -> None:
    store, run_id = label_run(tmp_path)
    store.save_labels(_labels(run_id, "correct", {"ann": [1, 0, 1, 0]}))
    (found,) = annotator_agreements(store, run_id, n_resamples=50)
    assert found.pairs == [] and found.alpha is None
    (row,) = found.judges
    assert row.accuracy is not None and row.accuracy.value == pytest.approx(1.0)


def test_labels_of_a_metric_are_set_against_each_judges_score_of_it(tmp_path: Path) -> None:
    store = Store(tmp_path / "runs.db")
    meanings = {name: ScoreMeaning(binary=True) for name in ("ok@big", "ok@small", "other")}
    run_id = store.create_run(
        name=None,
        config={},
        versions={},
        samples=[Sample(request_id=f"s{i}", request="q") for i in range(4)],
        trials=1,
        meanings=meanings,
    )
    for i in range(4):
        scores = [Score(metric=name, value=float(i < 2)) for name in meanings]
        store.save_scores(run_id, f"s{i}", 0, scores)
    store.save_labels(
        Label(
            run_id=run_id,
            request_id=f"s{i}",
            metric="ok",
            annotator="ann",
            kind="yesno",
            value=i < 3,
        )
        for i in range(4)
    )
    (found,) = annotator_agreements(store, run_id, n_resamples=50)
    assert [(row.score, row.human, row.n) for row in found.judges] == [
        ("ok@big", "ann", 4),
        ("ok@small", "ann", 4),
    ]
    assert found.judges[0].accuracy is not None
    assert found.judges[0].accuracy.value == pytest.approx(0.75)

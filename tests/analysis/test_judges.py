"""Several judges' results of one stored run, grouped by metric, with their agreement."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from judges_runs import SCALE, YES_NO, judges_run
from ragjudge.analysis import EvaluationResult, compare_runs, summarize_run
from ragjudge.store._store import Store
from report_runs import synthetic_run


def _result(path: Path, **kwargs: bool) -> EvaluationResult:
    run_id = judges_run(path, **kwargs)
    with Store(path) as store:
        return summarize_run(store, run_id)


def test_scores_are_grouped_by_metric_with_each_judges_mean(tmp_path: Path) -> None:
    result = _result(tmp_path / "runs.db")
    groups = {g.metric: g for g in result.judges}
    assert list(groups) == ["supported", "accuracy"]
    supported = groups["supported"]
    assert [j.judge for j in supported.judges] == ["mini", "big", "noisy"]
    assert supported.ensemble == "supported"
    means = {j.judge: j.summary.mean for j in supported.judges if j.summary}
    assert means == {judge: pytest.approx(np.mean(v)) for judge, v in YES_NO.items()}
    accuracy = groups["accuracy"]
    assert accuracy.ensemble is None
    mini = next(j for j in accuracy.judges if j.judge == "mini")
    assert mini.summary is not None and mini.summary.mean == pytest.approx(24 / 7)  # 0 left out


def test_yes_no_agreement_is_nominal_alpha_and_pairwise_kappa(tmp_path: Path) -> None:
    krippendorff = pytest.importorskip("krippendorff")
    result = _result(tmp_path / "runs.db")
    agreement = result.judges[0].agreement
    assert agreement is not None and agreement.alpha.level == "nominal"
    coders = np.array([v + v for v in YES_NO.values()], dtype=np.float64)  # two trials
    expected = krippendorff.alpha(reliability_data=coders, level_of_measurement="nominal")
    assert agreement.alpha.alpha.value == pytest.approx(expected)
    assert (agreement.alpha.units, agreement.alpha.values) == (16, 48)
    assert agreement.alpha.alpha.ci is not None
    pairs = {(p.judge_a, p.judge_b): p for p in agreement.pairs}
    # mini against big: 7 of 8 agree, chance 5/8·4/8 + 3/8·4/8 = 0.5, κ = 0.75
    assert pairs["mini", "big"].kappa == pytest.approx(0.75)
    assert pairs["mini", "big"].n == 16
    assert set(pairs) == {("mini", "big"), ("mini", "noisy"), ("big", "noisy")}


def test_scale_agreement_is_interval_alpha_without_not_sure(tmp_path: Path) -> None:
    krippendorff = pytest.importorskip("krippendorff")
    result = _result(tmp_path / "runs.db")
    agreement = result.judges[1].agreement
    assert agreement is not None and agreement.alpha.level == "interval"
    assert agreement.pairs == ()
    coders = np.array([v + v for v in SCALE.values()], dtype=np.float64)
    coders[coders == 0] = np.nan
    expected = krippendorff.alpha(reliability_data=coders, level_of_measurement="interval")
    assert agreement.alpha.alpha.value == pytest.approx(expected)
    assert agreement.alpha.units == 14  # the sample with "not sure" pairs nothing


def test_an_ensemble_alone_is_read_from_its_stored_verdicts(tmp_path: Path) -> None:
    full = _result(tmp_path / "full.db")
    alone = _result(tmp_path / "alone.db", with_member_scores=False)
    group = alone.judges[0]
    assert (group.metric, group.judges, group.ensemble) == ("supported", (), "supported")
    reference = full.judges[0].agreement
    assert group.agreement is not None and reference is not None
    assert group.agreement.alpha == reference.alpha


def test_the_json_form_names_judges_only_for_runs_with_judges(tmp_path: Path) -> None:
    result = _result(tmp_path / "runs.db")
    found = result.to_dict()
    judges = found["judges"][0]["judges"]
    assert list(judges) == ["mini", "big", "noisy"]
    assert judges["big"]["score"] == "supported@big"
    assert judges["big"]["mean"] == pytest.approx(0.5) and judges["big"]["n"] == 8
    assert judges["big"]["ci95"][0] < 0.5 < judges["big"]["ci95"][1]
    assert found["judges"][0]["agreement"]["pairs"][0]["kappa"] == pytest.approx(0.75)


def test_a_run_without_judges_has_no_judge_groups(tmp_path: Path) -> None:
    path = tmp_path / "runs.db"
    with Store(path) as store:
        result = summarize_run(store, synthetic_run(path))
    assert result.judges == []
    assert "judges" not in result.to_dict()


def test_compare_takes_a_metric_name_for_all_its_judges_grouped(tmp_path: Path) -> None:
    path = tmp_path / "runs.db"
    first, second = judges_run(path), judges_run(path)
    with Store(path) as store:
        comparison = compare_runs(store, first, store, second, metrics=["accuracy", "supported"])
    assert [row.metric for row in comparison.rows] == [
        "accuracy@mini",
        "accuracy@big",
        "supported@mini",
        "supported@big",
        "supported@noisy",
        "supported",
    ]
    assert comparison.judges["supported"] == ("supported", "ensemble")
    assert comparison.judges["accuracy@big"] == ("accuracy", "big")
    assert comparison.to_dict()["judges"]["supported@noisy"] == ["supported", "noisy"]


def test_compare_without_judges_names_none(tmp_path: Path) -> None:
    path = tmp_path / "runs.db"
    first, second = synthetic_run(path), synthetic_run(path)
    with Store(path) as store:
        comparison = compare_runs(store, first, store, second)
    assert comparison.judges == {}
    assert "judges" not in comparison.to_dict()

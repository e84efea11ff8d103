"""Exports of a run with several named judges: the long layout's judge column and
MLflow's metric names."""

from __future__ import annotations

from pathlib import Path

import pytest

from judges_runs import SAMPLES, YES_NO, judges_run
from ragjudge.analysis import summarize_run
from ragjudge.export._files import long_frame
from ragjudge.export._mlflow import metric_values
from ragjudge.store._store import Store
from report_runs import synthetic_run


def test_the_long_layout_has_a_row_per_score_with_its_judge(tmp_path: Path) -> None:
    path = tmp_path / "runs.db"
    with Store(path) as store:
        frame = long_frame(store, judges_run(path))
    assert list(frame.columns[:5]) == ["request_id", "trial", "metric", "judge", "score"]
    assert len(frame) == len(SAMPLES) * 2 * 6  # two trials, six scores
    first = frame[(frame["request_id"] == "q7") & (frame["trial"] == 1)]
    columns = zip(first["metric"], first["judge"], first["value"], strict=True)
    by_score = dict(zip(first["score"], columns, strict=True))
    for judge, verdicts in YES_NO.items():
        assert by_score[f"supported@{judge}"] == ("supported", judge, float(verdicts[7]))
    assert by_score["supported"][:2] == ("supported", "ensemble")
    ensemble = first[first["score"] == "supported"]["details"].iloc[0]
    assert '"verdicts"' in ensemble and '"noisy": 1' in ensemble


def test_the_long_layout_of_a_run_without_judges_has_no_judge_column(tmp_path: Path) -> None:
    path = tmp_path / "runs.db"
    with Store(path) as store:
        frame = long_frame(store, synthetic_run(path))
    assert "judge" not in frame.columns and "score" not in frame.columns
    assert {"metric", "value", "error"} <= set(frame.columns)
    assert len(frame)


def test_mlflow_names_a_judges_score_metric_then_judge(tmp_path: Path) -> None:
    path = tmp_path / "runs.db"
    with Store(path) as store:
        result = summarize_run(store, judges_run(path))
    values = metric_values(result)
    assert values["supported/big/percentage"] == pytest.approx(0.5)
    assert values["accuracy/mini/average"] == pytest.approx(24 / 7)
    assert values["supported/percentage"] == pytest.approx(0.625)  # the ensemble
    assert not any("@" in name for name in values)

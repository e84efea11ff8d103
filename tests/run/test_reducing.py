"""Trial reducers chosen in the config: per metric (``reduce``) and for every metric
(``trials_reduce``), checked before the run, stored with the run's meanings and used by
its summary (show's table and the JSON)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from rich.console import Console

from ragjudge.config import ConfigError, load_config
from ragjudge.run._runner import run_evaluation
from ragjudge.terminal._terminal import print_result

# Each row's request says how many of its 4 trials pass: the metric gives 1 in trials
# 0 .. passes-1 and 0 after.
CHECKS = """
from ragjudge.metrics import Metric
from ragjudge.schema import ScoreMeaning


class Flaky(Metric):
    meaning = ScoreMeaning(binary=True)

    async def compute(self, sample, output, ctx):
        return float(ctx.trial < int(sample.request.query))


class Graded(Metric):
    async def compute(self, sample, output, ctx):
        return 0.25 * (ctx.trial < int(sample.request.query))
"""
ROWS = [{"request": str(passes), "response": "x"} for passes in (1, 3, 0)]


def write_config(tmp_path: Path, **settings: Any) -> Path:
    (tmp_path / "flaky_checks.py").write_text(CHECKS, encoding="utf-8")
    lines = "".join(json.dumps(row) + "\n" for row in ROWS)
    (tmp_path / "set.jsonl").write_text(lines, encoding="utf-8")
    config = {"data": "set.jsonl", "store": "runs.db", "trials": 4, **settings}
    path = tmp_path / "eval.yaml"
    path.write_text(yaml.safe_dump(config), encoding="utf-8")
    return path


def summarised(path: Path) -> dict[str, dict[str, Any]]:
    result = asyncio.run(run_evaluation(load_config(path), progress=False))
    return {row["metric"]: row for row in result.to_dict()["metrics"]}


def test_each_metric_reduces_its_trials_as_its_entry_says(tmp_path: Path) -> None:
    path = write_config(
        tmp_path,
        metrics=[
            {"metric": "flaky_checks:Flaky", "name": "averaged"},
            {"metric": "flaky_checks:Flaky", "name": "pass2", "reduce": "pass_at_k", "reduce_k": 2},
            {
                "metric": "flaky_checks:Flaky",
                "name": "least2",
                "reduce": "at_least_k",
                "reduce_k": 2,
            },
            {"metric": "flaky_checks:Flaky", "name": "best", "reduce": "max"},
            {
                "metric": "flaky_checks:Graded",
                "name": "graded",
                "reduce": "pass_at_k",
                "reduce_k": 2,
                "pass_threshold": 0.25,
            },
        ],
    )
    summary = summarised(path)
    # trials passing per sample: 1, 3, 0 of 4
    assert summary["averaged"]["mean"] == pytest.approx((1 / 4 + 3 / 4 + 0) / 3)
    assert summary["averaged"]["trials_reduce"] == "mean"
    # pass@2: 1 - C(3,2)/C(4,2) = 1/2; 1 - C(1,2)/C(4,2) = 1; 0
    assert summary["pass2"]["mean"] == pytest.approx((1 / 2 + 1 + 0) / 3)
    assert summary["pass2"]["trials_reduce"] == "pass@2 (≥ 1)"
    assert summary["pass2"]["meaning"]["trials_reduce"] == {
        "method": "pass_at_k",
        "k": 2,
        "threshold": 1.0,
    }
    assert summary["pass2"]["ci95"] is not None
    assert summary["least2"]["mean"] == pytest.approx(1 / 3)
    assert summary["best"]["mean"] == pytest.approx(2 / 3)
    assert summary["graded"]["mean"] == pytest.approx(summary["pass2"]["mean"])


def test_the_config_wide_reducer_applies_where_an_entry_names_none(tmp_path: Path) -> None:
    path = write_config(
        tmp_path,
        metrics=[
            {"metric": "flaky_checks:Flaky", "name": "wide"},
            {"metric": "flaky_checks:Flaky", "name": "own", "reduce": "mean"},
        ],
        trials_reduce="at_least_k",
        trials_reduce_k=3,
    )
    summary = summarised(path)
    assert summary["wide"]["mean"] == pytest.approx(1 / 3)  # only the sample with 3 passes
    assert summary["wide"]["trials_reduce"] == "at least 3 pass (≥ 1)"
    assert summary["own"]["mean"] == pytest.approx(1 / 3)  # (1/4 + 3/4 + 0) / 3
    assert summary["own"]["trials_reduce"] == "mean"


def test_show_names_the_reducer(tmp_path: Path) -> None:
    path = write_config(
        tmp_path,
        metrics=[{"metric": "flaky_checks:Flaky", "reduce": "pass_at_k", "reduce_k": 2}],
    )
    result = asyncio.run(run_evaluation(load_config(path), progress=False))
    console = Console(record=True, width=120)
    print_result(result, console)
    text = console.export_text()
    assert "per sample" in text
    assert "pass@2 (≥ 1)" in text


@pytest.mark.parametrize(
    ("entry", "settings", "message"),
    [
        ({"reduce": "pass_at_k", "reduce_k": 5}, {}, "'reduce_k' is 5 but the run has 4 trials"),
        ({"reduce": "pass_at_k"}, {}, "needs 'reduce_k'"),
        ({"reduce": "best"}, {}, "'reduce' must be one of mean, mode"),
        ({"reduce": "median", "reduce_k": 2}, {}, "apply to 'reduce: pass_at_k'"),
        ({"reduce": "at_least_k", "reduce_k": 0}, {}, "at least 1"),
    ],
)
def test_a_bad_reducer_stops_the_run_naming_the_metric(
    tmp_path: Path, entry: dict[str, Any], settings: dict[str, Any], message: str
) -> None:
    path = write_config(tmp_path, metrics=[{"metric": "flaky_checks:Flaky", **entry}], **settings)
    with pytest.raises(ConfigError) as raised:
        summarised(path)
    # named as the entry gives it before it is built, by its name after
    assert "eval.yaml: metrics: metric '" in str(raised.value)
    assert "Flaky':" in str(raised.value)
    assert message in str(raised.value)
    assert not (tmp_path / "runs.db").exists()  # refused before anything is stored


def test_a_graded_score_needs_a_pass_threshold(tmp_path: Path) -> None:
    path = write_config(
        tmp_path,
        metrics=[{"metric": "flaky_checks:Graded", "reduce": "pass_at_k", "reduce_k": 2}],
    )
    with pytest.raises(ConfigError, match="needs 'pass_threshold'"):
        summarised(path)


def test_config_wide_counting_reducer_needs_k(tmp_path: Path) -> None:
    path = write_config(tmp_path, metrics=["flaky_checks:Flaky"], trials_reduce="pass_at_k")
    with pytest.raises(ConfigError, match="trials_reduce: pass_at_k needs trials_reduce_k"):
        load_config(path)

"""Paired pass rates of two runs in ``compare``: the rates of A and B over the samples
both judged, the samples passing in one run only, and McNemar's exact test on those."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from scipy.stats import binomtest
from typer.testing import CliRunner

import ragjudge as rj
from ragjudge.analysis._compare import compare_runs
from ragjudge.analysis._paired_passes import PASS_TEST, paired_pass_rates
from ragjudge.cli import app
from ragjudge.store._store import Store

PASSING_A = {"q0", "q1", "q2", "q3", "q4", "q5"}
PASSING_B = {"q0", "q1", "q6"}
METRICS: list[str | dict[str, Any]] = [{"metric": "exact_match", "threshold": 1}, "rouge_l"]


def _run(store: Path, passing: set[str]) -> str:
    rows = [
        {
            "request_id": f"q{i}",
            "request": f"question {i}",
            "response": "right" if f"q{i}" in passing else "wrong",
            "expected_response": "right",
        }
        for i in range(8)
    ]
    return rj.evaluate(rows, metrics=METRICS, store=store, progress=False).run_id


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, str]:
    store = tmp_path_factory.mktemp("paired") / "r.db"
    return store, _run(store, PASSING_A), _run(store, PASSING_B)


def test_two_stored_runs_give_paired_pass_rates_and_mcnemars_test(
    runs: tuple[Path, str, str],
) -> None:
    path, run_a, run_b = runs
    with Store(path) as store:
        comparison = compare_runs(store, run_a, store, run_b)

    [rate] = comparison.pass_rates  # rouge_l has no threshold
    assert (rate.metric, rate.n, rate.passed_a, rate.passed_b) == ("exact_match", 8, 6, 3)
    assert (rate.only_a, rate.only_b) == (4, 1)  # q2..q5 only in A, q6 only in B
    assert rate.rate_a == pytest.approx(6 / 8) and rate.rate_b == pytest.approx(3 / 8)
    assert rate.difference == pytest.approx(-3 / 8)
    assert rate.p_value == pytest.approx(binomtest(1, 5, 0.5).pvalue)
    document = comparison.to_dict()
    assert document["pass_test"] == PASS_TEST
    assert document["pass_rates"][0]["only_a"] == 4


def test_samples_unscored_in_either_run_are_left_out() -> None:
    a = {"f": {"s1": True, "s2": None, "s3": False, "s4": True}}
    b = {"f": {"s1": True, "s2": True, "s3": True}, "g": {"s1": True}}

    [rate] = paired_pass_rates(a, b, ["f", "g"])

    assert (rate.n, rate.passed_a, rate.passed_b, rate.only_a, rate.only_b) == (2, 1, 2, 0, 1)
    assert rate.p_value == pytest.approx(1.0)


def test_no_discordant_sample_gives_p_one_and_no_paired_sample_no_p() -> None:
    [same] = paired_pass_rates({"f": {"s": True}}, {"f": {"s": True}}, ["f"])
    [none] = paired_pass_rates({"f": {"s": None}}, {"f": {"s": True}}, ["f"])

    assert same.p_value == 1.0 and same.difference == 0.0
    assert none.n == 0 and none.p_value is None and none.rate_a is None


def test_the_command_prints_the_pass_rates_as_json_and_as_a_table(
    runs: tuple[Path, str, str],
) -> None:
    path, run_a, run_b = runs
    runner = CliRunner()

    as_json = runner.invoke(app, ["compare", run_a, run_b, "--store", str(path), "--json"])
    table = runner.invoke(app, ["compare", run_a, run_b, "--store", str(path)])

    assert as_json.exit_code == 0, as_json.output
    [found] = json.loads(as_json.stdout)["pass_rates"]
    assert (found["pass_rate_a"], found["pass_rate_b"]) == (0.75, 0.375)
    assert table.exit_code == 0, table.output
    assert "McNemar's exact test" in table.output
    [line] = [row for row in table.output.splitlines() if "75.0%" in row]
    cells = [cell.strip() for cell in line.split("│")[1:9]]
    assert cells == ["exact_match", "75.0%", "37.5%", "-37.5%", "0.375", "8", "4", "1"]

"""Quality gates on a pass rate: ``--fail-under token_f1.passed=0.9`` checks the share
of samples passing ``token_f1``'s per-sample threshold, on the rate or (``--gate ci``)
on its interval, from the command line, the config and ``assert_gates``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from ragjudge.analysis._gates import EXIT_GATE, Gate, check_gates
from ragjudge.analysis._passes import PassRate
from ragjudge.cli import app
from ragjudge.pytest import assert_gates
from ragjudge.stats import Interval
from thresholded_run import ROWS, thresholded_run

runner = CliRunner()


def rate(metric: str, passed: int, failed: int, ci: Interval | None) -> PassRate:
    return PassRate(metric, 0.6, "higher", passed, failed, 1, ci)


def test_a_pass_rate_gate_reads_the_rate_or_its_interval() -> None:
    rates = [rate("faithfulness", 9, 1, Interval(0.7, 1.0))]
    gate = Gate("faithfulness.passed", 0.8)

    [on_rate] = check_gates([], [gate], pass_rates=rates)
    [on_ci] = check_gates([], [gate], on="ci", pass_rates=rates)

    assert (on_rate.passed, on_rate.measured, on_rate.value) == (True, "pass_rate", 0.9)
    assert (on_ci.passed, on_ci.measured, on_ci.value) == (False, "pass_ci_low", 0.7)
    assert on_ci.reason == (
        "gate failed (--fail-under faithfulness.passed=0.8): share of samples with "
        "faithfulness ≥ 0.6: pass_ci_low 0.700 < 0.8 (9 of 10 passed, pass rate 0.900, "
        "95% CI [0.700, 1.000], 1 not scored)"
    )


def test_a_pass_rate_gate_on_a_score_without_a_pass_fails_naming_those_with_one() -> None:
    [result] = check_gates([], [Gate("rouge_l.passed", 0.5)], pass_rates=[rate("f1", 1, 0, None)])

    assert not result.passed and result.value is None
    assert "rouge_l has no per-sample pass (give it a 'threshold'); scores with one: f1" in (
        result.reason
    )


def _run(tmp_path: Path, *flags: str) -> Result:
    (tmp_path / "set.jsonl").write_text("\n".join(json.dumps(row) for row in ROWS))
    config = tmp_path / "eval.yaml"
    config.write_text(
        "data: set.jsonl\ntarget: data\nmetrics: [{metric: token_f1, threshold: 0.6}, rouge_l]\n"
    )
    store = str(tmp_path / "r.db")
    return runner.invoke(app, ["run", str(config), *flags, "--no-progress", "--store", store])


def test_the_command_fails_a_pass_rate_gate_naming_it(tmp_path: Path) -> None:
    result = _run(tmp_path, "--fail-under", "token_f1.passed=0.9")

    assert result.exit_code == EXIT_GATE == 5
    (line,) = [line for line in result.output.splitlines() if line.startswith("gate")]
    assert line.startswith(
        "gate failed (--fail-under token_f1.passed=0.9): share of samples with token_f1 ≥ 0.6: "
        "pass_rate 0.667 < 0.9 (2 of 3 passed"
    )


def test_the_command_passes_a_pass_rate_gate_that_holds(tmp_path: Path) -> None:
    result = _run(tmp_path, "--fail-under", "token_f1.passed=0.6", "--json")

    assert result.exit_code == 0, result.output
    [gate] = json.loads(result.stdout)["gates"]
    assert gate["metric"] == "token_f1.passed" and gate["measured"] == "pass_rate"
    assert gate["value"] == pytest.approx(2 / 3) and gate["passed"] is True


def test_a_pass_rate_gate_on_a_score_the_run_does_not_give_stops_before_the_run(
    tmp_path: Path,
) -> None:
    result = _run(tmp_path, "--fail-under", "bleu.passed=0.5")

    assert result.exit_code == 2
    assert "the gate(s) name bleu.passed, which the run does not score" in result.output
    assert not (tmp_path / "r.db").exists()


def test_a_pass_rate_gate_on_a_score_without_a_threshold_stops_before_the_run(
    tmp_path: Path,
) -> None:
    result = _run(tmp_path, "--fail-under", "rouge_l.passed=0.5")

    assert result.exit_code == 2
    assert "the gate(s) rouge_l.passed need a per-sample pass" in result.output
    assert "(scores with one: token_f1)" in result.output
    assert not (tmp_path / "r.db").exists()


def test_assert_gates_checks_a_pass_rate(tmp_path: Path) -> None:
    result = thresholded_run(tmp_path / "r.db")

    assert_gates(result, {"token_f1.passed": 0.6, "rouge_l": 0.1})
    with pytest.raises(AssertionError, match=r"token_f1 ≥ 0.6: pass_rate 0.667 < 0.9"):
        assert_gates(result, {"token_f1.passed": 0.9})


def test_a_configured_pass_rate_gate_fails_the_python_run(tmp_path: Path) -> None:
    import ragjudge as rj

    result = rj.evaluate(
        ROWS,
        metrics=[{"metric": "token_f1", "threshold": 0.6}],
        store=tmp_path / "r.db",
        progress=False,
        fail_under={"token_f1.passed": 0.9},
        on_failure="ignore",
    )

    [gate] = result.gates
    assert not gate.passed and gate.value == pytest.approx(2 / 3)

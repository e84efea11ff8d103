"""Quality gates on a run's means or CI bounds (``--fail-under``, ``--fail-over``,
``--gate ci``) and the exit code they give."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from ragjudge.cli import app
from ragjudge.stats import Interval, MetricSummary

QUICKSTART = Path(__file__).resolve().parents[2] / "examples" / "quickstart" / "eval.yaml"
runner = CliRunner()


def run_quickstart(tmp_path: Path, *flags: str) -> Result:
    """``ragjudge run`` of the quickstart with ``flags``, storing in ``tmp_path``."""
    store = str(tmp_path / "r.db")
    return runner.invoke(app, ["run", str(QUICKSTART), *flags, "--no-progress", "--store", store])


def summary(metric: str, mean: float | None, low: float, high: float, n: int = 10) -> MetricSummary:
    return MetricSummary(
        metric=metric,
        mean=mean,
        ci=None if mean is None else Interval(low, high),
        n=n,
        errors=0 if mean is not None else 3,
        excluded=0,
        mean_all=mean,
        trials=1,
        trial_sd=None,
        trial_agreement=None,
    )


def test_parse_gate() -> None:
    from ragjudge.analysis._gates import Gate, parse_gate

    assert parse_gate("rouge_l=0.4") == Gate("rouge_l", 0.4, True)
    assert parse_gate("response/llm_judged/safety/rating=0.9", floor=False) == Gate(
        "response/llm_judged/safety/rating", 0.9, False
    )
    for bad in ("rouge_l", "=0.4", "rouge_l=high", "rouge_l=nan"):
        with pytest.raises(ValueError, match="fail-under"):
            parse_gate(bad)


def test_gates_on_the_mean_and_on_the_interval() -> None:
    from ragjudge.analysis._gates import Gate, check_gates

    summaries = [summary("rouge_l", 0.42, 0.35, 0.50), summary("lscore", 2.5, 2.0, 3.2)]
    floor, ceiling = Gate("rouge_l", 0.4), Gate("lscore", 3.0, floor=False)

    on_mean = check_gates(summaries, [floor, ceiling])
    on_ci = check_gates(summaries, [floor, ceiling], on="ci")

    assert [r.passed for r in on_mean] == [True, True]
    assert [(r.passed, r.measured, r.value) for r in on_ci] == [
        (False, "ci_low", 0.35),
        (False, "ci_high", 3.2),
    ]
    assert on_ci[0].reason == (
        "gate failed (--fail-under rouge_l=0.4): rouge_l ci_low 0.350 < 0.4 "
        "(mean 0.420, 95% CI [0.350, 0.500], n=10)"
    )


def test_a_gate_on_a_metric_without_value_or_unknown_fails() -> None:
    from ragjudge.analysis._gates import Gate, check_gates

    results = check_gates(
        [summary("rouge_l", None, 0, 0, n=0)], [Gate("rouge_l", 0.1), Gate("bleu", 0.1)]
    )

    assert [r.passed for r in results] == [False, False]
    assert "rouge_l has no value (3 errors, n=0)" in results[0].reason
    assert "the run has no such score (its scores: rouge_l)" in results[1].reason


def test_quickstart_fails_a_high_gate_naming_it(tmp_path: Path) -> None:
    from ragjudge.analysis._gates import EXIT_GATE

    result = run_quickstart(tmp_path, "--fail-under", "rouge_l=0.9")

    assert result.exit_code == EXIT_GATE == 5
    (line,) = [line for line in result.output.splitlines() if line.startswith("gate")]
    assert line.startswith("gate failed (--fail-under rouge_l=0.9): rouge_l mean 0.")


def test_quickstart_passes_a_low_gate(tmp_path: Path) -> None:
    result = run_quickstart(
        tmp_path, "--fail-under", "rouge_l=0.1", "--fail-under", "token_f1=0.1", "--gate", "ci"
    )

    assert result.exit_code == 0, result.output
    assert "gate passed (--fail-under rouge_l=0.1): rouge_l ci_low" in result.output
    assert "gate passed (--fail-under token_f1=0.1)" in result.output


def test_gates_in_the_json_summary(tmp_path: Path) -> None:
    result = run_quickstart(tmp_path, "--fail-under", "rouge_l=0.9", "--json")

    assert result.exit_code == 5
    document = json.loads(result.stdout)
    assert document["exit_code"] == 5
    (gate,) = document["gates"]
    assert (gate["metric"], gate["passed"], gate["measured"]) == ("rouge_l", False, "mean")


def test_a_gate_naming_no_metric_of_the_run_stops_before_the_run(tmp_path: Path) -> None:
    store = tmp_path / "r.db"
    result = runner.invoke(
        app, ["run", str(QUICKSTART), "--fail-under", "rogue_l=0.9", "--store", str(store)]
    )

    assert result.exit_code == 2
    assert "rogue_l, which the run does not score" in result.output
    assert not store.exists()


def test_malformed_gates_are_refused(tmp_path: Path) -> None:
    bad = runner.invoke(app, ["run", str(QUICKSTART), "--fail-under", "rouge_l"])
    lonely = runner.invoke(app, ["run", str(QUICKSTART), "--gate", "ci"])

    assert bad.exit_code == 2 and "METRIC=VALUE" in bad.output
    assert lonely.exit_code == 2 and "--gate ci" in lonely.output


def test_command_line_gates_add_to_the_configs_and_replace_its_gate_on_a_score() -> None:
    from ragjudge.analysis._gates import Gate, configured_gates
    from ragjudge.config import EvalConfig

    config = EvalConfig(
        metrics=["rouge_l"], fail_under={"rouge_l": 0.5, "token_f1": 0.2}, fail_over={"x": 3}
    )
    gates = configured_gates(config, [Gate("rouge_l", 0.1), Gate("bleu", 0.3)])

    assert gates == [
        Gate("rouge_l", 0.1),
        Gate("token_f1", 0.2),
        Gate("x", 3.0, floor=False),
        Gate("bleu", 0.3),
    ]


def write_gated_config(tmp_path: Path, gates: str) -> Path:
    """The quickstart's config in ``tmp_path`` with ``gates`` (YAML lines) added."""
    folder = QUICKSTART.parent
    config = tmp_path / "eval.yaml"
    config.write_text(
        f"data: {folder / 'evalset.jsonl'}\n"
        f"target: {folder / 'rag_app.py'}:answer\n"
        "metrics: [rouge_l, token_f1]\n" + gates,
        encoding="utf-8",
    )
    return config


def test_gates_written_in_the_config_fail_the_run(tmp_path: Path) -> None:
    config = write_gated_config(tmp_path, "fail_under: {rouge_l: 0.9}\n")
    result = runner.invoke(app, ["run", str(config), "--no-progress"])

    assert result.exit_code == 5, result.output
    assert "gate failed (--fail-under rouge_l=0.9): rouge_l mean 0." in result.output


def test_a_command_line_gate_replaces_the_configs_on_the_same_score(tmp_path: Path) -> None:
    config = write_gated_config(tmp_path, "fail_under: {rouge_l: 0.9}\ngate: ci\n")
    result = runner.invoke(
        app, ["run", str(config), "--no-progress", "--fail-under", "rouge_l=0.1"]
    )

    assert result.exit_code == 0, result.output
    assert "gate passed (--fail-under rouge_l=0.1): rouge_l ci_low" in result.output


@pytest.mark.parametrize(
    ("gates", "message"),
    [
        ("fail_under: {rouge_l: .nan}\n", "fail_under"),
        ("fail_under: {rouge_l: high}\n", "fail_under"),
        ("fail_under: {rouge_l: 0.1}\ngate: median\n", "gate"),
        ("gate: ci\n", "--gate ci"),
    ],
)
def test_bad_gates_in_the_config_are_named(tmp_path: Path, gates: str, message: str) -> None:
    config = write_gated_config(tmp_path, gates)
    result = runner.invoke(app, ["run", str(config), "--no-progress"])

    assert result.exit_code == 2
    assert message in result.output and "Traceback" not in result.output

"""``--calibrated`` of ``ragjudge show`` and ``ragjudge compare``, and ``ragjudge gate``
on a stored run: the figures equal the estimate from the same arrays, a run without
labels gets a note naming how to label, and a gate on a calibrated lower bound fails
where the judge's own gate holds."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from labelled_run import add_labels, evaluated_run, expected_estimate, labelled_run
from ragjudge.cli import app
from ragjudge.pytest import assert_gates

runner = CliRunner()


def _ragjudge(store: Path, *args: str) -> Result:
    return runner.invoke(app, [*args, "--store", str(store)])


def test_show_calibrated_json_holds_the_estimate_and_says_which_scores_have_none(
    tmp_path: Path,
) -> None:
    store = tmp_path / "runs.db"
    run_id = labelled_run(store).run_id

    done = _ragjudge(store, "show", run_id, "--calibrated", "--json")

    assert done.exit_code == 0, done.output
    shown = json.loads(done.stdout)["calibrated"]
    expected = expected_estimate().ppi
    assert expected.ci is not None
    assert shown["token_f1"] is None
    found = shown["exact_match"]
    assert found["value"] == pytest.approx(expected.value)
    assert (found["ci_low"], found["ci_high"]) == pytest.approx((expected.ci.low, expected.ci.high))
    assert (found["labels_used"], found["targeted_left_out"], found["method"]) == (20, 2, "PPI")


def test_show_calibrated_prints_the_table(tmp_path: Path) -> None:
    store = tmp_path / "runs.db"
    run_id = labelled_run(store).run_id

    done = _ragjudge(store, "show", run_id, "--calibrated")

    assert done.exit_code == 0, done.output
    assert "Calibrated to people's labels" in done.output
    expected = expected_estimate().ppi
    assert expected.ci is not None
    row = next(line for line in done.output.splitlines() if "exact_match" in line and "PPI" in line)
    assert f"{expected.value:.3f} [{expected.ci.low:.3f}, {expected.ci.high:.3f}]" in row
    assert "no labels" in next(line for line in done.output.splitlines() if "│ token_f1" in line)


def test_show_calibrated_without_labels_is_a_note_not_an_error(tmp_path: Path) -> None:
    store = tmp_path / "runs.db"
    run_id = evaluated_run(store).run_id

    done = _ragjudge(store, "show", run_id, "--calibrated")

    assert done.exit_code == 0, done.output
    said = " ".join(done.output.split())
    assert f"No labels from people are stored for run {run_id}" in said
    assert f"ragjudge view {run_id} --label" in said and "ragjudge labels import" in said


def test_compare_calibrated_gives_the_difference_with_the_variances_added(tmp_path: Path) -> None:
    store = tmp_path / "runs.db"
    first = labelled_run(store).run_id
    second = evaluated_run(store).run_id
    unlabelled = _ragjudge(store, "compare", first, second, "--calibrated", "--json")
    add_labels(store, second)

    done = _ragjudge(store, "compare", first, second, "--calibrated", "--json")

    assert done.exit_code == 0, done.output
    [row] = json.loads(done.stdout)["calibrated"]
    expected = expected_estimate().ppi
    assert expected.std_error is not None
    half = 1.959964 * math.sqrt(2) * expected.std_error
    assert row["score"] == "exact_match" and row["difference"] == pytest.approx(0.0)
    assert (row["ci_low"], row["ci_high"]) == pytest.approx((-half, half), rel=1e-5)
    [one_sided] = json.loads(unlabelled.stdout)["calibrated"]
    assert one_sided["note"] == "only run A has labels of it" and one_sided["difference"] is None


def test_gate_fails_on_the_calibrated_lower_bound_where_the_judge_passes(tmp_path: Path) -> None:
    store = tmp_path / "runs.db"
    run_id = labelled_run(store).run_id
    gates = ["--fail-under", "exact_match=0.5", "--fail-under", "exact_match.calibrated=0.5"]

    done = _ragjudge(store, "gate", run_id, *gates, "--gate", "ci", "--json")

    assert done.exit_code == 5, done.output
    on_judge, on_calibrated = json.loads(done.stdout)["gates"]
    assert on_judge["passed"] is True and on_judge["measured"] == "ci_low"
    assert on_calibrated["passed"] is False and on_calibrated["measured"] == "calibrated_ci_low"
    assert on_calibrated["value"] == pytest.approx(expected_estimate().ppi.ci.low)  # type: ignore[union-attr]


def test_gate_on_a_score_nobody_labelled_fails_and_an_unknown_score_is_refused(
    tmp_path: Path,
) -> None:
    store = tmp_path / "runs.db"
    run_id = labelled_run(store).run_id

    unlabelled = _ragjudge(store, "gate", run_id, "--fail-under", "token_f1.calibrated=0.1")
    unknown = _ragjudge(store, "gate", run_id, "--fail-under", "bleu.calibrated=0.1")
    holds = _ragjudge(store, "gate", run_id, "--fail-under", "exact_match.calibrated=0.1")

    assert unlabelled.exit_code == 5
    assert "token_f1 has no labels drawn at random" in unlabelled.output
    assert unknown.exit_code == 2 and "bleu.calibrated, which the run does not score" in (
        unknown.output
    )
    assert holds.exit_code == 0, holds.output


def test_assert_gates_checks_a_calibrated_estimate(tmp_path: Path) -> None:
    result = labelled_run(tmp_path / "runs.db")

    assert_gates(result, {"exact_match.calibrated": 0.2, "exact_match": 0.7})
    with pytest.raises(AssertionError, match=r"exact_match calibrated to 20 labels"):
        assert_gates(result, {"exact_match.calibrated": 0.5})

"""A run's estimates calibrated to people's labels read from the store: through
``EvaluationResult.calibrated()``, in gates on ``NAME.calibrated``, and the difference
of two runs' estimates."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from labelled_run import add_labels, evaluated_run, expected_estimate, labelled_run
from ragjudge.analysis._calibrated_difference import calibrated_difference
from ragjudge.analysis._gates import Gate, check_gates


def test_calibrated_equals_the_estimate_from_the_same_arrays(tmp_path: Path) -> None:
    result = labelled_run(tmp_path / "runs.db")

    found = result.calibrated()

    assert list(found) == ["exact_match"]
    estimate = found["exact_match"]
    expected = expected_estimate()
    assert (estimate.used, estimate.targeted, estimate.target) == (20, 2, "mean")
    assert estimate.best.value == pytest.approx(expected.ppi.value)
    assert estimate.best.ci is not None and expected.ppi.ci is not None
    assert (estimate.best.ci.low, estimate.best.ci.high) == pytest.approx(
        (expected.ppi.ci.low, expected.ppi.ci.high)
    )
    assert estimate.estimate.judge.value == pytest.approx(0.75)
    shown = estimate.to_dict()
    assert shown["method"] == "PPI" and shown["labels_used"] == 20
    assert shown["ci_low"] == pytest.approx(expected.ppi.ci.low)  # type: ignore[union-attr]
    assert shown["worth_labels"] == pytest.approx(estimate.worth)


def test_a_run_without_labels_has_no_calibrated_estimates(tmp_path: Path) -> None:
    assert evaluated_run(tmp_path / "runs.db").calibrated() == {}


def test_a_gate_passes_on_the_judge_but_fails_on_the_calibrated_lower_bound(
    tmp_path: Path,
) -> None:
    result = labelled_run(tmp_path / "runs.db")
    gates = [Gate("exact_match", 0.5), Gate("exact_match.calibrated", 0.5)]

    on_judge, on_calibrated = check_gates(
        result.summaries, gates, on="ci", calibrated=result.calibrated()
    )

    assert on_judge.passed and on_judge.measured == "ci_low"
    low = expected_estimate().ppi.ci.low  # type: ignore[union-attr]
    assert not on_calibrated.passed and on_calibrated.measured == "calibrated_ci_low"
    assert on_calibrated.value == pytest.approx(low)
    assert on_calibrated.reason.startswith(
        "gate failed (--fail-under exact_match.calibrated=0.5): exact_match calibrated "
        f"to 20 labels: calibrated_ci_low {low:.3f} < 0.5"
    )
    assert "2 targeted labels left out" in on_calibrated.reason


def test_a_calibrated_gate_on_a_score_without_labels_fails_saying_how_to_label(
    tmp_path: Path,
) -> None:
    result = labelled_run(tmp_path / "runs.db")

    [gate] = check_gates(
        result.summaries, [Gate("token_f1.calibrated", 0.1)], calibrated=result.calibrated()
    )

    assert not gate.passed and gate.value is None
    assert "token_f1 has no labels drawn at random" in gate.reason
    assert "scores with labels: exact_match" in gate.reason
    assert "ragjudge view RUN --label" in gate.reason


def test_the_difference_of_two_runs_adds_their_variances(tmp_path: Path) -> None:
    first = labelled_run(tmp_path / "a.db").calibrated()["exact_match"]
    second_result = evaluated_run(tmp_path / "b.db")
    add_labels(tmp_path / "b.db", second_result.run_id)
    second = second_result.calibrated()["exact_match"]

    row = calibrated_difference("exact_match", first, second)

    assert row.difference == pytest.approx(0.0) and row.note == ""
    se = math.hypot(first.best.std_error or 0, second.best.std_error or 0)
    assert row.ci is not None and row.ci.high == pytest.approx(1.959964 * se, rel=1e-5)
    assert calibrated_difference("exact_match", first, None).note == ("only run A has labels of it")
    assert np.isclose(row.to_dict()["ci_low"], -row.ci.high)

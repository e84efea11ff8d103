"""Fleiss' kappa among annotators (through statsmodels)."""

from __future__ import annotations

import sys

import pytest

from ragjudge.stats import fleiss_kappa

# The worked example of Fleiss (1971) as Wikipedia gives it: 10 subjects, 14 raters,
# 5 categories; P̄ = 0.378, P̄e = 0.213, κ = (0.378 − 0.213)/(1 − 0.213) = 0.210.
COUNTS = [
    [0, 0, 0, 0, 14],
    [0, 2, 6, 4, 2],
    [0, 0, 3, 5, 6],
    [0, 3, 9, 2, 0],
    [2, 2, 8, 1, 1],
    [7, 7, 0, 0, 0],
    [3, 2, 6, 3, 0],
    [2, 5, 3, 2, 2],
    [6, 5, 2, 1, 0],
    [0, 2, 2, 3, 7],
]


def annotations_of(counts: list[list[int]]) -> list[list[float]]:
    return [[float(c) for c, k in enumerate(row) for _ in range(k)] for row in counts]


def test_the_worked_example() -> None:
    found = fleiss_kappa(annotations_of(COUNTS), n_resamples=300)
    assert found is not None
    assert found.kappa.value == pytest.approx(0.2099, abs=5e-4)
    assert (found.samples, found.raters, found.left_out) == (10, 14, 0)
    assert found.kappa.ci is not None and found.kappa.ci.low < 0.21 < found.kappa.ci.high


def test_samples_with_another_number_of_annotators_are_left_out() -> None:
    rows = [[1.0, 1.0, 1.0], [2.0, 2.0, 2.0], [1.0, 2.0, 2.0], [1.0, 2.0], [3.0]]
    found = fleiss_kappa(rows, n_resamples=200)
    assert found is not None and (found.samples, found.raters, found.left_out) == (3, 3, 2)
    assert fleiss_kappa([[1.0], [2.0]]) is None


def test_without_statsmodels_the_message_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "statsmodels.stats.inter_rater", None)
    with pytest.raises(ImportError, match=r"ragjudge\[agreement\]"):
        fleiss_kappa([[1.0, 1.0], [2.0, 1.0]])

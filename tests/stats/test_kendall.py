"""Kendall's tau-b of weighted resamples in n log n: equal to the pair-sign form it
replaced (every pair's signs, n² per resample) and to scipy on unit weights."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import pytest
from scipy import stats as scipy_stats

from ragjudge.stats._kendall import kendall_plan, weighted_kendall

FloatArray = npt.NDArray[np.float64]


def pair_sign_kendall(w: FloatArray, x: FloatArray, y: FloatArray) -> FloatArray:
    """Tau-b per row of weights from the full matrix of pair signs (``wᵀSw``)."""
    signs = np.sign(x[:, None] - x[None, :]) * np.sign(y[:, None] - y[None, :])
    score = ((w @ signs) * w).sum(axis=1)
    total = w.sum(axis=1) ** 2
    untied = []
    for values in (x, y):
        _, group = np.unique(values, return_inverse=True)
        per_value = np.stack([np.bincount(group, weights=row) for row in w])
        untied.append(total - (per_value**2).sum(axis=1))
    with np.errstate(invalid="ignore", divide="ignore"):
        result: FloatArray = score / np.sqrt(untied[0] * untied[1])
    return result


def resample_weights(n: int, rows: int, seed: int) -> FloatArray:
    draws = np.random.default_rng(seed).integers(0, n, size=(rows, n))
    return np.stack([np.bincount(row, minlength=n) for row in draws]).astype(np.float64)


@pytest.mark.parametrize(
    ("n", "x_levels", "y_levels"),
    [(5, 2, 2), (6, 3, 2), (17, 4, 5), (64, 1000, 3), (101, 7, 1000), (250, 10, 10)],
)
def test_equals_the_pair_sign_form_on_random_data_with_ties(
    n: int, x_levels: int, y_levels: int
) -> None:
    rng = np.random.default_rng(n)
    x = rng.integers(0, x_levels, size=n).astype(np.float64)
    y = rng.integers(0, y_levels, size=n).astype(np.float64)
    w = resample_weights(n, rows=40, seed=n + 1)
    fast = weighted_kendall(kendall_plan(x, y), w)
    slow = pair_sign_kendall(w, x, y)
    assert np.array_equal(np.isnan(fast), np.isnan(slow))
    finite = np.isfinite(slow)
    assert finite.any()
    np.testing.assert_allclose(fast[finite], slow[finite], rtol=0, atol=1e-12)


def test_unit_weights_give_scipys_tau_b() -> None:
    rng = np.random.default_rng(3)
    for n in (5, 40, 333):
        x = np.round(rng.normal(size=n), 1)
        y = rng.integers(1, 6, size=n).astype(np.float64)
        [tau] = weighted_kendall(kendall_plan(x, y), np.ones((1, n)))
        assert tau == pytest.approx(scipy_stats.kendalltau(x, y).statistic, abs=1e-12)


def test_weights_equal_the_expanded_sample() -> None:
    x = np.array([3.0, 1.0, 2.0, 2.0, 5.0])
    y = np.array([1.0, 2.0, 2.0, 3.0, 1.0])
    weights = np.array([[2.0, 0.0, 3.0, 1.0, 1.0]])
    expanded = np.repeat(np.arange(5), weights[0].astype(int))
    [tau] = weighted_kendall(kendall_plan(x, y), weights)
    assert tau == pytest.approx(scipy_stats.kendalltau(x[expanded], y[expanded]).statistic)


def test_perfect_orders_give_one_and_minus_one() -> None:
    x = np.arange(10.0)
    w = resample_weights(10, rows=5, seed=0)
    rising = weighted_kendall(kendall_plan(x, x * 2), w)
    falling = weighted_kendall(kendall_plan(x, -x), w)
    np.testing.assert_allclose(rising, 1.0)
    np.testing.assert_allclose(falling, -1.0)


def test_a_row_with_one_side_constant_is_nan() -> None:
    x = np.array([1.0, 2.0, 3.0])
    y = np.array([1.0, 3.0, 2.0])
    found = weighted_kendall(kendall_plan(x, y), np.array([[3.0, 0.0, 0.0], [1.0, 1.0, 1.0]]))
    assert np.isnan(found[0])
    assert found[1] == pytest.approx(1 / 3)

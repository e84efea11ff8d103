"""Prediction-powered inference: the estimator on a worked case, and its coverage in a
seeded simulation where the truth is known and the judge is biased."""

from __future__ import annotations

import math

import numpy as np
import pytest

from ragjudge.stats import ppi_estimate, ppi_mean


def test_classic_ppi_by_hand() -> None:
    judge = [4.0, 3.0, 5.0, 2.0, 4.0, 3.0]
    human = [3.0, 3.0, 4.0, math.nan, math.nan, math.nan]
    found = ppi_mean(judge, human)
    # mean of the judge on all six (3.5) plus the mean of (human − judge) on the
    # labelled three ((−1 + 0 − 1)/3)
    assert found.value == pytest.approx(3.5 - 2 / 3)
    # Var(Y − r·f)/n + (N − n)·Var(f)/N², r = 3/6
    rectified = np.array([3 - 2.0, 3 - 1.5, 4 - 2.5])
    variance = rectified.var(ddof=1) / 3 + 3 * np.var(judge, ddof=1) / 36
    assert found.std_error == pytest.approx(math.sqrt(variance))
    assert found.ci is not None
    assert found.ci.high - found.ci.low == pytest.approx(2 * 1.959964 * math.sqrt(variance))


def test_lambda_zero_is_the_human_only_mean_and_one_label_is_too_few() -> None:
    judge = [1.0, 2.0, 3.0, 4.0]
    human = [2.0, 2.0, math.nan, math.nan]
    assert ppi_mean(judge, human, lam=0.0).value == pytest.approx(2.0)
    assert ppi_mean(judge, [2.0, math.nan, math.nan, math.nan]).value is None
    with pytest.raises(ValueError, match="every sample"):
        ppi_mean([1.0, math.nan], [1.0, 2.0])


def test_tuned_lambda_is_the_slope_clipped_to_one() -> None:
    rng = np.random.default_rng(0)
    y = rng.normal(size=400)
    judge = 0.5 * y + 0.1 * rng.normal(size=400) + 3  # slope of y on the judge ≈ 2 → 1
    human = np.where(np.arange(400) < 100, y, np.nan)
    found = ppi_estimate(judge, human)
    assert found.tuned_lam == 1.0
    noise = rng.normal(size=400)  # a useless judge: λ near 0
    assert ppi_estimate(noise, human).tuned_lam == pytest.approx(0.0, abs=0.2)


def _coverage(
    *, binary: bool, repetitions: int = 400, total: int = 1000, labelled: int = 100
) -> dict[str, tuple[float, float]]:
    """Share of repetitions whose 95% interval covers the truth, and the mean width,
    for the naive judge mean, the human-only mean, PPI and PPI++."""
    rng = np.random.default_rng(2024)
    covered = {"judge": 0, "human": 0, "ppi": 0, "tuned": 0}
    widths = dict.fromkeys(covered, 0.0)
    truth = 0.6 if binary else 3.0
    for _ in range(repetitions):
        if binary:
            y = (rng.random(total) < truth).astype(float)
            # a lenient judge: accepts every good answer and 40% of the bad ones
            f = np.where(y == 1, 1.0, (rng.random(total) < 0.4).astype(float))
        else:
            y = rng.normal(truth, 1.0, total)
            f = y + 0.5 + rng.normal(0, 0.6, total)  # the judge scores 0.5 too high
        human = np.full(total, np.nan)
        chosen = rng.choice(total, size=labelled, replace=False)
        human[chosen] = y[chosen]
        found = ppi_estimate(f, human)
        for name in covered:
            estimate = getattr(found, name)
            assert estimate.ci is not None
            covered[name] += estimate.ci.low <= truth <= estimate.ci.high
            widths[name] += estimate.ci.high - estimate.ci.low
    return {k: (covered[k] / repetitions, widths[k] / repetitions) for k in covered}


@pytest.mark.parametrize("binary", [False, True], ids=["mean", "acceptance-rate"])
def test_ppi_covers_the_truth_where_the_biased_judge_does_not(binary: bool) -> None:
    found = _coverage(binary=binary)
    assert 0.92 <= found["ppi"][0] <= 0.98
    assert 0.92 <= found["tuned"][0] <= 0.98
    assert 0.92 <= found["human"][0] <= 0.98
    assert found["judge"][0] < 0.05
    # the judge's values on all samples narrow the interval of the 100 human labels
    assert found["ppi"][1] < found["human"][1]
    assert found["tuned"][1] <= found["ppi"][1] + 1e-9


def test_few_labels_that_all_agree_still_get_an_interval_when_the_range_is_known() -> None:
    judge = np.ones(200)
    human = np.where(np.arange(200) < 25, 1.0, np.nan)
    plain = ppi_estimate(judge, human).ppi
    corrected = ppi_estimate(judge, human, label_range=(0.0, 1.0)).ppi
    assert plain.width == pytest.approx(0.0)
    assert corrected.width is not None and corrected.width > 0.05
    assert corrected.value == plain.value == pytest.approx(1.0)


def test_the_few_labels_correction_keeps_coverage_at_25_labels() -> None:
    """A judge that agrees with people on about 87% of answers, 25 random labels of
    400 answers: the plain interval covers the truth too rarely, the corrected one
    about as often as it says."""
    rng = np.random.default_rng(7)
    truth, repetitions = 0.8, 1000
    covered = {"plain": 0, "corrected": 0}
    for _ in range(repetitions):
        y = (rng.random(400) < truth).astype(float)
        flip = rng.random(400) < 0.13
        f = np.where(flip, 1.0 - y, y)
        human = np.full(400, np.nan)
        chosen = rng.choice(400, size=25, replace=False)
        human[chosen] = y[chosen]
        for name, ranges in (("plain", None), ("corrected", (0.0, 1.0))):
            ci = ppi_mean(f, human, label_range=ranges).ci
            assert ci is not None
            covered[name] += ci.low <= truth <= ci.high
    assert covered["plain"] < covered["corrected"] - 10
    assert 0.93 <= covered["corrected"] / repetitions <= 0.98

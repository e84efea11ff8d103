"""Trial reducers: pass@k against the closed form and the true chance on simulated
trials, and hand cases for mean, mode, median, max and at-least-k."""

import math

import numpy as np
import pytest

from ragjudge.stats._reducers import TrialReducer, pass_at_k


@pytest.mark.parametrize(
    ("n", "c", "k"),
    [(n, c, k) for n in (1, 5, 10, 20) for c in range(0, n + 1, 3) for k in (1, 2, 5) if k <= n],
)
def test_pass_at_k_equals_the_closed_form_of_binomial_coefficients(n: int, c: int, k: int) -> None:
    expected = 1 - math.comb(n - c, k) / math.comb(n, k)
    assert pass_at_k(n, c, k) == pytest.approx(expected, abs=1e-12)


def test_pass_at_k_is_unbiased_on_simulated_trials() -> None:
    # Each simulated sample passes a trial with chance p; pass@k's expectation over the
    # draws of n trials is the chance that k fresh trials hold a pass, 1 - (1 - p)^k.
    rng = np.random.default_rng(7)
    n, k, draws = 10, 3, 20_000
    for p in (0.1, 0.35, 0.8):
        passes = rng.binomial(n, p, size=draws)
        estimates = np.array([pass_at_k(n, int(c), k) for c in passes])
        standard_error = estimates.std(ddof=1) / math.sqrt(draws)
        assert abs(estimates.mean() - (1 - (1 - p) ** k)) < 4 * standard_error


def test_pass_at_k_refuses_impossible_counts() -> None:
    with pytest.raises(ValueError, match="1 ≤ k ≤ n"):
        pass_at_k(2, 1, 3)
    with pytest.raises(ValueError, match="0 ≤ c ≤ n"):
        pass_at_k(2, 3, 1)


def test_reducer_pass_at_k_counts_trials_at_or_above_the_threshold() -> None:
    reducer = TrialReducer("pass_at_k", k=2, threshold=0.5)
    # 4 trials, 1 passes (0.5 reaches the threshold): 1 - C(3,2)/C(4,2) = 1 - 3/6
    assert reducer.reduce([0.5, 0.4, 0.0, 0.2]) == pytest.approx(0.5)
    assert reducer.reduce([0.0, 0.1, 0.2]) == 0.0
    assert reducer.reduce([1.0]) is None  # fewer trials than k: not defined


def test_reducer_at_least_k() -> None:
    reducer = TrialReducer("at_least_k", k=2, threshold=1.0)
    assert reducer.reduce([1.0, 0.0, 1.0]) == 1.0
    assert reducer.reduce([1.0, 0.0, 0.0]) == 0.0
    assert reducer.reduce([1.0]) is None


@pytest.mark.parametrize(
    ("name", "values", "expected"),
    [
        ("mean", [1.0, 2.0, 4.0], 7 / 3),
        ("median", [5.0, 1.0, 4.0], 4.0),
        ("median", [1.0, 2.0, 4.0, 5.0], 3.0),
        ("max", [0.2, 0.9, 0.5], 0.9),
        ("mode", [3.0, 5.0, 5.0, 3.0, 4.0], 3.0),  # tie: the smallest commonest value
        ("mode", [1.0, 2.0, 2.0], 2.0),
    ],
)
def test_reducers_by_hand(name: str, values: list[float], expected: float) -> None:
    assert TrialReducer(name, None, None).reduce(values) == pytest.approx(expected)  # type: ignore[arg-type]


def test_counting_reducers_need_k_and_threshold() -> None:
    with pytest.raises(ValueError, match="needs a whole number k"):
        TrialReducer("pass_at_k", threshold=1.0)
    with pytest.raises(ValueError, match="needs a pass threshold"):
        TrialReducer("at_least_k", k=2)
    with pytest.raises(ValueError, match="unknown trial reducer"):
        TrialReducer("best")  # type: ignore[arg-type]


def test_labels() -> None:
    assert TrialReducer().label == "mean"
    assert TrialReducer("pass_at_k", k=3, threshold=1.0).label == "pass@3 (≥ 1)"


def test_the_reducers_are_those_a_config_and_a_stored_meaning_name() -> None:
    from typing import get_args

    from ragjudge.schema import TrialsReduceMethod
    from ragjudge.stats._reducers import TRIAL_REDUCERS

    assert get_args(TrialsReduceMethod) == TRIAL_REDUCERS

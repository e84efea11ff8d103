"""Trial statistics on hand cases: distributions and modes, majority agreement, and the
difference of two samples' trial means with its interval."""

from __future__ import annotations

import pytest

from ragjudge.stats import group_difference, trial_values, verdict_agreement


def test_the_seeds_method_two_table() -> None:
    found = trial_values([3.0] * 14 + [4.0] * 36)
    assert found.distribution == {3.0: 14, 4.0: 36}
    assert found.mode == 4.0 and found.mode_share == 0.72 and found.mean == pytest.approx(3.72)
    assert found.sd == pytest.approx(0.45356, abs=1e-5)


def test_rates_computed_twice_count_as_one_value_and_ties_take_the_smaller() -> None:
    found = trial_values([75 / 90, 0.75 / 0.9, 1.0, 1.0, 0.5, 0.5])
    assert len(found.distribution) == 3 and found.distribution[round(75 / 90, 9)] == 2
    assert found.mode == 0.5 and found.mode_share == pytest.approx(2 / 6)
    assert trial_values([2.0]).sd is None


def test_majority_agreement() -> None:
    assert verdict_agreement([True] * 50).all_agree
    split = verdict_agreement([True, True, False])
    assert (
        split.majority is True and split.agreement == pytest.approx(2 / 3) and not split.all_agree
    )
    tie = verdict_agreement([True, False])
    assert tie.majority is None and tie.agreement == 0.5


def test_difference_of_constant_trials_has_a_zero_width_interval() -> None:
    point, ci = group_difference([([0.8333] * 50, [0.3333] * 50)])
    assert point == pytest.approx(0.5) and ci is not None
    assert (ci.low, ci.high) == (pytest.approx(0.5), pytest.approx(0.5))


def test_difference_over_groups_and_trials() -> None:
    pairs = [([5.0] * 10, [3.0] * 5 + [4.0] * 5), ([4.0] * 10, [4.0] * 10)]
    point, ci = group_difference(pairs, seed=1)
    assert point == pytest.approx((1.5 + 0.0) / 2)
    assert ci is not None and ci.low <= point <= ci.high and ci.low >= 0 and ci.high <= 2
    assert group_difference([([1.0], [0.0])]) == (1.0, None)


def test_difference_needs_values() -> None:
    with pytest.raises(ValueError):
        group_difference([([], [1.0])])

"""Agreement figures on cases worked out by hand."""

from __future__ import annotations

import numpy as np
import pytest

from ragjudge.stats import (
    binary_agreement,
    ordinal_agreement,
    preference_agreement,
    roc_auc,
    weighted_kappa,
)


def test_cohen_kappa_of_a_two_by_two_table() -> None:
    # 20 yes/yes, 5 yes/no, 10 no/yes, 15 no/no: observed agreement 35/50 = 0.7;
    # rater A says yes 25/50, B 30/50, so chance agreement 0.5·0.6 + 0.5·0.4 = 0.5;
    # kappa = (0.7 − 0.5) / (1 − 0.5) = 0.4.
    a = [1] * 25 + [0] * 25
    b = [1] * 20 + [0] * 5 + [1] * 10 + [0] * 15
    assert weighted_kappa(a, b) == pytest.approx(0.4)


def test_weighted_kappa_by_hand() -> None:
    # a = 1 1 2 3 3, b = 1 2 2 3 1 on levels 1..3 (span 2).
    # Marginals: a (2, 1, 2)/5, b (2, 2, 1)/5.
    # Unweighted: observed disagreement 2/5; chance Σ p_i q_j over i≠j = 1 − (4+2+2)/25
    #   = 17/25 → κ = 1 − (2/5)/(17/25) = 1 − 10/17 = 7/17.
    # Linear (|i − j| / 2): observed (0.5 + 1)/5 = 0.3; chance Σ p_i q_j w_ij
    #   = (2·2·0 + 2·2·.5 + 2·1·1 + 1·2·.5 + 1·2·0 + 1·1·.5 + 2·2·1 + 2·2·.5 + 2·1·0)/25
    #   = (0 + 2 + 2 + 1 + 0 + .5 + 4 + 2 + 0)/25 = 11.5/25 → κ = 1 − 0.3/0.46 = 8/23.
    # Quadratic (w²): observed (0.25 + 1)/5 = 0.25; chance
    #   (0 + 1 + 2 + .5 + 0 + .25 + 4 + 1 + 0)/25 = 8.75/25 = 0.35 → κ = 1 − 0.25/0.35 = 2/7.
    a = [1, 1, 2, 3, 3]
    b = [1, 2, 2, 3, 1]
    assert weighted_kappa(a, b) == pytest.approx(7 / 17)
    assert weighted_kappa(a, b, "linear") == pytest.approx(8 / 23)
    assert weighted_kappa(a, b, "quadratic") == pytest.approx(2 / 7)


def test_kappa_is_undefined_when_both_raters_are_constant() -> None:
    assert weighted_kappa([1, 1, 1], [1, 1, 1]) is None


def test_auc_counts_pairs_and_halves_ties() -> None:
    # positives 0.35, 0.8 against negatives 0.1, 0.4: 0.35 beats 0.1 only, 0.8 beats both
    assert roc_auc([0.1, 0.4, 0.35, 0.8], [0, 0, 1, 1]) == pytest.approx(3 / 4)
    # positives 1 and 0 against the negative 1: a tie (½) and a loss (0)
    assert roc_auc([1, 1, 0], [0, 1, 1]) == pytest.approx(1 / 4)
    assert roc_auc([0.2, 0.3], [1, 1]) is None


SCORES = [0.9, 0.8, 0.3, 0.6, 0.2, 0.1]
LABELS = [1, 1, 1, 0, 0, 0]


def test_binary_agreement_at_a_threshold_by_hand() -> None:
    # at 0.5: predictions 1 1 0 1 0 0 → TP 2, FP 1, FN 1, TN 2
    found = binary_agreement(SCORES, LABELS, threshold=0.5, n_resamples=500)
    assert (found.n, found.positives) == (6, 3)
    assert found.accuracy.value == pytest.approx(4 / 6)
    assert found.precision.value == pytest.approx(2 / 3)
    assert found.recall.value == pytest.approx(2 / 3)
    # chance agreement (3/6)(3/6) + (3/6)(3/6) = 1/2 → κ = (2/3 − 1/2)/(1/2) = 1/3
    assert found.kappa.value == pytest.approx(1 / 3)
    # 0.9 and 0.8 beat all three negatives, 0.3 beats two: 8 of 9 pairs
    assert found.auc.value == pytest.approx(8 / 9)
    # thresholds 0.8 and 0.3 both reach 5/6; the lower one is reported
    assert found.best_threshold == pytest.approx(0.3)
    assert found.tuned_accuracy.value == pytest.approx(5 / 6)
    # three of each label: the majority baseline calls everything acceptable
    assert found.baseline_label == 1
    assert found.baseline_accuracy.value == pytest.approx(0.5)


def test_lower_is_better_flips_the_verdicts() -> None:
    found = binary_agreement([-s for s in SCORES], LABELS, threshold=-0.5, higher_is_better=False)
    assert found.accuracy.value == pytest.approx(4 / 6)
    assert found.auc.value == pytest.approx(8 / 9)
    assert found.best_threshold == pytest.approx(-0.3)


def test_without_a_threshold_only_the_threshold_free_figures() -> None:
    found = binary_agreement(SCORES, LABELS, n_resamples=200)
    assert found.threshold is None and found.accuracy.value is None
    assert found.kappa.value is None and found.auc.value == pytest.approx(8 / 9)


def test_intervals_are_seeded_and_hold_the_estimate() -> None:
    rng = np.random.default_rng(3)
    scores = rng.normal(size=200)
    labels = (scores + rng.normal(size=200) > 0).astype(float)
    first = binary_agreement(scores, labels, threshold=0.0, seed=7)
    assert first == binary_agreement(scores, labels, threshold=0.0, seed=7)
    for figure in (first.accuracy, first.kappa, first.auc, first.precision, first.recall):
        assert figure.ci is not None and figure.value is not None
        assert figure.ci.low <= figure.value <= figure.ci.high
    # the cross-validated accuracy is honest: not above the one tuned on all the data
    assert first.cv_accuracy.value is not None and first.tuned_accuracy.value is not None
    assert first.cv_accuracy.value <= first.tuned_accuracy.value + 1e-9
    assert first.tuned_accuracy.value >= first.baseline_accuracy.value  # type: ignore[operator]


def test_binary_labels_must_be_zero_or_one() -> None:
    with pytest.raises(ValueError, match="0 or 1"):
        binary_agreement([0.1, 0.2], [1, 2])
    with pytest.raises(ValueError, match="finite"):
        binary_agreement([0.1, float("nan")], [1, 0])


def test_ordinal_agreement_by_hand() -> None:
    judge = [1, 2, 4, 5, 3, 3]
    human = [1, 3, 4, 3, 3, 5]
    found = ordinal_agreement(judge, human, n_resamples=300)
    assert found.exact.value == pytest.approx(3 / 6)  # 1=1, 4=4, 3=3
    assert found.within_one.value == pytest.approx(4 / 6)  # and 2 vs 3
    assert found.weighted_kappa.value == pytest.approx(weighted_kappa(human, judge, "quadratic"))
    # the most frequent human label is 3 (three times)
    assert found.baseline_level == 3.0
    assert found.baseline_exact.value == pytest.approx(3 / 6)
    assert found.baseline_within_one.value == pytest.approx(4 / 6)  # 3, 4, 3, 3
    assert found.levels == (1.0, 2.0, 3.0, 4.0, 5.0)


def test_preference_agreement_counts_ties_as_half() -> None:
    differences = [0.1, -0.2, 0.0, 0.3, 0.5]
    preferences = [1, 1, -1, 0, 2]  # the fourth pair has no preference
    found = preference_agreement(differences, preferences, n_resamples=300)
    assert (found.n, found.ties) == (4, 1)
    assert found.agreement.value == pytest.approx((1 + 0 + 0.5 + 1) / 4)
    assert found.baseline_side == 1 and found.baseline.value == pytest.approx(3 / 4)

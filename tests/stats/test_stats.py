from __future__ import annotations

import itertools
import math
from typing import Any

import numpy as np
import pandas as pd
import pytest
from scipy import stats as scipy_stats

from ragjudge.stats import (
    CORRELATION_METHODS,
    NO_GROUP,
    Interval,
    MetricSummary,
    _replicate_correlations,
    bootstrap_ci,
    correlations,
    group_label,
    group_names,
    metadata_column,
    paired_difference,
    sample_means,
    sign_flip_p_value,
    summarize_by,
    summarize_scores,
    summary_frame,
)


def score_frame(rows: list[tuple[Any, ...]], **extra: list[Any]) -> pd.DataFrame:
    """Rows of (sample_id, trial, metric, value, error) plus optional extra columns."""
    frame = pd.DataFrame(rows, columns=["sample_id", "trial", "metric", "value", "error"])
    frame["value"] = frame["value"].astype(float)
    for name, values in extra.items():
        frame[name] = values
    return frame


def only(summaries: list[MetricSummary], metric: str) -> MetricSummary:
    (found,) = [s for s in summaries if s.metric == metric]
    return found


# --- bootstrap_ci ---------------------------------------------------------------------


def test_bootstrap_ci_matches_normal_theory_for_a_large_sample() -> None:
    values = np.random.default_rng(42).normal(loc=10.0, scale=2.0, size=2000)
    ci = bootstrap_ci(values.tolist())
    assert ci is not None
    mean = values.mean()
    half_width = 1.96 * values.std(ddof=1) / math.sqrt(values.size)
    assert ci.low < mean < ci.high
    assert ci.low == pytest.approx(mean - half_width, abs=0.15 * half_width)
    assert ci.high == pytest.approx(mean + half_width, abs=0.15 * half_width)


def test_bootstrap_ci_confidence_controls_width() -> None:
    values = np.random.default_rng(1).uniform(0, 5, size=300).tolist()
    wide = bootstrap_ci(values, confidence=0.99)
    narrow = bootstrap_ci(values, confidence=0.80)
    assert wide is not None and narrow is not None
    assert wide.high - wide.low > narrow.high - narrow.low


def test_bootstrap_ci_is_reproducible_with_a_seed() -> None:
    values = np.random.default_rng(5).uniform(0, 1, size=40).tolist()
    assert bootstrap_ci(values, seed=7) == bootstrap_ci(values, seed=7)
    assert bootstrap_ci(values, seed=7) != bootstrap_ci(values, seed=8)


def test_bootstrap_ci_needs_two_values() -> None:
    assert bootstrap_ci([]) is None
    assert bootstrap_ci([3.0]) is None


def test_bootstrap_ci_of_constant_values_has_zero_width() -> None:
    assert bootstrap_ci([2.5, 2.5, 2.5]) == Interval(2.5, 2.5)


def test_bootstrap_ci_rejects_nan_and_bad_settings() -> None:
    with pytest.raises(ValueError, match="finite"):
        bootstrap_ci([1.0, float("nan")])
    with pytest.raises(ValueError, match="confidence"):
        bootstrap_ci([1.0, 2.0], confidence=1.5)


def test_bootstrap_ci_of_many_values_stays_in_range() -> None:
    # More values than fit in one resample batch.
    values = np.random.default_rng(3).integers(0, 2, size=5000).astype(float)
    ci = bootstrap_ci(values.tolist(), n_resamples=500)
    assert ci is not None
    assert 0.0 < ci.low < values.mean() < ci.high < 1.0


# --- summarize_scores -----------------------------------------------------------------


def test_errors_are_counted_but_not_averaged() -> None:
    frame = score_frame(
        [
            ("s1", 0, "faithfulness", 1.0, None),
            ("s2", 0, "faithfulness", 0.0, None),
            ("s3", 0, "faithfulness", float("nan"), "judge output did not parse"),
            ("s4", 0, "faithfulness", 1.0, None),
        ]
    )
    summary = only(summarize_scores(frame), "faithfulness")
    assert summary.errors == 1
    assert summary.n == 3
    assert summary.mean == pytest.approx(2 / 3)
    assert summary.ci is not None and summary.mean is not None
    assert summary.ci.low <= summary.mean <= summary.ci.high
    assert summary.trials == 1
    assert summary.trial_sd is None
    assert summary.trial_agreement is None


def test_excluded_values_leave_the_mean_but_stay_in_mean_all() -> None:
    frame = score_frame(
        [
            ("s1", 0, "answer_accuracy", 0.0, None),
            ("s2", 0, "answer_accuracy", 5.0, None),
            ("s3", 0, "answer_accuracy", 4.0, None),
            ("s4", 0, "answer_accuracy", 0.0, None),
            ("s5", 0, "answer_accuracy", 3.0, None),
            ("s1", 0, "rouge_l", 0.0, None),
            ("s2", 0, "rouge_l", 0.5, None),
        ]
    )
    summaries = summarize_scores(frame, exclude={"answer_accuracy": [0.0]})
    accuracy = only(summaries, "answer_accuracy")
    assert accuracy.mean == pytest.approx(4.0)
    assert accuracy.n == 3
    assert accuracy.excluded == 2
    assert accuracy.mean_all == pytest.approx(12 / 5)
    # Exclusion is per metric: rouge_l keeps its zero.
    rouge = only(summaries, "rouge_l")
    assert rouge.mean == pytest.approx(0.25)
    assert rouge.excluded == 0


def test_all_values_excluded_gives_no_mean() -> None:
    frame = score_frame([("s1", 0, "m", 0.0, None), ("s2", 0, "m", 0.0, None)])
    summary = only(summarize_scores(frame, exclude={"m": [0.0]}), "m")
    assert summary.mean is None
    assert summary.ci is None
    assert summary.n == 0
    assert summary.mean_all == 0.0


def test_trials_are_averaged_per_sample_before_the_mean() -> None:
    frame = score_frame(
        [
            ("a", 0, "m", 1.0, None),
            ("a", 1, "m", 1.0, None),
            ("a", 2, "m", 1.0, None),
            ("b", 0, "m", 0.0, None),
            ("b", 1, "m", 1.0, None),
            ("b", 2, "m", 1.0, None),
            # c has only one valid trial: it counts in the mean, not in the spread.
            ("c", 0, "m", float("nan"), "timeout"),
            ("c", 1, "m", 4.0, None),
            ("c", 2, "m", float("nan"), "timeout"),
        ]
    )
    summary = only(summarize_scores(frame), "m")
    assert summary.n == 3
    assert summary.trials == 3
    assert summary.errors == 2
    assert summary.mean == pytest.approx((1.0 + 2 / 3 + 4.0) / 3)
    # sd(b) with ddof=1: values 0, 1, 1 -> variance 1/3.
    assert summary.trial_sd == pytest.approx((0.0 + math.sqrt(1 / 3)) / 2)
    assert summary.trial_agreement == pytest.approx(0.5)


def test_bootstrap_is_over_samples_not_trials() -> None:
    one_trial = score_frame([(f"s{i}", 0, "m", float(i % 2), None) for i in range(20)])
    repeated = score_frame(
        [(f"s{i}", t, "m", float(i % 2), None) for i in range(20) for t in range(5)]
    )
    once = only(summarize_scores(one_trial), "m")
    many = only(summarize_scores(repeated), "m")
    assert many.n == once.n == 20
    assert many.ci == once.ci
    assert many.trial_agreement == 1.0
    assert many.trial_sd == 0.0


def test_excluded_values_still_count_as_trial_disagreement() -> None:
    frame = score_frame(
        [
            ("a", 0, "answer_accuracy", 0.0, None),
            ("a", 1, "answer_accuracy", 4.0, None),
            ("b", 0, "answer_accuracy", 5.0, None),
            ("b", 1, "answer_accuracy", 5.0, None),
        ]
    )
    summary = only(summarize_scores(frame, exclude={"answer_accuracy": [0.0]}), "answer_accuracy")
    assert summary.mean == pytest.approx(4.5)
    assert summary.excluded == 1
    assert summary.mean_all == pytest.approx((2.0 + 5.0) / 2)
    assert summary.trial_agreement == pytest.approx(0.5)
    assert summary.trial_sd == pytest.approx((math.sqrt(8.0) + 0.0) / 2)


def test_metrics_keep_first_seen_order() -> None:
    frame = score_frame(
        [
            ("s1", 0, "zeta", 1.0, None),
            ("s1", 0, "alpha", 1.0, None),
            ("s2", 0, "zeta", 0.0, None),
            ("s2", 0, "mid", 0.0, None),
        ]
    )
    assert [s.metric for s in summarize_scores(frame)] == ["zeta", "alpha", "mid"]


def test_same_data_same_summary() -> None:
    rows = [(f"s{i}", 0, "m", float(i % 5), None) for i in range(30)]
    assert summarize_scores(score_frame(rows)) == summarize_scores(score_frame(rows))


def test_missing_columns_are_reported() -> None:
    with pytest.raises(ValueError, match="trial"):
        summarize_scores(pd.DataFrame({"sample_id": [], "metric": [], "value": [], "error": []}))


# --- subsets and frames ---------------------------------------------------------------


def test_summarize_by_groups_samples_by_metadata() -> None:
    frame = score_frame(
        [
            ("s1", 0, "m", 1.0, None),
            ("s2", 0, "m", 0.0, None),
            ("s3", 0, "m", 1.0, None),
            ("s4", 0, "m", 0.5, None),
            ("s5", 0, "m", float("nan"), "boom"),
        ],
        **{"metadata.product": ["watch", "phone", "watch", None, "phone"]},
    )
    groups = summarize_by(frame, "metadata.product")
    assert list(groups) == ["phone", "watch", "(none)"]
    assert only(groups["watch"], "m").mean == pytest.approx(1.0)
    assert only(groups["watch"], "m").n == 2
    phone = only(groups["phone"], "m")
    assert phone.mean == pytest.approx(0.0)
    assert phone.errors == 1
    assert only(groups["(none)"], "m").n == 1


def test_summarize_by_unknown_key_is_an_error() -> None:
    frame = score_frame([("s1", 0, "m", 1.0, None)])
    with pytest.raises(ValueError, match=r"metadata\.nope"):
        summarize_by(frame, "metadata.nope")


def test_summary_frame_has_one_row_per_metric() -> None:
    frame = score_frame(
        [
            ("s1", 0, "m", 1.0, None),
            ("s2", 0, "m", 0.0, None),
            ("s1", 0, "single", 3.0, None),
        ]
    )
    table = summary_frame(summarize_scores(frame))
    assert list(table.columns[:8]) == [
        "metric",
        "mean",
        "ci_low",
        "ci_high",
        "n",
        "errors",
        "skipped",
        "excluded",
    ]
    assert list(table["metric"]) == ["m", "single"]
    first = table.iloc[0]
    assert first["mean"] == pytest.approx(0.5)
    assert 0.0 <= first["ci_low"] <= first["ci_high"] <= 1.0
    assert pd.isna(table.iloc[1]["ci_low"])


# --- correlations -----------------------------------------------------------------------


def noisy_pairs(n: int = 120, seed: int = 3) -> tuple[np.ndarray, np.ndarray]:
    """A metric on 1..4 human ratings with noise: clearly but not perfectly related."""
    rng = np.random.default_rng(seed)
    human = rng.integers(1, 5, size=n).astype(float)
    metric = human / 4 + rng.normal(0, 0.3, size=n)
    return metric, human


def test_perfectly_monotone_data_has_rank_correlation_one() -> None:
    x = np.arange(1.0, 11.0)
    found = correlations(x, x**3)
    assert found["spearman"].estimate == pytest.approx(1.0)
    assert found["kendall"].estimate == pytest.approx(1.0)
    pearson = found["pearson"].estimate
    assert pearson is not None and 0.8 < pearson < 0.99


def test_reversed_order_gives_minus_one() -> None:
    x = np.arange(8.0)
    found = correlations(x, -np.exp(x))
    assert found["spearman"].estimate == pytest.approx(-1.0)
    assert found["kendall"].estimate == pytest.approx(-1.0)


def test_pearson_matches_numpy_and_ranks_match_scipy_with_ties() -> None:
    metric, human = noisy_pairs()
    found = correlations(metric.tolist(), human.tolist())
    assert set(found) == set(CORRELATION_METHODS)
    assert found["pearson"].estimate == pytest.approx(np.corrcoef(metric, human)[0, 1])
    assert found["spearman"].estimate == pytest.approx(scipy_stats.spearmanr(metric, human)[0])
    kendall = scipy_stats.kendalltau(metric, human)
    assert found["kendall"].estimate == pytest.approx(kendall.statistic)
    assert found["kendall"].p_value == pytest.approx(kendall.pvalue)
    assert all(c.n == 120 for c in found.values())
    assert all(c.p_value is not None and c.p_value < 1e-6 for c in found.values())


def test_confidence_interval_contains_the_estimate() -> None:
    metric, human = noisy_pairs()
    for corr in correlations(metric, human).values():
        assert corr.ci is not None and corr.estimate is not None
        assert -1.0 <= corr.ci.low < corr.estimate < corr.ci.high <= 1.0
        assert corr.resamples == 2000


def test_correlation_intervals_are_reproducible_with_a_seed() -> None:
    metric, human = noisy_pairs(n=40)
    first = correlations(metric, human, seed=11)
    assert first == correlations(metric, human, seed=11)
    other = correlations(metric, human, seed=12)
    assert first["pearson"].ci != other["pearson"].ci
    assert first["pearson"].estimate == other["pearson"].estimate


def test_higher_confidence_gives_wider_correlation_intervals() -> None:
    metric, human = noisy_pairs(n=60)
    wide = correlations(metric, human, confidence=0.99)["spearman"].ci
    narrow = correlations(metric, human, confidence=0.8)["spearman"].ci
    assert wide is not None and narrow is not None
    assert wide.high - wide.low > narrow.high - narrow.low


def test_resample_coefficients_equal_those_of_the_expanded_resamples() -> None:
    # The bootstrap works on draw counts; each replicate must equal the coefficient of
    # the resample written out in full, ties and repeated pairs included.
    metric, human = noisy_pairs(n=30, seed=8)
    metric = np.round(metric, 1)  # ties on the metric side too
    indices = np.random.default_rng(0).integers(0, 30, size=(25, 30))
    replicates = _replicate_correlations(metric, human, indices)
    for b, rows in enumerate(indices):
        x, y = metric[rows], human[rows]
        assert replicates["pearson"][b] == pytest.approx(scipy_stats.pearsonr(x, y)[0])
        assert replicates["spearman"][b] == pytest.approx(scipy_stats.spearmanr(x, y)[0])
        assert replicates["kendall"][b] == pytest.approx(scipy_stats.kendalltau(x, y)[0])


def test_resamples_with_a_constant_side_are_skipped() -> None:
    indices = np.array([[0, 0, 0], [0, 1, 2], [2, 2, 2]])
    replicates = _replicate_correlations(
        np.array([1.0, 2.0, 3.0]), np.array([1.0, 3.0, 2.0]), indices
    )
    for values in replicates.values():
        assert np.isnan(values[0]) and np.isnan(values[2]) and np.isfinite(values[1])
    found = correlations([1.0, 2.0, 3.0, 4.0], [1.0, 1.0, 2.0, 2.0], n_resamples=400)
    assert 0 < found["kendall"].resamples < 400


def test_undefined_correlations_are_none_not_nan() -> None:
    constant = correlations([1.0, 2.0, 3.0], [4.0, 4.0, 4.0])
    single = correlations([1.0], [2.0])
    for found in (constant, single):
        for corr in found.values():
            assert corr.estimate is None and corr.ci is None and corr.p_value is None
    assert constant["pearson"].n == 3


def test_correlations_reject_bad_input() -> None:
    with pytest.raises(ValueError, match="finite"):
        correlations([1.0, float("nan")], [1.0, 2.0])
    with pytest.raises(ValueError, match="equally long"):
        correlations([1.0, 2.0], [1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="confidence"):
        correlations([1.0, 2.0], [1.0, 2.0], confidence=1.0)


def test_group_label_names_missing_values_and_joins_lists() -> None:
    assert group_label(None) == NO_GROUP
    assert group_label(float("nan")) == NO_GROUP
    assert group_label(["Factoid", "Keyword"]) == "Factoid, Keyword"
    assert group_label([]) == NO_GROUP
    assert group_label(3) == "3"
    assert group_label(0.5) == "0.5"


def test_group_label_reads_a_score_frames_flattened_values() -> None:
    # A store's score frame keeps lists as JSON text and int columns with gaps as floats.
    assert group_label('["Factoid", "Keyword"]') == "Factoid, Keyword"
    assert group_label("[]") == NO_GROUP
    assert group_label(2.0) == "2"
    # text that only looks like a list stays as it is
    assert group_label("[red]x[/red]") == "[red]x[/red]"
    assert group_label('{"a": 1}') == '{"a": 1}'


def test_summarize_by_a_list_valued_key_joins_its_items() -> None:
    frame = score_frame(
        [("s1", 0, "m", 1.0, None), ("s2", 0, "m", 0.0, None), ("s3", 0, "m", 0.5, None)],
        **{"metadata.kind": ['["Factoid"]', '["Factoid", "Keyword"]', None]},
    )
    groups = summarize_by(frame, "metadata.kind")
    assert list(groups) == ["Factoid", "Factoid, Keyword", NO_GROUP]
    assert only(groups["Factoid"], "m").mean == pytest.approx(1.0)


def test_group_names_sort_with_the_missing_group_last() -> None:
    assert group_names(["os", NO_GROUP, "db", "os"]) == ["db", "os", NO_GROUP]
    assert group_names(["b", "a"]) == ["a", "b"]
    assert group_names([]) == []


def test_metadata_column_prefers_metadata_and_names_the_keys_present() -> None:
    frame = score_frame([("s1", 0, "m", 1.0, None)], **{"metadata.product": ["db"]})
    assert metadata_column(frame, "product") == "metadata.product"
    assert metadata_column(frame, "metadata.product") == "metadata.product"
    with pytest.raises(ValueError, match=r"no sample has metadata key 'topic'.*product"):
        metadata_column(frame, "topic")


def test_sample_means_leave_out_errors_and_excluded_values() -> None:
    frame = score_frame(
        [
            ("b", 0, "m", 4.0, None),
            ("a", 0, "m", 0.0, None),
            ("a", 1, "m", 2.0, None),
            ("c", 0, "m", float("nan"), "timeout"),
            ("d", 0, "m", 0.0, None),
            ("a", 0, "other", 1.0, None),
        ]
    )
    means = sample_means(frame, {"m": [0.0]})
    assert list(means) == ["m", "other"]
    assert means["m"].to_dict() == {"b": 4.0, "a": 2.0}  # c failed, d only excluded
    assert sample_means(frame)["m"].to_dict() == {"b": 4.0, "a": 1.0, "d": 0.0}
    assert means["other"].to_dict() == {"a": 1.0}


# --- paired_difference ------------------------------------------------------------------


def brute_force_sign_flip_p(differences: list[float]) -> float:
    """Share of all sign patterns whose |sum| reaches the observed |sum|."""
    observed = abs(sum(differences))
    sums = [
        abs(sum(s * d for s, d in zip(signs, differences, strict=True)))
        for signs in itertools.product((1, -1), repeat=len(differences))
    ]
    return sum(s >= observed - 1e-12 for s in sums) / len(sums)


def test_paired_difference_matches_a_hand_computation() -> None:
    found = paired_difference([1, 2, 3, 4], [2, 2, 5, 3], seed=5)
    assert found.n == 4
    assert (found.mean_a, found.mean_b, found.difference) == pytest.approx((2.5, 3.0, 0.5))
    assert (found.better, found.equal, found.worse) == (0.5, 0.25, 0.25)
    # sums of ±1 ±2 ±1 (the 0 doubles every count): |sum| >= 2 in 6 of 8
    assert found.p_value == pytest.approx(0.75)
    assert found.ci == bootstrap_ci([1.0, 0.0, 2.0, -1.0], seed=5)
    assert found.wilcoxon_p == pytest.approx(
        scipy_stats.wilcoxon([1.0, 0.0, 2.0, -1.0], zero_method="wilcox").pvalue
    )
    assert not found.ci_excludes_zero


def test_constant_shift_gives_a_zero_width_interval_that_excludes_zero() -> None:
    found = paired_difference([0.2, 0.5, 0.9], [1.2, 1.5, 1.9])
    assert found.difference == pytest.approx(1.0)
    assert found.ci is not None
    assert (found.ci.low, found.ci.high) == pytest.approx((1.0, 1.0))
    assert found.ci_excludes_zero
    assert found.p_value == pytest.approx(2 / 8)


def test_all_zero_differences_have_p_one() -> None:
    found = paired_difference([1, 2, 3], [1, 2, 3])
    assert found.difference == 0.0 and found.ci == Interval(0.0, 0.0)
    assert found.p_value == 1.0 and found.wilcoxon_p == 1.0
    assert (found.better, found.equal, found.worse) == (0.0, 1.0, 0.0)
    assert not found.ci_excludes_zero


def test_lower_is_better_turns_decreases_into_wins() -> None:
    higher = paired_difference([3, 4, 5], [2, 4, 3])
    lower = paired_difference([3, 4, 5], [2, 4, 3], lower_is_better=True)
    assert higher.difference == lower.difference == pytest.approx(-1.0)
    assert (higher.better, higher.worse) == pytest.approx((0.0, 2 / 3))
    assert (lower.better, lower.worse) == pytest.approx((2 / 3, 0.0))
    assert higher.p_value == lower.p_value


def test_no_pairs_and_one_pair() -> None:
    empty = paired_difference([], [])
    assert empty.n == 0
    assert empty.difference is None and empty.ci is None and empty.p_value is None
    assert empty.better is None and not empty.ci_excludes_zero
    one = paired_difference([1.0], [3.0])
    assert one.difference == 2.0 and one.ci is None and one.p_value == 1.0


def test_paired_difference_rejects_bad_input() -> None:
    with pytest.raises(ValueError, match="equally long"):
        paired_difference([1.0, 2.0], [1.0])
    with pytest.raises(ValueError, match="finite"):
        paired_difference([1.0, float("nan")], [1.0, 2.0])
    with pytest.raises(ValueError, match="confidence"):
        paired_difference([1.0], [1.0], confidence=0.0)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_exact_sign_flip_p_value_matches_brute_force(seed: int) -> None:
    rng = np.random.default_rng(seed)
    differences = rng.integers(-2, 4, size=11).astype(float).tolist()
    assert sign_flip_p_value(differences) == pytest.approx(brute_force_sign_flip_p(differences))
    negated = [-d for d in differences]
    assert sign_flip_p_value(negated) == sign_flip_p_value(differences)


def test_monte_carlo_sign_flip_p_value_is_seeded_and_close_to_theory() -> None:
    rng = np.random.default_rng(3)
    differences = rng.normal(loc=0.3, scale=1.0, size=60)
    first = sign_flip_p_value(differences, n_resamples=4000, seed=1)
    assert first == sign_flip_p_value(differences, n_resamples=4000, seed=1)
    assert first is not None
    # with 60 pairs the permutation test agrees with the one-sample t-test
    t_p = scipy_stats.ttest_1samp(differences, 0.0).pvalue
    assert first == pytest.approx(t_p, abs=0.02)
    strong = sign_flip_p_value(np.full(40, 1.0), n_resamples=999)
    assert strong == pytest.approx(1 / 1000)

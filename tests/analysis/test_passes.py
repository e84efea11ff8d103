"""Per-sample passes and pass rates of a run: errors, not-applicable scores and values
left out of the mean count neither way; several trials pass on their mean."""

from __future__ import annotations

import pytest

from ragjudge.analysis._passes import pass_rates, sample_passes
from ragjudge.schema import Score, ScoreMeaning

MEANINGS = {
    "f1": ScoreMeaning(threshold=0.5),
    "fast": ScoreMeaning(direction="lower", low=0, high=None, threshold=2.0),
    "grounded": ScoreMeaning(binary=True),
    "plain": ScoreMeaning(),
}


def _rows() -> list[tuple[str, int, Score]]:
    return [
        ("a", 0, Score(metric="f1", value=0.9)),
        ("b", 0, Score(metric="f1", value=0.2)),
        ("c", 0, Score.failed("f1", "judge down")),
        ("d", 0, Score.not_applicable("f1", "no reference")),
        ("a", 0, Score(metric="fast", value=3.0)),
        ("b", 0, Score(metric="fast", value=1.0)),
        ("a", 0, Score(metric="grounded", value=1.0)),
        ("b", 0, Score(metric="grounded", value=0.0)),
        ("a", 0, Score(metric="plain", value=0.7)),
    ]


def test_each_sample_passes_per_direction_and_unscored_ones_have_none() -> None:
    passes = sample_passes(_rows(), MEANINGS)

    assert passes["f1"] == {"a": True, "b": False, "c": None, "d": None}
    assert passes["fast"] == {"a": False, "b": True}
    assert passes["grounded"] == {"a": True, "b": False}
    assert "plain" not in passes  # a numeric score without a threshold has no pass


def test_several_trials_pass_on_their_mean_and_a_failed_trial_is_left_out() -> None:
    rows = [
        ("a", 0, Score(metric="f1", value=0.4)),
        ("a", 1, Score(metric="f1", value=0.7)),
        ("b", 0, Score(metric="f1", value=0.4)),
        ("b", 1, Score.failed("f1", "timeout")),
    ]

    assert sample_passes(rows, MEANINGS)["f1"] == {"a": True, "b": False}


def test_the_pass_rate_counts_passes_among_scored_samples() -> None:
    [f1, *_] = pass_rates(sample_passes(_rows(), MEANINGS), MEANINGS)

    assert (f1.metric, f1.passed, f1.failed, f1.unscored) == ("f1", 1, 1, 2)
    assert f1.rate == pytest.approx(0.5)
    assert f1.ci is not None and f1.ci.low == 0.0 and f1.ci.high == 1.0
    assert f1.to_dict()["threshold"] == 0.5 and f1.to_dict()["rate"] == 0.5


def test_a_score_no_sample_was_scored_on_has_no_rate() -> None:
    rows = [("a", 0, Score.failed("f1", "judge down"))]

    [f1] = pass_rates(sample_passes(rows, MEANINGS), MEANINGS)

    assert f1.rate is None and f1.ci is None and f1.unscored == 1

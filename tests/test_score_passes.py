"""``ScoreMeaning.passed``: a sample's pass against the score's threshold, in the
score's direction; a yes/no score passes at its better value without one; no value, a
value left out of the mean, or a numeric score without a threshold has no pass."""

from __future__ import annotations

from ragjudge.schema import ScoreMeaning


def test_higher_is_better_passes_at_or_above_the_threshold() -> None:
    meaning = ScoreMeaning(threshold=0.8)

    assert [meaning.passed(v) for v in (0.79, 0.8, 1.0)] == [False, True, True]


def test_lower_is_better_passes_at_or_below_the_threshold() -> None:
    meaning = ScoreMeaning(direction="lower", low=0.0, high=None, threshold=2.0)

    assert [meaning.passed(v) for v in (1.5, 2.0, 2.01)] == [True, True, False]


def test_a_yes_no_score_passes_at_its_better_value_without_a_threshold() -> None:
    yes_is_good = ScoreMeaning(binary=True)
    no_is_good = ScoreMeaning(binary=True, direction="lower")

    assert (yes_is_good.passed(1.0), yes_is_good.passed(0.0)) == (True, False)
    assert (no_is_good.passed(0.0), no_is_good.passed(1.0)) == (True, False)
    assert yes_is_good.has_pass


def test_a_declared_threshold_overrides_the_yes_no_default() -> None:
    meaning = ScoreMeaning(binary=True, threshold=0.5)

    assert meaning.passed(0.5) is True
    assert meaning.passed(0.4) is False


def test_no_value_a_left_out_value_or_no_threshold_is_no_pass() -> None:
    thresholded = ScoreMeaning(low=0.0, high=5.0, excluded=(0.0,), threshold=3.0)

    assert thresholded.passed(None) is None
    assert thresholded.passed(0.0) is None  # left out of the mean: neither way
    assert ScoreMeaning().passed(0.9) is None
    assert not ScoreMeaning().has_pass


def test_a_stored_meaning_without_a_threshold_still_reads() -> None:
    stored = {"direction": "higher", "low": 0.0, "high": 1.0, "binary": False}

    assert ScoreMeaning.model_validate(stored).threshold is None

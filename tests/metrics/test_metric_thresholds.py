"""A metric's per-sample pass threshold: a keyword of the metric or a key of its entry,
unless the metric's own options take a ``threshold``; the metric kit's built-in limits
(latency, cost, custom judges, answer similarity) land in the same meaning."""

from __future__ import annotations

import pytest

from ragjudge.metrics import create_metric, metric_class
from ragjudge.metrics._registry import meanings_of_stored_config
from ragjudge.metrics._thresholds import check_threshold, takes_pass_threshold


def test_an_entry_and_a_keyword_give_the_same_threshold() -> None:
    from_entry = create_metric({"metric": "rouge_l", "threshold": 0.5})
    from_keyword = metric_class("rouge_l")(threshold=0.5)

    assert from_entry.threshold == from_keyword.threshold == 0.5
    assert metric_class("rouge_l")().threshold is None


def test_a_threshold_that_is_not_a_number_names_the_metric() -> None:
    with pytest.raises(ValueError, match=r"metric 'rouge_l': 'threshold' must be a number"):
        create_metric({"metric": "rouge_l", "threshold": "high"})
    with pytest.raises(ValueError, match="must be a number"):
        create_metric({"metric": "rouge_l", "threshold": True})
    with pytest.raises(ValueError, match="finite"):
        metric_class("rouge_l")(threshold=float("nan"))


def test_a_threshold_outside_the_scores_range_names_the_metric_and_range() -> None:
    metric = create_metric({"metric": "rouge_l", "name": "overlap", "threshold": 1.5})

    with pytest.raises(ValueError) as info:
        check_threshold(metric)

    assert str(info.value) == (
        "metric 'overlap': 'threshold' 1.5 is outside the range of the score 'overlap' (0 to 1)"
    )


def test_an_open_range_takes_any_threshold_on_its_open_side() -> None:
    latency = create_metric({"metric": "latency", "threshold": 30})

    check_threshold(latency)
    with pytest.raises(ValueError, match=r"outside the range .*\(0 to inf\)"):
        check_threshold(create_metric({"metric": "latency", "threshold": -1}))


def test_a_metric_whose_options_take_a_threshold_keeps_it_as_its_option() -> None:
    matching = create_metric({"metric": "matched_context_precision", "threshold": 0.9})

    assert not takes_pass_threshold(type(matching))
    assert matching.threshold is None
    assert matching.options.threshold == 0.9  # type: ignore[attr-defined]


def test_a_custom_judges_threshold_is_its_pass_threshold() -> None:
    judge = create_metric(
        {"metric": "custom_judge", "name": "tone", "scale": "1-5", "threshold": 4}
    )

    assert judge.threshold == 4
    assert judge.meanings()["tone"].threshold == 4
    assert judge.meanings()["tone"].passed(3.0) is False


def test_a_latency_limit_is_a_yes_no_score_passing_within_the_limit() -> None:
    meaning = create_metric({"metric": "latency", "max_seconds": 2}).meanings()["latency"]

    assert meaning.binary and meaning.threshold == 1.0
    assert (meaning.passed(1.0), meaning.passed(0.0)) == (True, False)


def test_a_cost_limit_is_a_yes_no_score_passing_within_the_limit() -> None:
    cost = create_metric({"metric": "cost", "max_dollars": 0.01, "model": "openai/gpt-4o-mini"})

    assert cost.meanings()["cost"].threshold == 1.0


def test_answer_similarity_with_its_threshold_is_a_yes_no_score() -> None:
    metric = create_metric({"metric": "answer_similarity", "threshold": 0.8})
    meaning = metric.meanings()["answer_similarity"]

    assert meaning.binary and meaning.passed(1.0) is True and meaning.passed(0.0) is False
    plain = create_metric("answer_similarity").meanings()["answer_similarity"]
    assert not plain.has_pass


def test_a_run_stored_without_meanings_gets_its_thresholds_from_its_config() -> None:
    config = {"metrics": [{"metric": "rouge_l", "threshold": 0.5}, "token_f1"]}
    rebuilt = meanings_of_stored_config(config)

    assert rebuilt["rouge_l"].threshold == 0.5
    assert rebuilt["token_f1"].threshold is None

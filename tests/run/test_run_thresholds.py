"""Building a run's metrics with per-sample thresholds: checked before anything runs (a
:class:`ConfigError` naming the metric), and carried into the meanings the run stores,
beside the other choices of a metric entry."""

from __future__ import annotations

import pytest

from ragjudge.errors import ConfigError
from ragjudge.metrics import metric_class
from ragjudge.run._preparation import build_metrics


def test_the_threshold_lands_in_the_meaning_of_the_metrics_score() -> None:
    [metric] = build_metrics([{"metric": "rouge_l", "threshold": 0.5}])

    meaning = metric.meanings()["rouge_l"]
    assert meaning.threshold == 0.5
    assert metric.meanings_for([])["rouge_l"].threshold == 0.5


def test_an_instance_with_a_threshold_attribute_is_built_the_same() -> None:
    [metric] = build_metrics([metric_class("token_f1")(threshold=0.7)])

    assert metric.meanings()["token_f1"].threshold == 0.7


def test_a_threshold_beside_a_trials_reducer_keeps_both() -> None:
    [metric] = build_metrics([{"metric": "rouge_l", "threshold": 0.4, "reduce": "max"}], trials=3)

    meaning = metric.meanings()["rouge_l"]
    assert meaning.threshold == 0.4
    assert meaning.trials_reduce is not None and meaning.trials_reduce.method == "max"


def test_a_threshold_outside_the_range_is_a_config_error_naming_the_metric() -> None:
    with pytest.raises(ConfigError) as info:
        build_metrics(
            [{"metric": "rouge_l", "name": "overlap", "threshold": 2}], where="eval.yaml: metrics"
        )

    assert str(info.value) == (
        "eval.yaml: metrics: metric 'overlap': 'threshold' 2 is outside the range of the "
        "score 'overlap' (0 to 1)"
    )


def test_a_threshold_on_a_metric_of_choices_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match=r"metric 'fact': takes no 'threshold': its scores"):
        build_metrics([{"metric": "classify", "spec": "fact", "threshold": 0.5}])


def test_a_metric_without_a_threshold_is_built_as_before() -> None:
    [metric] = build_metrics(["rouge_l"])

    assert type(metric) is metric_class("rouge_l")  # not wrapped
    assert metric.meanings()["rouge_l"].threshold is None


def test_a_counting_reducer_takes_the_metrics_threshold_as_its_pass() -> None:
    [metric] = build_metrics(
        [{"metric": "rouge_l", "threshold": 0.4, "reduce": "pass_at_k", "reduce_k": 2}], trials=3
    )

    reduce = metric.meanings()["rouge_l"].trials_reduce
    assert reduce is not None and reduce.threshold == 0.4


def test_a_counting_reducer_without_either_threshold_is_still_refused() -> None:
    with pytest.raises(ConfigError, match="needs 'pass_threshold'"):
        build_metrics([{"metric": "rouge_l", "reduce": "pass_at_k", "reduce_k": 2}], trials=3)

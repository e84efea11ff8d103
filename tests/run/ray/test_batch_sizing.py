"""The batch size of a run on Ray when ``ray.batch_size`` is not set: about ten seconds
of a worker's work for a judged run, the largest batch without judge calls."""

from __future__ import annotations

from ragjudge.metrics import create_metric
from ragjudge.run.ray._batch_sizing import (
    LARGEST_BATCH,
    batch_size_for_work,
    judge_calls_per_sample,
)


def test_a_run_without_judge_calls_sends_the_largest_batches() -> None:
    calls = judge_calls_per_sample(
        [create_metric("rouge_l")], trials=1, expected_calls=None, samples=9
    )
    assert calls == 0.0
    assert batch_size_for_work(calls, concurrency=4, workers=2, rpm=None) == LARGEST_BATCH


def test_a_judged_batch_holds_about_ten_seconds_of_calls() -> None:
    # one call a sample, 4 at a time at 2 s a call: 0.5 s a sample, 20 samples
    assert batch_size_for_work(1.0, concurrency=4, workers=2, rpm=None) == 20
    # three calls a sample: a third as many samples
    assert batch_size_for_work(3.0, concurrency=4, workers=2, rpm=None) == 6


def test_an_rpm_limit_shared_by_the_workers_makes_batches_smaller() -> None:
    # 60 rpm over 4 workers: a worker gets a call every 4 s, so 2 samples in 10 s
    assert batch_size_for_work(1.0, concurrency=8, workers=4, rpm=60) == 2
    assert batch_size_for_work(1.0, concurrency=8, workers=4, rpm=60_000) == 40


def test_the_dry_runs_count_of_calls_wins_over_one_a_judged_metric() -> None:
    judged = [create_metric("answer_accuracy"), create_metric("rouge_l")]
    assert judge_calls_per_sample(judged, trials=2, expected_calls=None, samples=10) == 2.0
    assert judge_calls_per_sample(judged, trials=2, expected_calls=50, samples=10) == 5.0


def test_a_very_slow_sample_still_makes_a_batch_of_one() -> None:
    assert batch_size_for_work(100.0, concurrency=1, workers=1, rpm=None) == 1

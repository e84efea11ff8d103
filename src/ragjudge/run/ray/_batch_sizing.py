"""How many samples go in one batch when ``ray.batch_size`` is not set: for a judged
run, as many as take about :data:`TARGET_BATCH_SECONDS` of work, so a worker or driver
that dies mid-batch leaves little work to redo; without judge calls, a fixed
:data:`LARGEST_BATCH` (lexical metrics take milliseconds a sample)."""

from __future__ import annotations

from collections.abc import Sequence

from ragjudge.metrics import Metric

__all__ = [
    "LARGEST_BATCH",
    "TARGET_BATCH_SECONDS",
    "TYPICAL_CALL_SECONDS",
    "batch_size_for_work",
    "judge_calls_per_sample",
]

LARGEST_BATCH = 256
"""The batch size of a run without judge calls, and the most any batch holds."""

TARGET_BATCH_SECONDS = 10.0
"""Seconds of work a judged run's batch aims at."""

TYPICAL_CALL_SECONDS = 2.0
"""What one judge call is assumed to take before any has returned."""


def judge_calls_per_sample(
    metrics: Sequence[Metric], trials: int, expected_calls: int | None, samples: int
) -> float:
    """Judge calls a sample makes: the dry run's count over the samples when known,
    else one per judged metric and trial (a lower bound)."""
    if expected_calls is not None and samples > 0:
        return expected_calls / samples
    return float(sum(1 for m in metrics if m.needs_judge) * trials)


def batch_size_for_work(
    calls_per_sample: float, *, concurrency: int, workers: int, rpm: int | None
) -> int:
    """Samples in :data:`TARGET_BATCH_SECONDS` of one worker's work: its
    ``concurrency`` samples at a time at :data:`TYPICAL_CALL_SECONDS` a call, or its
    share of the endpoint's ``rpm`` across ``workers`` when that is slower."""
    if calls_per_sample <= 0:
        return LARGEST_BATCH
    by_latency = calls_per_sample * TYPICAL_CALL_SECONDS / max(1, concurrency)
    by_rate = calls_per_sample * 60.0 * max(1, workers) / rpm if rpm else 0.0
    seconds_per_sample = max(by_latency, by_rate)
    return max(1, min(LARGEST_BATCH, int(TARGET_BATCH_SECONDS / seconds_per_sample)))

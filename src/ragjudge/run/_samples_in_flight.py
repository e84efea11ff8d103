"""How many samples a run keeps in flight: the config's ``concurrency`` when it is set,
otherwise as many as the judge's calls keep busy — the judge's places, which follow its
limits and latency (see :mod:`ragjudge.models._concurrency`), and at least
:data:`MIN_SAMPLES_IN_FLIGHT`."""

from __future__ import annotations

from collections.abc import Callable

from ragjudge.config import EvalConfig
from ragjudge.config._eval import MAX_CONCURRENCY
from ragjudge.models import JudgeModel, Limiter
from ragjudge.models._semaphore import SharedSemaphore

__all__ = ["MIN_SAMPLES_IN_FLIGHT", "InFlight", "sample_gate", "samples_in_flight"]

MIN_SAMPLES_IN_FLIGHT = 8
"""Samples in flight at least when they follow the judge (their targets and CPU-only
metrics need no judge place)."""

InFlight = int | Callable[[], int]
"""Samples in flight: a number, or a function asked each time a sample may start."""


def samples_in_flight(config: EvalConfig, judge: JudgeModel | None) -> InFlight:
    """The samples ``config``'s run keeps in flight with ``judge`` as its judge."""
    if "concurrency" in config.model_fields_set or judge is None:
        return config.concurrency
    limiter = judge.limiter
    if not isinstance(limiter, Limiter):  # a permit source shared by processes
        return config.concurrency

    def following() -> int:
        return min(MAX_CONCURRENCY, max(MIN_SAMPLES_IN_FLIGHT, limiter.concurrency()))

    return following


def sample_gate(in_flight: InFlight) -> SharedSemaphore:
    """The semaphore samples take a place of before they start."""
    if callable(in_flight):
        return SharedSemaphore(in_flight)
    return SharedSemaphore(lambda: in_flight)

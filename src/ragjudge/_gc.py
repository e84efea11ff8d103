"""The garbage collector during a run.

Loading an evaluation set and scoring it with cheap metrics allocate fast and keep most
of what they allocate (the samples, their scores). With Python's default thresholds
(700, 10, 10) the cyclic collector then walks every loaded sample again and again — a
tenth of a lexical run's time. Objects are still freed as soon as nothing refers to
them; only the passes that look for reference cycles come less often.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["THRESHOLDS", "fewer_collections"]

THRESHOLDS = (10_000, 10, 10)
"""The collector's thresholds while a run loads and evaluates its samples."""


@contextmanager
def fewer_collections() -> Iterator[None]:
    """Raise the collector's thresholds to at least :data:`THRESHOLDS` inside the block
    and restore them afterwards."""
    before = gc.get_threshold()
    gc.set_threshold(*(max(mine, theirs) for mine, theirs in zip(THRESHOLDS, before, strict=True)))
    try:
        yield
    finally:
        gc.set_threshold(*before)

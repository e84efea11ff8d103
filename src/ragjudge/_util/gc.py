"""The garbage collector during a run.

Loading an evaluation set and scoring it with cheap metrics allocate fast and keep most
of what they allocate (the samples, their scores). With Python's default thresholds
(700, 10, 10) the cyclic collector then walks every loaded sample again and again — a
tenth of a lexical run's time. Objects are still freed as soon as nothing refers to
them; only the passes that look for reference cycles come less often.

The ``ragjudge`` command goes further, because what it loads lives until it ends: it
loads its modules, and a run the evaluation set it holds whole, with the collector
paused, then freezes them (:func:`gc.freeze`), so no later pass walks them and the
scoring workers forked from it share their memory pages rather than copy them when a
pass would touch them. A set read page by page (a Parquet folder on Ray, a resumed
run's stored samples) is read with the collector on, so the pages' garbage is freed
rather than frozen. A program that calls :func:`ragjudge.evaluate` keeps its objects
collectable: there only the thresholds are raised, and only during the run.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager

__all__ = [
    "THRESHOLDS",
    "command_owns_process",
    "fewer_collections",
    "kept_for_good",
    "loading",
]

THRESHOLDS = (10_000, 10, 10)
"""The collector's thresholds while a run loads and evaluates its samples."""

_command = False


def command_owns_process() -> None:
    """Declare this process the ``ragjudge`` command's: what it loads lives until the
    command ends (see :func:`kept_for_good`)."""
    global _command
    _command = True


@contextmanager
def kept_for_good(*, paused: bool = False) -> Iterator[None]:
    """In the command's own process, freeze what exists when the block ends (the loaded
    modules or samples): later passes skip it. ``paused``: the collector is also off
    inside the block — for loads whose result is held whole and which leave next to no
    cyclic garbage (imports, an evaluation set read at once); a read page by page keeps
    it on. Elsewhere (a program calling the API) the block runs as it is."""
    if not _command:
        yield
        return
    enabled = gc.isenabled()
    if paused:
        gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if enabled:
            gc.enable()


def loading(*, held_whole: bool) -> AbstractContextManager[None]:
    """The collector policy of loading a run's samples: a set held whole is read with
    the collector paused and frozen once loaded; a set read page by page keeps it on, so
    its pages' garbage is freed rather than frozen (both only in the command's process,
    see :func:`kept_for_good`)."""
    return kept_for_good(paused=held_whole)


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

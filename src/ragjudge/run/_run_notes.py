"""What a run tells the person running it and records with itself: the notes of
preparing and executing it, warnings, where its judges' prices come from, and the
versions it ran with."""

from __future__ import annotations

import functools
import platform
from collections.abc import Sequence

from rich.console import Console

from ragjudge._version import __version__
from ragjudge.config import EvalConfig
from ragjudge.metrics import Metric
from ragjudge.run._judging import prices_of
from ragjudge.store._events import NOTE
from ragjudge.store._store import Store

__all__ = ["prices_note", "record_notes", "tell", "versions", "warn"]


def prices_note(config: EvalConfig, metrics: Sequence[Metric]) -> list[str]:
    """Where each judge's prices come from (or why it has none), for the run's notes."""
    if not any(m.needs_judge for m in metrics):
        return []
    judges = config.judges or ({"": config.judge} if config.judge is not None else {})
    notes = []
    for name, judge in judges.items():
        if judge.model == "scripted":
            continue
        prices = prices_of(judge)
        source = prices.source(judge.model)
        found = f"prices: {source}" if source is not None else prices.missing_reason(judge.model)
        notes.append(f"judge {name}: {found}" if name else f"judge {found}")
    return notes


def warn(text: str) -> None:
    """A warning line on standard error, shown with or without the progress display."""
    Console(stderr=True).print(f"warning: {text}", highlight=False, markup=False, soft_wrap=True)


def tell(notes: list[str], progress: bool) -> None:
    """Say what preparing the run decided (the format assumed, rows skipped …) before
    the progress bar; the summary repeats it."""
    if progress:
        console = Console(stderr=True)
        for note in notes:
            console.print(f"note: {note}", highlight=False, markup=False, soft_wrap=True)


def record_notes(store: Store, run_id: str, notes: Sequence[str]) -> None:
    """Add what the run's execution found worth telling (an endpoint that refused reply
    schemas) to its notes; a note a resumed run already holds is not repeated."""
    held = {event.get("text") for event in store.run_events(run_id, NOTE)}
    for note in notes:
        if note not in held:
            store.add_run_event(run_id, NOTE, {"text": note})


def versions() -> dict[str, str]:
    """ragjudge's, Python's and the scoring libraries' versions, stored with each run
    (read from the installed packages once per process)."""
    return dict(_installed_versions())


@functools.cache
def _installed_versions() -> dict[str, str]:
    from importlib.metadata import PackageNotFoundError, version

    found = {"ragjudge": __version__, "python": platform.python_version()}
    for package in ("pydantic", "numpy", "scipy", "bm25s", "fugashi"):
        try:
            found[package] = version(package)
        except PackageNotFoundError:
            continue
    return found

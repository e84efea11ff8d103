"""The progress of a run: a rich progress bar of the samples with the time left at a
terminal, plain text lines in a notebook without ipywidgets (rich would warn "install
ipywidgets" on every call), and on either a status that the bar redraws several times a
second: the judge calls finished and in flight (a run of few samples with many calls
each moves from its first call) and the rate-limit events (429s, a pause under way as
a countdown, retries)."""

from __future__ import annotations

import asyncio
import importlib.util
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import IO, Protocol

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    Task,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.text import Text

__all__ = ["Tracker", "progress_display", "report_calls"]

SAMPLES = "samples"

Status = Callable[[], str]
"""A line saying what the judge layer is going through (empty when nothing)."""


class Tracker(Protocol):
    """What a run reports its progress to."""

    def start(self, total: int, completed: int) -> None:
        """``completed`` of ``total`` samples are done before the run starts."""

    def advance(self) -> None:
        """One more sample is done."""

    def calls(self, done: int, expected: int | None) -> None:
        """``done`` judge calls finished of the ``expected`` ones (``None``: unknown)."""


@contextmanager
def progress_display(
    enabled: bool, status: Status | None = None, console: Console | None = None
) -> Iterator[Tracker]:
    """A tracker that shows the run's progress on standard error (nothing when not
    ``enabled``), with ``status`` beside it."""
    if not enabled:  # a disabled bar still counts every sample under its lock
        yield _SilentTracker()
        return
    console = console or Console(stderr=True)
    if console.is_jupyter and not _has_widgets():
        yield _TextTracker(console.file, status)
        return
    bar = Progress(
        TextColumn("[progress.description]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("ETA"),
        TimeRemainingColumn(),
        _StatusColumn(status),
        console=console,
        transient=False,
    )
    with bar:
        yield _BarTracker(bar)


def _has_widgets() -> bool:
    """Whether rich can draw its live display in a notebook (it needs both)."""
    return all(importlib.util.find_spec(name) is not None for name in ("ipywidgets", "IPython"))


class _SilentTracker:
    """Progress shown nowhere (``--no-progress``)."""

    def start(self, total: int, completed: int) -> None:
        pass

    def advance(self) -> None:
        pass

    def calls(self, done: int, expected: int | None) -> None:
        pass


class _StatusColumn(ProgressColumn):
    def __init__(self, status: Status | None) -> None:
        super().__init__()
        self.status = status

    def render(self, task: Task) -> Text:
        if task.description != SAMPLES:
            return Text("")  # once, beside the samples
        text = self.status() if self.status is not None else ""
        return Text(text, style="yellow")


class _BarTracker:
    def __init__(self, bar: Progress) -> None:
        self.bar = bar
        self.task = bar.add_task(SAMPLES, total=0)
        self.calls_task: TaskID | None = None

    def start(self, total: int, completed: int) -> None:
        self.bar.update(self.task, total=total, completed=completed)

    def advance(self) -> None:
        self.bar.advance(self.task)

    def calls(self, done: int, expected: int | None) -> None:
        if expected is None:
            return  # the status says how many are done
        if self.calls_task is None:
            self.calls_task = self.bar.add_task("judge calls", total=expected)
        self.bar.update(self.calls_task, completed=min(done, expected))


class _TextTracker:
    """Progress as text lines: at the start, every tenth of the way (and at least every
    ``every`` seconds), and at the end."""

    def __init__(self, file: IO[str] | None, status: Status | None, every: float = 10.0) -> None:
        self.file = file or sys.stderr
        self.status = status
        self.every = every
        self.total = self.done = 0
        self.calls_line = ""
        self.shown_at = 0.0
        self.shown_step = -1

    def start(self, total: int, completed: int) -> None:
        self.total, self.done = total, completed
        self._show()

    def advance(self) -> None:
        self.done += 1
        step = self.done * 10 // max(1, self.total)
        if step != self.shown_step or time.monotonic() - self.shown_at >= self.every:
            self._show()

    def calls(self, done: int, expected: int | None) -> None:
        if done or expected:
            self.calls_line = f"judge calls: {done}" + (f"/{expected}" if expected else "")

    def _show(self) -> None:
        self.shown_step = self.done * 10 // max(1, self.total)
        self.shown_at = time.monotonic()
        note = self.status() if self.status is not None else ""
        line = f"evaluating: {self.done}/{self.total}"
        line += "".join(f" · {part}" for part in (self.calls_line, note) if part)
        print(line, file=self.file, flush=True)


CALLS_SHOWN_EVERY = 0.25
"""Seconds between two updates of the judge calls the progress shows."""


async def report_calls(tracker: Tracker, done: Callable[[], int], expected: int | None) -> None:
    """Give ``tracker`` the judge calls done, several times a second, until cancelled: a
    run of few samples with many calls each moves from its first call."""
    while True:
        tracker.calls(done(), expected)
        await asyncio.sleep(CALLS_SHOWN_EVERY)

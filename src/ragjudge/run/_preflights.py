"""The pre-flight questions of a run whose judge calls are made in this process.

Each model is asked (:func:`~ragjudge.run._judging.ask_preflight`) when its first
request is about to go out to the provider, in the background: no call waits for the
answer, the question takes a permit from the model's limiter like any call, and a run
whose every call is in the reply cache never asks it (so it completes with the endpoint
down). When a model does not answer, :attr:`Preflights.failure` carries the
:class:`~ragjudge.run._judging.JudgeUnavailable`; the execution watches it and stops.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from contextlib import contextmanager

from ragjudge.models import CallRecorder, JudgeModel
from ragjudge.run._judging import JudgeUnavailable, ask_preflight
from ragjudge.store._events import NOTE
from ragjudge.store._store import Store

__all__ = ["Preflights", "preflight_failure_noted"]


class Preflights:
    """The pre-flight questions of one run's models, each started by its model's first
    request (see the module docstring)."""

    def __init__(self) -> None:
        self._tasks: list[asyncio.Task[None]] = []
        self._failure: asyncio.Future[None] | None = None

    def ask_at_first_request(self, model: JudgeModel, recorder: CallRecorder) -> None:
        """Ask ``model`` the question, recorded by ``recorder``, when its first request
        goes out."""
        if model.provider.name == "scripted":
            return

        def start() -> None:
            task = asyncio.ensure_future(ask_preflight(model, recorder))
            task.add_done_callback(self._settled)
            self._tasks.append(task)

        model.before_first_request = start

    @property
    def failure(self) -> asyncio.Future[None]:
        """Fails with the first :class:`JudgeUnavailable`; never done otherwise."""
        if self._failure is None:
            self._failure = asyncio.get_running_loop().create_future()
        return self._failure

    @property
    def started(self) -> int:
        """The questions asked so far."""
        return len(self._tasks)

    async def settled(self) -> None:
        """Wait for the questions under way (each is short: at most one retry and a
        timeout of at most 30 s); raise the first model's :class:`JudgeUnavailable`."""
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)
        if self._failure is not None and self._failure.done():
            self._failure.result()

    async def cancel(self) -> None:
        """Stop the questions still under way (the run ended without their answers)."""
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    def _settled(self, task: asyncio.Task[None]) -> None:
        if task.cancelled():
            return
        error = task.exception()
        if error is None:
            return
        failure = self.failure
        if not failure.done():
            failure.set_exception(error)
            failure.exception()  # marked seen: a run that ended first never raises it


@contextmanager
def preflight_failure_noted(store: Store, run_id: str) -> Iterator[None]:
    """Record why the run stopped when a model did not answer its pre-flight question,
    so the run list and the summary say it beside the failed run."""
    try:
        yield
    except JudgeUnavailable as exc:
        store.add_run_event(run_id, NOTE, {"text": str(exc)})
        raise

"""The driver's pool of Ray workers: started in whole CPUs within a time limit, and
kept alive through lost workers and nodes.

Batches are not pinned to a worker: a batch whose worker died (its process killed, its
node stopped or unreachable) is handed to any live worker, up to ``ray.max_retries``
times. A dead worker is dropped at once and a new one is started in its place; the new
one joins the pool only once it is up, so a replacement that waits for a CPU the
cluster no longer has never holds a batch. A run left with no live worker (and none
starting within ``ray.start_timeout``) stops with a :class:`ClusterError`.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

import ray

from ragjudge.config._ray import ClusterError, RayConfig

__all__ = ["WorkerPool", "ray_error_line", "worker_count"]


def worker_count(settings: RayConfig, cluster_cpus: float) -> tuple[int, str | None]:
    """How many workers to start (one whole CPU each), and a note when fewer than
    ``ray.workers`` asked for fit the cluster's whole CPUs."""
    whole = max(1, int(cluster_cpus))
    asked = settings.workers
    if asked is None:
        return min(64, whole), None
    if asked <= whole:
        return asked, None
    return whole, (
        f"ray.workers asks for {asked} workers but the Ray cluster has {whole} whole "
        f"CPU{'s' if whole != 1 else ''}: {whole} worker{'s' if whole != 1 else ''} "
        "started (each takes one CPU)"
    )


@dataclass
class _Worker:
    handle: Any
    load: int = 0
    """Batches sent to it and not back yet."""


@dataclass
class WorkerPool:
    """Live workers, and replacements starting; see the module docstring."""

    actor: Any
    """The worker actor class (with its options)."""
    setup_ref: Any
    """The object every worker is built from (kept in Ray's object store)."""
    settings: RayConfig
    live: dict[int, _Worker] = field(default_factory=dict)
    starting: dict[asyncio.Future[Any], tuple[int, Any]] = field(default_factory=dict)
    """A replacement's ``ready`` call → its number and handle."""
    lost: int = 0
    """Workers that died during the run."""
    _numbers: int = 0

    async def start(self, count: int) -> None:
        """Start ``count`` workers and wait until each is up; a :class:`ClusterError`
        naming how many started when they are not all up within ``ray.start_timeout``."""
        for _ in range(count):
            self._launch()
        timeout = self.settings.start_timeout
        done, pending = await asyncio.wait(list(self.starting), timeout=timeout)
        for future in done:
            self._joined(future)
        if pending or len(self.live) < count:
            started = len(self.live)
            self.stop()
            raise ClusterError(
                f"{started} of {count} Ray workers started within {timeout:g} s "
                "(ray.start_timeout): the cluster has no room for the others (each needs "
                "one CPU) or they failed to start; ask for fewer workers (ray.workers) or "
                "give them longer"
            )

    def free(self, per_worker: int) -> int | None:
        """The least loaded live worker with room for another batch, or None."""
        room = [n for n, w in self.live.items() if w.load < per_worker]
        return min(room, key=lambda n: self.live[n].load) if room else None

    def send(self, number: int, *args: Any) -> asyncio.Future[Any]:
        """``run_batch(*args)`` on worker ``number``."""
        worker = self.live[number]
        worker.load += 1
        return asyncio.wrap_future(worker.handle.run_batch.remote(*args).future())

    def returned(self, number: int) -> None:
        """A batch of worker ``number`` came back."""
        if number in self.live:
            self.live[number].load -= 1

    def died(self, number: int) -> None:
        """Drop worker ``number`` (its batch failed with an actor error) and start one
        in its place, while the run has not lost more workers than it may replace."""
        worker = self.live.pop(number, None)
        if worker is None:
            return
        self.lost += 1
        ray.kill(worker.handle)
        if self.lost <= self.replaceable:
            self._launch()

    @property
    def replaceable(self) -> int:
        """How many lost workers a run replaces at most: each batch is retried at most
        ``max_retries`` times, so more replacements than that per worker serve none."""
        return max(1, self.settings.max_retries) * max(1, len(self.live) + self.lost)

    def joined(self, future: asyncio.Future[Any]) -> None:
        """A replacement's ``ready`` call finished: it joins the pool, or is dropped."""
        self._joined(future)

    async def replacement(self) -> None:
        """With no live worker left: wait up to ``ray.start_timeout`` for a replacement
        to come up; a :class:`ClusterError` when none does."""
        timeout = self.settings.start_timeout
        while self.starting and not self.live:
            done, _ = await asyncio.wait(
                list(self.starting), timeout=timeout, return_when=asyncio.FIRST_COMPLETED
            )
            if not done:
                break
            for future in done:
                self._joined(future)
        if not self.live:
            raise ClusterError(
                f"no Ray worker left: {self.lost} died (or lost their node) and none "
                f"could start in their place within {timeout:g} s (ray.start_timeout)"
            )

    def stop(self) -> None:
        """Stop every worker, live or starting."""
        for worker in self.live.values():
            ray.kill(worker.handle)
        for future, (_, handle) in self.starting.items():
            future.cancel()  # its failure, once killed, is of no interest
            ray.kill(handle)
        self.live, self.starting = {}, {}

    def _launch(self) -> None:
        handle = self.actor.remote(self.setup_ref)
        self._numbers += 1
        future = asyncio.wrap_future(handle.ready.remote().future())
        self.starting[future] = (self._numbers, handle)

    def _joined(self, future: asyncio.Future[Any]) -> None:
        number, handle = self.starting.pop(future)
        error = future.exception()
        if error is None:
            self.live[number] = _Worker(handle)
            return
        ray.kill(handle)
        if not isinstance(error, ray.exceptions.RayActorError):
            raise ClusterError(f"a Ray worker failed to start: {ray_error_line(error)}")


def ray_error_line(error: BaseException) -> str:
    """The last non-empty line of a Ray error (its cause), without the traceback."""
    lines = [line for line in str(error).splitlines() if line.strip()]
    return lines[-1] if lines else type(error).__name__

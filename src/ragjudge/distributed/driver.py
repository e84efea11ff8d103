"""The driver of a run on Ray: connect to (or start) the cluster, start the permit
keepers and the workers, send the pending samples in batches, and write what comes
back to the store — the only writer, batch by batch, through the same
:class:`~ragjudge.store_batch.ResultWriter` as a local run.

Memory on the driver: the run's samples (as in a local run: prepared and checked
before any work, and stored with the run), the outputs and score keys stored before a
resumed execution, the rows waiting for the next commit (at most
:data:`~ragjudge.store_batch.BATCH_ROWS`), and at most ``workers × batches_per_worker``
batches in flight — their samples and their results. New results are not kept once
written (a local run keeps its outputs).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import ray
from ray.exceptions import RayActorError, RayTaskError

from ragjudge.config import ConfigError, EvalConfig
from ragjudge.distributed.permits import PermitKeeper, RemotePermits
from ragjudge.distributed.worker import (
    Batch,
    BatchResult,
    SampleWorker,
    WorkerSetup,
    limiter_key,
    peak_rss_mb,
)
from ragjudge.execution import Execution
from ragjudge.judging import StoreRecorder
from ragjudge.metrics import Metric, MetricContext
from ragjudge.models import PriceTable, Provider, RateLimits, ResponseCache
from ragjudge.models.limits import Limiter
from ragjudge.progress import progress_display
from ragjudge.ray_settings import ClusterError, RayConfig, cluster_address
from ragjudge.schema import Sample
from ragjudge.store import Store
from ragjudge.targets import Target

__all__ = ["RAY_EXECUTION", "RayExecution", "Timings", "ray_session"]

RAY_EXECUTION = "ray_execution"
"""The run event of one execution on Ray: workers, batches and where the time went
(:meth:`Timings.to_dict`)."""

_LEASE_MARGIN = 60.0
"""Seconds beyond a model's timeout after which a permit whose worker died comes back."""


@contextmanager
def ray_session(settings: RayConfig | None) -> Iterator[None]:
    """Ray connected for the run: the one already initialised in this process, the
    cluster at ``ray.address`` or ``RAY_ADDRESS``, else a local one (stopped after)."""
    if ray.is_initialized():
        yield
        return
    settings = settings or RayConfig()
    address = cluster_address(settings)
    try:
        ray.init(
            address=address,
            num_cpus=settings.num_cpus if address is None else None,
            include_dashboard=False,
            log_to_driver=False,
            logging_level=logging.WARNING,
        )
    except (ValueError, ConnectionError, RuntimeError, TimeoutError) as exc:
        where = "ray.address" if settings.address else "RAY_ADDRESS"
        raise ConfigError(
            f"{where}: cannot connect to a Ray cluster at {address!r}: {exc}"
        ) from None
    try:
        yield
    finally:
        ray.shutdown()


@dataclass
class Timings:
    """Where the driver's time went (seconds), for benchmarks."""

    waiting: float = 0.0
    """Waiting for batch results (the workers computing, plus transfer)."""
    writing: float = 0.0
    """Storing results (judge calls, outputs, scores, cache entries)."""
    dispatching: float = 0.0
    """Building batches and submitting them (serialising samples)."""
    worker_seconds: float = 0.0
    """The time workers spent on their batches, summed."""
    batches: int = 0
    workers: int = 0
    worker_peak_rss_mb: dict[int, float] = field(default_factory=dict)
    """Per worker process, its peak resident memory."""

    def to_dict(self) -> dict[str, Any]:
        """JSON-able form, with the driver's own peak memory."""
        return {
            "workers": self.workers,
            "batches": self.batches,
            "dispatching_s": round(self.dispatching, 3),
            "waiting_s": round(self.waiting, 3),
            "writing_s": round(self.writing, 3),
            "worker_busy_s": round(self.worker_seconds, 3),
            "worker_peak_rss_mb": round(max(self.worker_peak_rss_mb.values(), default=0.0), 1),
            "driver_peak_rss_mb": round(peak_rss_mb(), 1),
        }


class RayExecution(Execution):
    """:class:`Execution` whose samples are evaluated by Ray workers; this process
    keeps the store (see the module docstring)."""

    def __init__(
        self,
        store: Store,
        run_id: str,
        metrics: Sequence[Metric],
        trials: int,
        context: MetricContext,
        agent_models: dict[str, dict[str, Any]],
        *,
        config: EvalConfig,
        cache: ResponseCache | None,
        given_metrics: bool = False,
        given_target: Target | None = None,
        provider: Provider | None = None,
    ) -> None:
        super().__init__(store, run_id, metrics, trials, context, agent_models)
        self.config = config
        self.settings = config.ray or RayConfig()
        self.cache = cache
        self.given_metrics = list(metrics) if given_metrics else None
        self.given_target = given_target
        self.provider = provider
        prices = config.judge.prices if config.judge is not None else None
        self.recorder = StoreRecorder(
            store, run_id, PriceTable.from_dict(prices) if prices else None
        )
        self.timings = Timings()
        self.keepers: dict[str, Any] = {}
        self.worker_handles: list[Any] = []
        self._stored: dict[str, list[tuple[str, int, str]]] = {}
        self._setup_ref: Any = None

    async def run(self, samples: Sequence[Sample], concurrency: int, progress: bool) -> None:
        """Evaluate every sample that is not done on the cluster's workers."""
        todo = [s for s in samples if not self.is_done(s)]
        for key in self.finished:  # a resumed run's stored scores, by sample
            self._stored.setdefault(key[0], []).append(key)
        with progress_display(progress, status=self.rate_status) as tracker:
            tracker.start(len(samples), len(samples) - len(todo))
            with ray_session(self.config.ray):
                try:
                    self._start_keepers()
                    await self._start_workers()
                    await self._dispatch(todo, concurrency, tracker)
                finally:
                    self.writer.flush()
                    self._stop()
                    self.store.add_run_event(self.run_id, RAY_EXECUTION, self.timings.to_dict())

    def _start_keepers(self) -> None:
        keeper_actor = _actor_class(PermitKeeper, num_cpus=0, max_concurrency=10_000)
        for model in self.models:
            key = limiter_key(model)
            if key in self.keepers:
                model.limiter = RemotePermits(self.keepers[key])
                continue
            limits = model.limiter.limits if isinstance(model.limiter, Limiter) else RateLimits()
            keeper = keeper_actor.remote(limits, model.settings.timeout + _LEASE_MARGIN)
            self.keepers[key] = keeper
            model.limiter = RemotePermits(keeper)

    async def _start_workers(self) -> None:
        resources: dict[str, float] = ray.cluster_resources()  # type: ignore[no-untyped-call]
        cpus = float(resources.get("CPU", 1.0))
        count = self.settings.workers or max(1, min(64, int(cpus)))
        retries = self.settings.max_retries
        worker_actor = _actor_class(
            SampleWorker,
            num_cpus=min(1.0, cpus / count),
            max_restarts=retries,
            max_task_retries=retries,
            max_concurrency=1,  # one batch at a time: its calls and cache entries are its own
        )
        setup = WorkerSetup(
            config=self.config,
            keepers=self.keepers,
            cache_path=self.cache.path if self.cache is not None else None,
            metrics=self.given_metrics,
            target=self.given_target,
            provider=self.provider,
        )
        # held for the run: a restarted worker is built from it again
        self._setup_ref = ray.put(setup)
        self.worker_handles = [worker_actor.remote(self._setup_ref) for _ in range(count)]
        self.timings.workers = count
        await asyncio.gather(
            *(asyncio.wrap_future(w.ready.remote().future()) for w in self.worker_handles)
        )

    async def _dispatch(self, todo: list[Sample], concurrency: int, tracker: Any) -> None:
        size = self.settings.batch_size
        queued = self.settings.batches_per_worker
        load = {i: 0 for i in range(len(self.worker_handles))}
        waiting: dict[asyncio.Future[BatchResult], tuple[int, int]] = {}
        for start in range(0, len(todo), size):
            while len(waiting) >= queued * len(self.worker_handles):
                await self._collect(waiting, load, tracker)
            begun = time.perf_counter()
            worker = min(load, key=load.__getitem__)
            batch = self._batch(todo[start : start + size])
            ref = self.worker_handles[worker].run_batch.remote(batch, concurrency)
            waiting[asyncio.wrap_future(ref.future())] = (worker, len(batch.samples))
            load[worker] += 1
            self.timings.dispatching += time.perf_counter() - begun
        while waiting:
            await self._collect(waiting, load, tracker)

    def _batch(self, samples: list[Sample]) -> Batch:
        """The samples with what is stored for them (a resumed run's outputs and scores)."""
        ids = [s.request_id for s in samples]
        return Batch(
            samples=samples,
            outputs={rid: self.outputs[rid] for rid in ids if rid in self.outputs},
            finished={key for rid in ids for key in self._stored.get(rid, ())},
        )

    async def _collect(
        self,
        waiting: dict[asyncio.Future[BatchResult], tuple[int, int]],
        load: dict[int, int],
        tracker: Any,
    ) -> None:
        begun = time.perf_counter()
        done, _ = await asyncio.wait(waiting, return_when=asyncio.FIRST_COMPLETED)
        self.timings.waiting += time.perf_counter() - begun
        for future in done:
            worker, count = waiting.pop(future)
            load[worker] -= 1
            try:
                result = future.result()
            except (RayActorError, RayTaskError) as exc:
                raise ClusterError(
                    f"a Ray worker failed beyond {self.settings.max_retries} retries: {exc}"
                ) from None
            begun = time.perf_counter()
            await self._write(result)
            self.timings.writing += time.perf_counter() - begun
            self.timings.worker_seconds += result.seconds
            self.timings.batches += 1
            self.timings.worker_peak_rss_mb[result.pid] = result.peak_rss_mb
            for _ in range(count):
                tracker.advance()

    async def _write(self, result: BatchResult) -> None:
        """Store a batch's judge calls (new ids), outputs and new scores, as a local
        run does; results already stored (a batch sent twice) are left out."""
        ids = {local: await self.recorder(record) for local, record in result.calls}
        # Only what was stored before the run is kept in memory (to send with batches
        # and leave out here): new results go to the store and are not held.
        for rid, output in result.outputs:
            if rid not in self.outputs:
                self.writer.output(rid, output)
        for rid, trial, scores in result.scores:
            new = [
                s.model_copy(update={"judge_call_ids": [ids.get(i, i) for i in s.judge_call_ids]})
                if s.judge_call_ids
                else s
                for s in scores
                if (rid, trial, s.metric) not in self.finished
            ]
            if new:
                self.writer.scores(rid, trial, new)
        if self.cache is not None:
            for key, value in result.cache.items():
                self.cache.put(key, value)

    def _stop(self) -> None:
        """Keep the keepers' last counters, then stop the workers and keepers."""
        for model in self.models:
            if isinstance(model.limiter, RemotePermits):
                model.limiter.freeze()
        for handle in [*self.worker_handles, *self.keepers.values()]:
            ray.kill(handle)
        self.worker_handles, self.keepers, self._setup_ref = [], {}, None


def _actor_class(cls: type, **options: Any) -> Any:
    """``cls`` as a Ray actor class with ``options`` (Ray's stubs do not cover them all)."""
    remote: Any = ray.remote
    return remote(**options)(cls)

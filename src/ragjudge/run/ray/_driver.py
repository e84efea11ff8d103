"""The driver of a run on Ray: connect to (or start) the cluster, start the permit
keepers and the workers, send the run's samples in batches, and write what comes
back to the store — the only writer, batch by batch, through the same
:class:`~ragjudge.store._batch.ResultWriter` as a local run.

The samples are read back from the store a page (one batch) at a time, by position,
as workers free up; a resumed run asks the store for each page's stored outputs and
score keys and sends only what is missing. Memory on the driver: at most
``workers × batches_per_worker`` batches in flight — their samples, what is stored for
them and their results — and the rows waiting for the next commit (at most
:data:`~ragjudge.store._batch.BATCH_ROWS`). Nothing grows with the number of rows.
"""

from __future__ import annotations

import asyncio
import logging
import sys
import time
from collections import deque
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import ray
from ray.exceptions import RayActorError, RayTaskError
from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

from ragjudge.config import ConfigError, EvalConfig
from ragjudge.config._ray import ClusterError, RayConfig, cluster_address
from ragjudge.errors import TargetSetupError
from ragjudge.metrics import Metric, MetricContext
from ragjudge.models import Provider, RateLimits, ResponseCache
from ragjudge.models._limits import Limiter
from ragjudge.models._pricing import UsageTotals
from ragjudge.run._execution import Execution
from ragjudge.run._judging import StoreRecorder, prices_of
from ragjudge.run._progress import progress_display
from ragjudge.run.ray._permits import PermitKeeper, RemotePermits
from ragjudge.run.ray._pool import WorkerPool, ray_error_line, worker_count
from ragjudge.run.ray._worker import (
    Batch,
    BatchResult,
    SampleWorker,
    WorkerSetup,
    limiter_key,
    peak_rss_mb,
)
from ragjudge.schema import Output, Sample
from ragjudge.store._events import NOTE
from ragjudge.store._store import Store
from ragjudge.targets._targets import Target

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
        if given_target is not None:
            require_shippable(given_target)
        self.provider = provider
        self.recorder = StoreRecorder(store, run_id, prices_of(config.judge))
        self.timings = Timings()
        self.keepers: dict[str, Any] = {}
        self.pool: WorkerPool | None = None
        self._setup_ref: Any = None

    def stored_results(self) -> tuple[set[tuple[str, int, str]], dict[str, Output]]:
        """Nothing held for the run: what is stored is read per page (:meth:`_pages`)."""
        return set(), {}

    async def run(self, samples: Sequence[Sample], concurrency: int, progress: bool) -> None:
        """Evaluate every stored sample of the run that is not done on the cluster's
        workers (``samples`` are the run's, as stored: they are read back in pages)."""
        total = self.store.run(self.run_id).n_samples
        with progress_display(progress, status=self.rate_status) as tracker:
            tracker.start(total, 0)
            with ray_session(self.config.ray):
                try:
                    self._start_keepers()
                    pool = await self._start_workers()
                    await self._dispatch(pool, self._pages(total, tracker), concurrency, tracker)
                finally:
                    self.writer.flush()
                    self._stop()
                    self.store.add_run_event(self.run_id, RAY_EXECUTION, self.timings.to_dict())

    def _pages(self, total: int, tracker: Any) -> Iterator[Batch]:
        """The run's samples from the store, one page of ``batch_size`` at a time, as
        batches of those not done with what is stored for them; done ones count as
        progress."""
        size = self.settings.batch_size
        for start in range(0, total, size):
            page = self.store.sample_page(self.run_id, start, size)
            outputs, finished = self.store.stored_for(self.run_id, [s.request_id for s in page])
            todo = [s for s in page if s.request_id not in outputs or self._pending(s, finished)]
            for _ in range(len(page) - len(todo)):
                tracker.advance()
            if todo:
                ids = {s.request_id for s in todo}
                yield Batch(
                    samples=todo,
                    outputs={rid: output for rid, output in outputs.items() if rid in ids},
                    finished={key for key in finished if key[0] in ids},
                )

    def _start_keepers(self) -> None:
        # on this command's node: a keeper lost with another node would leave every
        # worker without permits
        here = NodeAffinitySchedulingStrategy(ray.get_runtime_context().get_node_id(), soft=False)
        keeper_actor = _actor_class(
            PermitKeeper, num_cpus=0, max_concurrency=10_000, scheduling_strategy=here
        )
        for model in self.models:
            key = limiter_key(model)
            if key in self.keepers:
                model.limiter = RemotePermits(self.keepers[key])
                continue
            limits = model.limiter.limits if isinstance(model.limiter, Limiter) else RateLimits()
            keeper = keeper_actor.remote(limits, model.settings.timeout + _LEASE_MARGIN)
            self.keepers[key] = keeper
            model.limiter = RemotePermits(keeper)

    async def _start_workers(self) -> WorkerPool:
        """Start the workers, one whole CPU each, and wait until they are up (see
        :mod:`ragjudge.run.ray._pool`)."""
        resources: dict[str, float] = ray.cluster_resources()  # type: ignore[no-untyped-call]
        count, note = worker_count(self.settings, float(resources.get("CPU", 1.0)))
        if note is not None:
            self._note(note)
        worker_actor = _actor_class(
            SampleWorker,
            num_cpus=1,
            max_restarts=0,  # a dead worker's batch goes to a live one (the pool)
            max_task_retries=0,
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
        # held for the run: a replacement worker is built from it again
        self._setup_ref = ray.put(setup)
        self.pool = pool = WorkerPool(worker_actor, self._setup_ref, self.settings)
        self.timings.workers = count
        await pool.start(count)
        return pool

    def _note(self, note: str) -> None:
        """Tell the user now and keep the note with the run."""
        print(f"note: {note}", file=sys.stderr)
        self.store.add_run_event(self.run_id, NOTE, {"text": note})

    async def _dispatch(
        self, pool: WorkerPool, batches: Iterator[Batch], concurrency: int, tracker: Any
    ) -> None:
        """Send batches to the least loaded live workers, at most ``batches_per_worker``
        each; a batch whose worker was lost goes again to any live worker."""
        again: deque[tuple[Batch, int]] = deque()
        waiting: dict[asyncio.Future[BatchResult], tuple[int, Batch, int]] = {}
        try:
            await self._send_all(pool, batches, concurrency, tracker, again, waiting)
        finally:
            for future in waiting:  # a run stopped early: what is in flight is dropped
                future.cancel()

    async def _send_all(
        self,
        pool: WorkerPool,
        batches: Iterator[Batch],
        concurrency: int,
        tracker: Any,
        again: deque[tuple[Batch, int]],
        waiting: dict[asyncio.Future[BatchResult], tuple[int, Batch, int]],
    ) -> None:
        per_worker = self.settings.batches_per_worker
        read_all = False
        while True:
            worker = pool.free(per_worker)
            while worker is not None:
                begun = time.perf_counter()
                if again:
                    batch, sent = again.popleft()
                else:
                    # read from the store only when a slot is free
                    following = next(batches, None)
                    if following is None:
                        read_all = True
                        break
                    batch, sent = following, 0
                waiting[pool.send(worker, batch, concurrency)] = (worker, batch, sent + 1)
                self.timings.dispatching += time.perf_counter() - begun
                worker = pool.free(per_worker)
            if not waiting and not again and read_all:
                return
            if not pool.live:
                await pool.replacement()
                continue
            await self._collect(pool, waiting, again, tracker)

    async def _collect(
        self,
        pool: WorkerPool,
        waiting: dict[asyncio.Future[BatchResult], tuple[int, Batch, int]],
        again: deque[tuple[Batch, int]],
        tracker: Any,
    ) -> None:
        """Store the batches that came back; queue again those whose worker was lost;
        let started replacements join the pool."""
        begun = time.perf_counter()
        done, _ = await asyncio.wait(
            [*waiting, *pool.starting], return_when=asyncio.FIRST_COMPLETED
        )
        self.timings.waiting += time.perf_counter() - begun
        for future in done:
            if future in pool.starting:
                pool.joined(future)
                continue
            worker, batch, sent = waiting.pop(future)
            pool.returned(worker)
            try:
                result = future.result()
            except RayActorError as exc:
                pool.died(worker)
                if sent > self.settings.max_retries:
                    raise ClusterError(
                        f"a Ray worker failed beyond {self.settings.max_retries} retries: "
                        f"{ray_error_line(exc)}"
                    ) from None
                again.append((self._unfinished(batch), sent))
                continue
            except RayTaskError as exc:
                raise ClusterError(f"a Ray worker failed: {ray_error_line(exc)}") from None
            begun = time.perf_counter()
            await self._write(result, batch)
            self.timings.writing += time.perf_counter() - begun
            self.timings.worker_seconds += result.seconds
            self.timings.batches += 1
            self.timings.worker_peak_rss_mb[result.pid] = result.peak_rss_mb
            for _ in range(len(batch.samples)):
                tracker.advance()

    def _unfinished(self, batch: Batch) -> Batch:
        """``batch`` with what the store holds for its samples now: results stored
        since it was sent are not scored again."""
        outputs, finished = self.store.stored_for(
            self.run_id, [s.request_id for s in batch.samples]
        )
        return Batch(samples=batch.samples, outputs=outputs, finished=finished)

    async def _write(self, result: BatchResult, batch: Batch) -> None:
        """Store a batch's judge calls (new ids), outputs and new scores, as a local
        run does; what was stored before the batch was sent is left out. Every call id
        a score names is one of the batch's calls (the worker records them per batch)."""
        ids = {local: await self.recorder(record) for local, record in result.calls}
        for rid, output in result.outputs:
            if rid not in batch.outputs:
                self.writer.output(rid, output)
        for rid, trial, scores in result.scores:
            new = [
                s.model_copy(update={"judge_call_ids": [ids[i] for i in s.judge_call_ids]})
                if s.judge_call_ids
                else s
                for s in scores
                if (rid, trial, s.metric) not in batch.finished
            ]
            if new:
                self.writer.scores(rid, trial, new)
        if self.cache is not None:
            for key, value in result.cache.items():
                self.cache.put(key, value)
        self._add_usage(result.usage)
        self._add_notes(result.notes)

    def _add_notes(self, notes: dict[str, str]) -> None:
        """Keep what a worker's models found worth a note (an endpoint that refused reply
        schemas) on the first of this process's models with the same spec, where the
        run's notes are read."""
        for spec, note in notes.items():
            model = next((m for m in self.models if m.spec == spec), None)
            if model is not None and model.schemas.note is None:
                model.schemas.note = note

    def _add_usage(self, usage: dict[str, dict[str, UsageTotals]]) -> None:
        """Add a batch's judge-call counters to the first of this process's models with
        the same spec: the run's retries and 429s are counted where its models are."""
        for spec, by_purpose in usage.items():
            model = next((m for m in self.models if m.spec == spec), None)
            if model is not None:
                model.usage.merge(by_purpose)

    def _stop(self) -> None:
        """Keep the keepers' last counters, then stop the workers and keepers."""
        for model in self.models:
            if isinstance(model.limiter, RemotePermits):
                model.limiter.freeze()
        if self.pool is not None:
            self.pool.stop()
        for handle in self.keepers.values():
            ray.kill(handle)
        self.pool, self.keepers, self._setup_ref = None, {}, None


def require_shippable(target: Target) -> None:
    """A :class:`TargetSetupError` naming the target and why, when the target the run
    was given cannot be pickled to reach the workers (a function is pickled by value
    when it is defined in ``__main__`` or its module is registered with
    ``cloudpickle.register_pickle_by_value``; otherwise its module must be importable
    on every node)."""
    try:
        ray.cloudpickle.dumps(target)  # type: ignore[no-untyped-call]
    except Exception as exc:  # pickling runs arbitrary reducers; any failure is the answer
        name = getattr(target, "name", None) or type(target).__name__
        raise TargetSetupError(
            f"target {name}: cannot be shipped to the Ray workers, it does not pickle "
            f"({type(exc).__name__}: {exc}); give a function that holds no open "
            "connection, lock or thread, or a target the config names (module:function)"
        ) from None


def _actor_class(cls: type, **options: Any) -> Any:
    """``cls`` as a Ray actor class with ``options`` (Ray's stubs do not cover them all)."""
    remote: Any = ray.remote
    return remote(**options)(cls)

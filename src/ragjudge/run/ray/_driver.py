"""The driver of a run on Ray: connect to (or start) the cluster, start the permit
keepers, the call ledger and the workers, send the run's samples in batches, and write
the outputs and scores that come back to the store, batch by batch, through the same
:class:`~ragjudge.store._batch.ResultWriter` as a local run. Judge calls do not wait
for their batch: workers store each one through the ledger
(:mod:`ragjudge.run.ray._ledger`) as it goes out and as it returns.

The samples are read back from the store a page (one batch) at a time, by position,
as workers free up; a resumed run asks the store for each page's stored outputs and
score keys and sends only what is missing. Memory on the driver: at most
``workers × batches_per_worker`` batches in flight — their samples, what is stored for
them and their results — and the rows waiting for the next commit (at most
:data:`~ragjudge.store._batch.BATCH_ROWS`). Nothing grows with the number of rows.
"""

from __future__ import annotations

import asyncio
import sys
import time
from collections import deque
from collections.abc import Iterator, Sequence
from contextlib import suppress
from dataclasses import dataclass, field
from typing import Any

import ray
from ray.exceptions import RayActorError, RayTaskError
from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

from ragjudge.config import EvalConfig
from ragjudge.config._ray import ClusterError, RayConfig
from ragjudge.errors import TargetSetupError
from ragjudge.metrics import Metric, MetricContext
from ragjudge.models import Provider, RateLimits, ResponseCache
from ragjudge.models._limits import Limiter
from ragjudge.models._pricing import UsageTotals
from ragjudge.run._ceiling import call_recorded
from ragjudge.run._execution import Execution
from ragjudge.run._progress import progress_display
from ragjudge.run._samples_in_flight import InFlight
from ragjudge.run.ray._batch_sizing import batch_size_for_work, judge_calls_per_sample
from ragjudge.run.ray._ledger import start_ledger
from ragjudge.run.ray._permits import PermitKeeper, RemotePermits
from ragjudge.run.ray._pool import WorkerPool, ray_error_line, worker_count
from ragjudge.run.ray._runtime_env import env_var_values, job_runtime_env
from ragjudge.run.ray._session import ray_session as ray_session
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
        self.ledger: Any = None
        self._rpm: int | None = None
        """The lowest requests-per-minute limit of the run's endpoints, if any."""
        self.timings = Timings()
        self.keepers: dict[str, Any] = {}
        self.pool: WorkerPool | None = None
        self._setup_ref: Any = None

    def stored_results(self) -> tuple[set[tuple[str, int, str]], dict[str, Output]]:
        """Nothing held for the run: what is stored is read per page (:meth:`_pages`)."""
        return set(), {}

    async def run(self, samples: Sequence[Sample], concurrency: InFlight, progress: bool) -> None:
        """Evaluate every stored sample of the run that is not done on the cluster's
        workers (``samples`` are the run's, as stored: they are read back in pages)."""
        total = self.store.run(self.run_id).n_samples
        # each worker keeps the config's samples in flight; the permit keeper holds the limits
        concurrency = concurrency if isinstance(concurrency, int) else self.config.concurrency
        with progress_display(progress, status=self.rate_status) as tracker:
            tracker.start(total, 0)
            with ray_session(self.config.ray, job_runtime_env(self.config)):
                try:
                    self._start_keepers()
                    await self._start_ledger()
                    pool = await self._start_workers()
                    size = self._batch_size(total, concurrency)
                    await self._dispatch(
                        pool, self._pages(total, size, tracker), concurrency, tracker
                    )
                finally:
                    self.writer.flush()
                    self._stop()
                    # calls left in flight by a worker that died will not be completed
                    self.store.mark_lost_calls(self.run_id)
                    self.store.add_run_event(self.run_id, RAY_EXECUTION, self.timings.to_dict())

    def _batch_size(self, total: int, concurrency: int) -> int:
        """``ray.batch_size``, else sized by the expected work
        (:mod:`ragjudge.run.ray._batch_sizing`)."""
        if self.settings.batch_size is not None:
            return self.settings.batch_size
        calls = judge_calls_per_sample(self.metrics, self.trials, self.expected_calls, total)
        return batch_size_for_work(
            calls, concurrency=concurrency, workers=self.timings.workers, rpm=self._rpm
        )

    def _pages(self, total: int, size: int, tracker: Any) -> Iterator[Batch]:
        """The run's samples from the store, one page of ``size`` at a time, as
        batches of those not done with what is stored for them; done ones count as
        progress."""
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
            if limits.rpm is not None:
                self._rpm = min(limits.rpm, self._rpm or limits.rpm)
            keeper = keeper_actor.remote(limits, model.settings.timeout + _LEASE_MARGIN)
            self.keepers[key] = keeper
            model.limiter = RemotePermits(keeper)

    async def _start_ledger(self) -> None:
        """Start the actor that stores the workers' judge calls and serves the cache."""
        cache_path = self.cache.path if self.cache is not None else None
        if self.cache is not None:
            self.cache.flush()  # the ledger reads and writes the same file
        self.ledger = start_ledger(str(self.store.path), self.run_id, self.config, cache_path)
        await asyncio.wrap_future(self.ledger.cache_get.remote("").future())

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
            **_variables_option(self.config),
        )
        setup = WorkerSetup(
            config=self.config,
            keepers=self.keepers,
            ledger=self.ledger,
            cached=self.cache is not None,
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
            self._write(result, batch)
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

    def _write(self, result: BatchResult, batch: Batch) -> None:
        """Store a batch's outputs and new scores, as a local run does; what was stored
        before the batch was sent is left out. The judge calls the scores name are
        stored already (by the ledger, under the ids the scores carry)."""
        for rid, output in result.outputs:
            if rid not in batch.outputs:
                self.writer.output(rid, output)
        for rid, trial, scores in result.scores:
            new = [s for s in scores if (rid, trial, s.metric) not in batch.finished]
            if new:
                self.writer.scores(rid, trial, new)
        self._add_usage(result.usage)
        self._add_notes(result.notes)
        # the ledger stored the batch's calls in its own process: check max_cost here
        call_recorded(self.run_id)

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
        if self.ledger is not None:
            # gone already (RayActorError): it wrote each call and entry as it came
            with suppress(RayActorError):
                ray.get(self.ledger.close.remote())
            ray.kill(self.ledger)
        self.pool, self.keepers, self._setup_ref, self.ledger = None, {}, None, None


def _variables_option(config: EvalConfig) -> dict[str, Any]:
    """The ``runtime_env`` option that gives an actor the variables of
    ``ray.runtime_env.env_vars`` (also when Ray was initialised by the caller)."""
    values = env_var_values(config)
    return {"runtime_env": {"env_vars": values}} if values else {}


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

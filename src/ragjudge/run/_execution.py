"""Executing an evaluation: every sample to the target, every output to every metric
(for every trial), concurrently, each result written to the store as it arrives — in
batches, within :data:`~ragjudge.store._batch.BATCH_SECONDS`, and at once when the run
ends or is interrupted — so an interrupted run resumes where it stopped.

A sample whose output is at hand (stored, or read from the row by the data target) and
whose pending metrics are all :attr:`~ragjudge.metrics.Metric.scored_inline` (CPU work that
never waits, such as the lexical metrics) is scored on the spot, without a task: the
executor works through such samples in order and lets the event loop run at least
every :data:`SLICE_SECONDS`. When there are many such samples and the run may use
several processes, worker processes score them instead (:mod:`ragjudge.run._processes`).
Every other sample is a task, ``concurrency`` at a time.
"""

from __future__ import annotations

import asyncio
import copy
import time
from collections.abc import Callable, Coroutine, Iterator, Sequence
from concurrent.futures import Future
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cached_property, partial
from typing import TYPE_CHECKING, Any, cast

from ragjudge.analysis._rate_limits import calls_done, calls_status, live_status
from ragjudge.metrics import Metric, MetricContext
from ragjudge.models import JudgeModel
from ragjudge.run._execution_parts import ExecutionParts, all_unless_stopped, outcome_recorded
from ragjudge.run._matrix import judge_of
from ragjudge.run._processes import Processes, blocks_of, scoring_pool, worker_count
from ragjudge.run._progress import Tracker, progress_display, report_calls
from ragjudge.run._samples_in_flight import InFlight, sample_gate
from ragjudge.run._scoring import by_trial, end_shared_work, fresh_context, score_now, score_one
from ragjudge.schema import Output, Sample, Score
from ragjudge.store._batch import ResultWriter
from ragjudge.store._store import OutputRow, ScoreRow, Store, output_row, score_name_of, score_rows

if TYPE_CHECKING:
    from ragjudge.targets import Target

__all__ = ["SLICE_SECONDS", "Execution", "ExecutionParts", "outcome_recorded"]

ScoredSample = tuple[str, OutputRow | None, list[tuple[int, list[ScoreRow]]]]
"""What a scoring worker gives for one sample: its request id, its output's row when
the output was not stored yet, and per pending trial the rows of its scores."""

SLICE_SECONDS = 0.02
"""The longest the executor scores samples on the spot before it lets the event loop
run (the result writer's batch timer, other samples' target and judge calls)."""


@dataclass
class _Planned:
    """The work of a run, planned before it starts (:meth:`Execution.workers_started`)."""

    total: int
    todo: int
    now: list[tuple[Sample, list[tuple[int, Metric]]]]
    later: list[Sample]
    futures: list[Future[list[ScoredSample]]]


class Execution:
    """Runs one evaluation's samples against the target and the metrics."""

    processes: Processes = 1
    """Processes that may score CPU-only samples (this one included)."""
    busy_cpus: Callable[[], float | None] | None = None
    """How many CPUs other programs keep busy, for ``processes: auto``."""
    _planned: _Planned | None = None
    expected_calls: int | None = None
    """Judge calls the run is expected to make (the dry run's count), when known."""
    stopped_by: asyncio.Future[None] | None = None
    """Stops the run with its error when it fails (a model's pre-flight question)."""

    def __init__(
        self,
        store: Store,
        run_id: str,
        metrics: Sequence[Metric],
        trials: int,
        context: MetricContext,
        agent_models: dict[str, dict[str, Any]],
        *,
        processes: Processes = 1,
        busy_cpus: Callable[[], float | None] | None = None,
    ) -> None:
        self.store = store
        self.run_id = run_id
        self.metrics = metrics
        self.trials = trials
        self.context = context
        """What every metric receives; trial and agent models are set per call."""
        self.agent_models = agent_models
        self.processes = processes
        self.busy_cpus = busy_cpus
        self.finished: set[tuple[str, int, str]] = set()
        """The (request id, trial, score name) of every stored score (read when planned)."""
        self.outputs: dict[str, Output] = {}
        """The stored outputs by request id (read when planned)."""
        self.writer = ResultWriter(store, run_id)

    def stored_results(self) -> tuple[set[tuple[str, int, str]], dict[str, Output]]:
        """The run's stored score keys and outputs, held for the execution (a resumed
        run's); an execution that reads them page by page returns empty ones."""
        return self.store.finished_scores(self.run_id), self.store.outputs(self.run_id)

    def _pending(
        self, sample: Sample, finished: set[tuple[str, int, str]] | None = None
    ) -> list[tuple[int, Metric]]:
        """The (trial, metric) pairs of the sample with a score not in ``finished``
        (the execution's own when not given)."""
        rid = sample.request_id
        done = self.finished if finished is None else finished
        if not done:  # a new run: everything is pending
            return [(trial, metric) for trial in range(self.trials) for metric in self.metrics]
        return [
            (trial, metric)
            for trial in range(self.trials)
            for metric in self.metrics
            if any((rid, trial, n) not in done for n in self._score_names(metric, sample))
        ]

    def _score_names(self, metric: Metric, sample: Sample) -> list[str]:
        """``metric.score_names_for(sample)``, looked up once for a metric whose names
        do not depend on the row."""
        names = self._row_independent_names.get(id(metric))
        return names if names is not None else metric.score_names_for(sample)

    @cached_property
    def _row_independent_names(self) -> dict[int, list[str]]:
        return {
            id(m): m.score_names()
            for m in self.metrics
            if type(m).score_names_for is Metric.score_names_for
            and "score_names_for" not in vars(m)
        }

    @cached_property
    def _inline(self) -> set[int]:
        """The ids of the metrics scored on the spot (:attr:`Metric.scored_inline`)."""
        return {id(m) for m in self.metrics if m.scored_inline}

    @contextmanager
    def planned(self, samples: Sequence[Sample]) -> Iterator[None]:
        """Plan the work on ``samples`` (what is stored is read now) and fork the
        scoring workers (when the run uses them), so that they score while the caller
        stores the run; :meth:`run` on the same samples inside the block takes their
        results. Nothing is stored before :meth:`run`."""
        self.finished, self.outputs = self.stored_results()
        todo = [
            (s, pending)
            for s in samples
            if (pending := self._pending(s)) or s.request_id not in self.outputs
        ]
        now, later = self._split(todo)
        workers = worker_count(self.processes, len(now), self.busy_cpus)
        blocks = blocks_of(now) if workers else []
        with scoring_pool(self._scored_elsewhere, blocks, workers) as futures:
            self._planned = _Planned(len(samples), len(todo), now, later, futures)
            try:
                yield
            finally:
                self._planned = None

    async def run(self, samples: Sequence[Sample], concurrency: InFlight, progress: bool) -> None:
        """Evaluate every sample that is not done (without its output or a score of a
        trial), ``concurrency`` at a time."""
        if self._planned is None:
            with self.planned(samples):
                return await self.run(samples, concurrency, progress)
        plan = self._planned
        semaphore = sample_gate(concurrency)
        # The workers forked before the progress display starts its thread.
        with progress_display(progress, status=self.rate_status) as tracker:
            tracker.start(plan.total, plan.total - plan.todo)

            async def one(sample: Sample) -> None:
                async with semaphore:
                    await self.evaluate_sample(sample)
                tracker.advance()

            done = partial(calls_done, self.models)
            reporting = asyncio.create_task(report_calls(tracker, done, self.expected_calls))
            try:
                await self._run_all(plan.now, plan.later, plan.futures, one, tracker)
            finally:
                reporting.cancel()
                tracker.calls(done(), self.expected_calls)
                self.writer.flush()

    def _split(
        self, todo: Sequence[tuple[Sample, list[tuple[int, Metric]]]]
    ) -> tuple[list[tuple[Sample, list[tuple[int, Metric]]]], list[Sample]]:
        """The samples scored on the spot (their output at hand: stored, or given at
        once by the target; every pending metric inline), each with its pending metrics;
        and the others."""
        gives_now = hasattr(self.target, "output_now")
        now, later = [], []
        for sample, pending in todo:
            at_hand = gives_now or sample.request_id in self.outputs
            if at_hand and self._all_inline(pending):
                now.append((sample, pending))
            else:
                later.append(sample)
        return now, later

    async def _run_all(
        self,
        now: Sequence[tuple[Sample, list[tuple[int, Metric]]]],
        later: Sequence[Sample],
        futures: Sequence[Future[list[ScoredSample]]],
        one: Callable[[Sample], Coroutine[Any, Any, None]],
        tracker: Tracker,
    ) -> None:
        """Score the samples of ``now`` on the spot (in the workers when ``futures``
        holds their blocks), those of ``later`` in tasks; on the first failure or
        cancellation cancel the tasks and re-raise."""
        tasks: list[asyncio.Task[None]] = []
        failed: list[asyncio.Future[None]] = []
        if self.stopped_by is not None:
            self.stopped_by.add_done_callback(lambda f: _keep_failure(f, failed))
        try:
            for sample in later:
                task = asyncio.ensure_future(one(sample))
                task.add_done_callback(lambda t: _keep_failure(t, failed))
                tasks.append(task)
            if futures:
                await self._store_from_workers(futures, tracker, failed)
            else:
                await self._score_here(now, tracker, failed)
            await all_unless_stopped(tasks, self.stopped_by)
        finally:
            for task in tasks:
                if not task.cancelling():  # cancelled once is enough: let it clean up
                    task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

    async def _score_here(
        self,
        now: Sequence[tuple[Sample, list[tuple[int, Metric]]]],
        tracker: Tracker,
        failed: list[asyncio.Future[None]],
    ) -> None:
        """Score the samples of ``now`` in this process, letting the event loop run
        every :data:`SLICE_SECONDS`."""
        slice_ends = time.monotonic() + SLICE_SECONDS
        for sample, pending in now:
            output = self._output_at_hand(sample)
            assert output is not None  # at hand: see _split
            self._evaluate_now(sample, output, pending)
            tracker.advance()
            if time.monotonic() >= slice_ends:
                await asyncio.sleep(0)
                if failed:
                    failed[0].result()
                slice_ends = time.monotonic() + SLICE_SECONDS

    async def _store_from_workers(
        self,
        futures: Sequence[Future[list[ScoredSample]]],
        tracker: Tracker,
        failed: list[asyncio.Future[None]],
    ) -> None:
        """Store what the workers give for each block (``futures``, in block order) as
        it arrives, in the order of the samples."""
        for future in futures:
            for request_id, output, scored in await asyncio.wrap_future(future):
                if output is not None:
                    self.writer.output_rows([output])
                for trial, rows in scored:
                    self.writer.score_rows(rows)
                    self.finished.update((request_id, trial, score_name_of(row)) for row in rows)
                tracker.advance()
            if failed:
                failed[0].result()

    def _scored_elsewhere(self, item: tuple[Sample, list[tuple[int, Metric]]]) -> ScoredSample:
        """In a scoring worker: one sample's output row (when not stored yet) and its
        score rows per pending trial."""
        sample, pending = item
        return self._scored_with(sample, pending, self.outputs.get(sample.request_id))

    def _scored_with(
        self, sample: Sample, pending: Sequence[tuple[int, Metric]], output: Output | None
    ) -> ScoredSample:
        """One sample's output row (when ``output``, the stored one, is None) and its
        score rows per pending trial; nothing is recorded."""
        rid = sample.request_id
        output_row_ = None
        if output is None:
            output = self._target_output_now(sample)
            assert output is not None  # scored elsewhere only when the target gives it at once
            output_row_ = output_row(self.run_id, rid, output)
        scored = [
            (trial, score_rows(self.run_id, rid, trial, scores))
            for trial, scores in self._scores_now(sample, output, pending)
        ]
        return rid, output_row_, scored

    def _output_at_hand(self, sample: Sample) -> Output | None:
        """The sample's stored output, or the one the target gives at once (a data
        target reads it from the row); None when the target has to be awaited."""
        output = self.outputs.get(sample.request_id)
        if output is not None:
            return output
        output = self._target_output_now(sample)
        if output is None:
            return None
        self.writer.output(sample.request_id, output)
        self.outputs[sample.request_id] = output
        return output

    @property
    def target(self) -> Target:
        """The system under test, which the run's metric context carries."""
        target = self.context.target
        if target is None:
            raise RuntimeError("the run's metric context holds no target")
        return target

    def _target_output_now(self, sample: Sample) -> Output | None:
        """What the target gives for ``sample`` at once (a data target reads it from the
        row), or None when the target has to be awaited."""
        output_now = getattr(self.target, "output_now", None)
        return None if output_now is None else cast(Output, output_now(sample))

    def _all_inline(self, pending: list[tuple[int, Metric]]) -> bool:
        inline = self._inline
        return all(id(m) in inline for _, m in pending)

    @property
    def models(self) -> list[JudgeModel]:
        """The judge and the agents' models of the run."""
        agents = [m for roles in self.agent_models.values() for m in roles.values()]
        judges = [
            c.judge for c in self.context.judges.values() if c.judge is not self.context.judge
        ]
        found = (self.context.judge, *judges, *agents)
        return [m for m in found if isinstance(m, JudgeModel)]

    def rate_status(self) -> str:
        """The judge calls finished and under way, and the judge layer's rate-limit
        events so far, for the progress line."""
        calls = calls_status(self.models, counted_by_the_bar=self.expected_calls is not None)
        return " · ".join(part for part in (calls, live_status(self.models)) if part)

    async def evaluate_sample(self, sample: Sample) -> None:
        """The target's output (stored once), then every pending trial's scores."""
        output = self.outputs.get(sample.request_id)
        if output is None:
            output = await self.target(sample)
            self.writer.output(sample.request_id, output)
            self.outputs[sample.request_id] = output
        for trial, metrics in by_trial(self._pending(sample)):
            contexts = self._contexts(metrics, trial)
            inline = self._inline
            try:
                waited = await asyncio.gather(
                    *(
                        score_one(m, sample, output, c)
                        for m, c in zip(metrics, contexts, strict=True)
                        if id(m) not in inline
                    )
                )
            finally:
                await end_shared_work(contexts)
            later = iter(waited)
            results = [
                score_now(m, sample, output, c) if id(m) in inline else next(later)
                for m, c in zip(metrics, contexts, strict=True)
            ]
            self._record(sample, trial, [s for group in results for s in group])

    def _evaluate_now(
        self, sample: Sample, output: Output, pending: list[tuple[int, Metric]]
    ) -> None:
        """Every pending trial's scores of a sample whose pending metrics (``pending``,
        from :meth:`_pending`) are inline."""
        for trial, scores in self._scores_now(sample, output, pending):
            self._record(sample, trial, scores)

    def _scores_now(
        self, sample: Sample, output: Output, pending: Sequence[tuple[int, Metric]]
    ) -> list[tuple[int, list[Score]]]:
        """Per pending trial of a sample whose pending metrics are inline, (trial, its
        scores); nothing is recorded."""
        scored = []
        for trial, metrics in by_trial(pending):
            contexts = self._contexts(metrics, trial)
            scores = [
                s
                for m, c in zip(metrics, contexts, strict=True)
                for s in score_now(m, sample, output, c)
            ]
            scored.append((trial, scores))
        return scored

    def _record(self, sample: Sample, trial: int, scores: list[Score]) -> None:
        self.writer.scores(sample.request_id, trial, scores)
        self.finished.update((sample.request_id, trial, s.metric) for s in scores)

    def _contexts(self, metrics: Sequence[Metric], trial: int) -> list[MetricContext]:
        """What each metric of one sample and trial receives: a fresh ``shared`` and
        ``computed`` for the sample and trial; metrics with the same agent models get
        the same context. With named judges each judge has its own context (its judge
        and its own shared work, never reused across judges), which a metric bound to
        that judge receives."""
        base = fresh_context(self.context, trial)
        if not self.context.judges and not self.agent_models:  # one context serves all
            return [base] * len(metrics)
        base.judges = {
            name: fresh_context(base, trial, judge=own.judge, generate_config=own.generate_config)
            for name, own in self.context.judges.items()
        }
        contexts = []
        for metric in metrics:
            judged = base.judges.get(judge_of(metric) or "", base)
            models = self.agent_models.get(metric.name)
            if models:
                own = copy.copy(judged)
                own.models = models
                contexts.append(own)
            else:
                contexts.append(judged)
        return contexts


def _keep_failure(task: asyncio.Future[None], failed: list[asyncio.Future[None]]) -> None:
    if task.cancelled() or task.exception() is not None:
        failed.append(task)

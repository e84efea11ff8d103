"""Executing an evaluation: every sample to the target, every output to every metric
(for every trial), concurrently, each result written to the store as it arrives — in
batches, within :data:`~ragjudge.store_batch.BATCH_SECONDS`, and at once when the run
ends or is interrupted — so an interrupted run resumes where it stopped."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import replace
from typing import Any

from ragjudge.metrics import Metric, MetricContext
from ragjudge.models import JudgeModel
from ragjudge.progress import progress_display
from ragjudge.rate_limits import live_status
from ragjudge.schema import Output, Sample, Score
from ragjudge.store import Store
from ragjudge.store_batch import ResultWriter

__all__ = ["Execution", "outcome_recorded", "score_one"]


class Execution:
    """Runs one evaluation's samples against the target and the metrics."""

    def __init__(
        self,
        store: Store,
        run_id: str,
        metrics: Sequence[Metric],
        trials: int,
        context: MetricContext,
        agent_models: dict[str, dict[str, Any]],
    ) -> None:
        self.store = store
        self.run_id = run_id
        self.metrics = metrics
        self.trials = trials
        self.context = context
        """What every metric receives; trial and agent models are set per call."""
        self.agent_models = agent_models
        self.finished, self.outputs = self.stored_results()
        self.writer = ResultWriter(store, run_id)

    def stored_results(self) -> tuple[set[tuple[str, int, str]], dict[str, Output]]:
        """The run's stored score keys and outputs, held for the execution (a resumed
        run's); an execution that reads them page by page returns empty ones."""
        return self.store.finished_scores(self.run_id), self.store.outputs(self.run_id)

    def is_done(self, sample: Sample) -> bool:
        """Whether the sample has its output and every score of every trial."""
        return not self._pending(sample) and sample.request_id in self.outputs

    def _pending(self, sample: Sample) -> list[tuple[int, Metric]]:
        rid = sample.request_id
        return [
            (trial, metric)
            for trial in range(self.trials)
            for metric in self.metrics
            if any((rid, trial, n) not in self.finished for n in metric.score_names_for(sample))
        ]

    async def run(self, samples: Sequence[Sample], concurrency: int, progress: bool) -> None:
        """Evaluate every sample that is not done, ``concurrency`` at a time."""
        todo = [s for s in samples if not self.is_done(s)]
        semaphore = asyncio.Semaphore(concurrency)
        with progress_display(progress, status=self.rate_status) as tracker:
            tracker.start(len(samples), len(samples) - len(todo))

            async def one(sample: Sample) -> None:
                async with semaphore:
                    await self.evaluate_sample(sample)
                tracker.advance()

            try:
                await _gather_all([one(s) for s in todo])
            finally:
                self.writer.flush()

    @property
    def models(self) -> list[JudgeModel]:
        """The judge and the agents' models of the run."""
        agents = [m for roles in self.agent_models.values() for m in roles.values()]
        return [m for m in (self.context.judge, *agents) if isinstance(m, JudgeModel)]

    def rate_status(self) -> str:
        """The judge layer's rate-limit events so far, for the progress line."""
        return live_status(self.models)

    async def evaluate_sample(self, sample: Sample) -> None:
        """The target's output (stored once), then every pending trial's scores."""
        output = self.outputs.get(sample.request_id)
        if output is None:
            output = await self.context.target(sample)
            self.writer.output(sample.request_id, output)
            self.outputs[sample.request_id] = output
        pending = self._pending(sample)
        for trial in sorted({t for t, _ in pending}):
            metrics = [m for t, m in pending if t == trial]
            shared: dict[Any, Any] = {}  # what the metrics of this sample and trial share
            results = await asyncio.gather(
                *(score_one(m, sample, output, self._context(m, trial, shared)) for m in metrics)
            )
            scores = [s for group in results for s in group]
            self.writer.scores(sample.request_id, trial, scores)
            self.finished.update((sample.request_id, trial, s.metric) for s in scores)

    def _context(self, metric: Metric, trial: int, shared: dict[Any, Any]) -> MetricContext:
        return replace(
            self.context,
            trial=trial,
            models=self.agent_models.get(metric.name, {}),
            shared=shared,
        )


async def _gather_all(coroutines: list[Coroutine[Any, Any, None]]) -> None:
    """Run all; on the first failure or cancellation cancel the rest and re-raise."""
    tasks = [asyncio.ensure_future(c) for c in coroutines]
    try:
        await asyncio.gather(*tasks)
    finally:
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


async def score_one(
    metric: Metric, sample: Sample, output: Output, ctx: MetricContext
) -> list[Score]:
    """The metric's scores for one sample; a failed target or a metric that raises
    gives an explicit error for each of its scores."""
    names = metric.score_names_for(sample)
    if output.error is not None and output.response is None:
        return [Score.failed(n, f"target failed: {output.error}") for n in names]
    try:
        result = await metric.score(sample, output, ctx)
    except Exception as exc:  # a metric bug or bad row becomes this score's error
        return [Score.failed(n, f"{type(exc).__name__}: {exc}") for n in names]
    return result if isinstance(result, list) else [result]


@contextmanager
def outcome_recorded(store: Store, run_id: str) -> Iterator[None]:
    """Mark the run completed, interrupted (Ctrl-C, cancellation) or failed by how the
    block ends."""
    try:
        yield
    except (asyncio.CancelledError, KeyboardInterrupt):
        store.set_status(run_id, "interrupted")
        raise
    except BaseException:
        store.set_status(run_id, "failed")
        raise
    store.set_status(run_id, "completed")

"""What a Ray worker does with a batch of samples: the same per-sample pipeline as a
local run (:class:`ragjudge.run._execution.Execution`), with results collected for the
driver instead of written to the store.

A worker builds its target, metrics, retriever and models once (from the config, or
from the objects the driver shipped when the run was given Python objects). Its models'
limiter is the run's :class:`~ragjudge.run.ray._permits.PermitKeeper`; its judge calls
are stored, and its reply cache read and written, through the run's
:class:`~ragjudge.run.ray._ledger.CallLedger` as each call goes out and returns.
"""

from __future__ import annotations

import copy
import os
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ragjudge.config import EvalConfig
from ragjudge.metrics import Metric, MetricContext
from ragjudge.models import JudgeModel, PermitSource, Provider
from ragjudge.models._cache import provider_endpoint
from ragjudge.models._pricing import UsageTotals, UsageTracker
from ragjudge.run._embedders import build_embedders
from ragjudge.run._execution import Execution
from ragjudge.run._judging import (
    agent_config,
    generate_config,
    judge_model,
)
from ragjudge.run._preparation import build_retriever, build_target, configured_metrics
from ragjudge.run._reply_schemas import share_reply_schemas
from ragjudge.run._row_skipping import lacking_rows, skip_rows_lacking_inputs
from ragjudge.run.ray._ledger import LedgerCache, LedgerRecorder
from ragjudge.run.ray._permits import RemotePermits
from ragjudge.run.ray._runtime_env import on_this_node
from ragjudge.schema import Output, Sample, Score
from ragjudge.store._batch import ResultWriter
from ragjudge.targets._targets import Target

__all__ = [
    "Batch",
    "BatchResult",
    "SampleWorker",
    "WorkerSetup",
    "limiter_key",
    "peak_rss_mb",
]


def peak_rss_mb() -> float:
    """This process's peak resident memory in MB (Linux counts ``ru_maxrss`` in kB)."""
    import resource
    import sys

    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / (1024 * 1024 if sys.platform == "darwin" else 1024)


def limiter_key(model: JudgeModel) -> str:
    """Which permit keeper a model uses: its endpoint (every model of one endpoint
    shares its limits, as in a local run), else its own spec."""
    return provider_endpoint(model.provider) or f"spec:{model.spec}"


@dataclass
class WorkerSetup:
    """What every worker is built from."""

    config: EvalConfig
    keepers: dict[str, Any]
    """:func:`limiter_key` → permit keeper actor handle."""
    ledger: Any
    """The run's :class:`~ragjudge.run.ray._ledger.CallLedger` actor handle."""
    cached: bool
    """Whether the run caches replies (through the ledger)."""
    metrics: list[Metric] | None = None
    """The run's metric objects when it was given objects; None: built from the config."""
    target: Target | None = None
    """The run's target when it was given an object; None: built from the config."""
    provider: Provider | None = None
    """The judge provider the run was given (a scripted model), if any."""


@dataclass
class Batch:
    """Samples for a worker, with what the store already holds for them."""

    samples: list[Sample]
    outputs: dict[str, Output] = field(default_factory=dict)
    finished: set[tuple[str, int, str]] = field(default_factory=set)


@dataclass
class BatchResult:
    """What a worker sends back for one batch."""

    outputs: list[tuple[str, Output]]
    scores: list[tuple[str, int, list[Score]]]
    seconds: float
    """Time spent on the batch in the worker."""
    pid: int
    peak_rss_mb: float = 0.0
    """The worker process's peak resident memory so far."""
    usage: dict[str, dict[str, UsageTotals]] = field(default_factory=dict)
    """Per model (its spec), the judge-call counters of the batch per purpose: calls,
    retries, 429s, tokens — for the driver's totals."""
    notes: dict[str, str] = field(default_factory=dict)
    """Per model (its spec), what the run's notes should say of it (its endpoint
    refused reply schemas)."""


class _Collector(ResultWriter):
    """A result writer that keeps results for the driver instead of storing them."""

    def __init__(self) -> None:  # no store on a worker
        self.collected_outputs: list[tuple[str, Output]] = []
        self.collected_scores: list[tuple[str, int, list[Score]]] = []

    def output(self, request_id: str, output: Output) -> None:
        """Keep the target's output."""
        self.collected_outputs.append((request_id, output))

    def scores(self, request_id: str, trial: int, scores: Iterable[Score]) -> None:
        """Keep one sample's scores for one trial."""
        self.collected_scores.append((request_id, trial, list(scores)))

    def flush(self) -> None:
        """Nothing to commit here."""


class _BatchExecution(Execution):
    """:class:`Execution` over one batch, results collected instead of stored."""

    def __init__(
        self,
        metrics: Sequence[Metric],
        trials: int,
        context: MetricContext,
        agent_models: dict[str, dict[str, Any]],
        batch: Batch,
    ) -> None:  # the store-reading base constructor does not apply
        self.run_id = ""
        self.metrics = metrics
        self.trials = trials
        self.context = context
        self.agent_models = agent_models
        self.batch = batch
        self.finished = set(batch.finished)
        self.outputs = dict(batch.outputs)
        self.collector = _Collector()
        self.writer = self.collector

    def stored_results(self) -> tuple[set[tuple[str, int, str]], dict[str, Output]]:
        """What the driver sent with the batch as stored."""
        return set(self.batch.finished), dict(self.batch.outputs)


class SampleWorker:
    """Evaluates batches of samples (the body of a Ray actor; see
    :mod:`ragjudge.run.ray._driver`)."""

    def __init__(self, setup: WorkerSetup) -> None:
        config = on_this_node(setup.config)
        self.config = config
        self.given_metrics = setup.metrics is not None
        self.metrics = setup.metrics if setup.metrics is not None else configured_metrics(config)
        self.target = setup.target if setup.target is not None else build_target(config)
        self.recorder = LedgerRecorder(setup.ledger)
        self.cache = LedgerCache(setup.ledger) if setup.cached else None
        permits = {key: RemotePermits(keeper) for key, keeper in setup.keepers.items()}
        self.permits = permits
        self.judge = self._judge(setup.provider, permits)
        self.agents = self._agents(permits)
        share_reply_schemas(self._models())
        limiters: dict[str, PermitSource] = {
            k: p for k, p in permits.items() if not k.startswith("spec:")
        }
        self.context = MetricContext(
            retriever=build_retriever(config),
            judge=self.judge,
            generate_config=generate_config(config.judge),
            target=self.target,
            embedders=build_embedders(
                config.judge, self.metrics, self.cache, limiters, self.recorder
            ),
        )

    def _judge(
        self, provider: Provider | None, permits: dict[str, RemotePermits]
    ) -> JudgeModel | None:
        judge = self.config.judge
        if judge is None:
            if provider is None:
                return None
            judge = agent_config(self.config.judge, f"scripted/{provider.model}")
        return self._limited(judge_model(judge, self.recorder, self.cache, provider), permits)

    def _agents(self, permits: dict[str, RemotePermits]) -> dict[str, dict[str, JudgeModel]]:
        built: dict[str, JudgeModel] = {}
        per_metric: dict[str, dict[str, JudgeModel]] = {}
        for metric in self.metrics:
            for role, spec in metric.model_roles().items():
                if spec not in built:
                    model = judge_model(
                        agent_config(self.config.judge, spec), self.recorder, self.cache
                    )
                    built[spec] = self._limited(model, permits)
                per_metric.setdefault(metric.name, {})[role] = built[spec]
        return per_metric

    @staticmethod
    def _limited(model: JudgeModel, permits: dict[str, RemotePermits]) -> JudgeModel:
        permit = permits.get(limiter_key(model))
        if permit is not None:
            model.limiter = permit
        return model

    async def ready(self) -> int:
        """Once built, reach every permit keeper once (the first call to an actor
        resolves its address, which would otherwise delay the first judge requests
        past their permits' start); return the process id."""
        for permits in self.permits.values():
            await permits.keeper.stats.remote()
        await self.recorder.ledger.cache_get.remote("")  # the same for the ledger
        return os.getpid()

    def pid(self) -> int:
        """The worker's process id (tests kill it)."""
        return os.getpid()

    async def run_batch(self, batch: Batch, concurrency: int) -> BatchResult:
        """Evaluate the batch's pending work, ``concurrency`` samples at a time."""
        started = time.perf_counter()
        execution = _BatchExecution(
            self._batch_metrics(batch.samples),
            self.config.trials,
            self.context,
            self.agents,
            batch,
        )
        await execution.run(batch.samples, concurrency, progress=False)
        return BatchResult(
            outputs=execution.collector.collected_outputs,
            scores=execution.collector.collected_scores,
            seconds=time.perf_counter() - started,
            pid=os.getpid(),
            peak_rss_mb=peak_rss_mb(),
            usage=self._usage_taken(),
            notes={m.spec: m.schemas.note for m in self._models() if m.schemas.note},
        )

    def _models(self) -> list[JudgeModel]:
        """The worker's models, each once: the judge and the agents' models."""
        models: list[JudgeModel] = []
        agents = [m for roles in self.agents.values() for m in roles.values()]
        for model in [self.judge, *agents]:
            if model is not None and all(model is not m for m in models):
                models.append(model)
        return models

    def _usage_taken(self) -> dict[str, dict[str, UsageTotals]]:
        """Each model's counters since the last batch, by model spec."""
        taken: dict[str, dict[str, UsageTotals]] = {}
        for model in self._models():
            tracker = UsageTracker()
            tracker.merge(taken.get(model.spec, {}))
            tracker.merge(model.usage.take())
            taken[model.spec] = tracker.by_purpose()
        return {spec: by_purpose for spec, by_purpose in taken.items() if by_purpose}

    def _batch_metrics(self, samples: list[Sample]) -> list[Metric]:
        """With ``skip_invalid_rows``, copies of the metrics that are not applicable to
        this batch's rows lacking their inputs (as the driver decided for the run)."""
        if not self.config.skip_invalid_rows or self.given_metrics:
            return list(self.metrics)
        answers = self.target.supplies_response
        batch_metrics = []
        for metric in self.metrics:
            lacking = lacking_rows(samples, metric, supplies_response=answers)
            if lacking:
                metric = copy.copy(metric)
                skip_rows_lacking_inputs(metric, lacking)
            batch_metrics.append(metric)
        return batch_metrics

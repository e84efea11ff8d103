"""The runner: sends every sample to the target, scores the output with every metric
(for every trial), and writes each result to the store as it arrives."""

from __future__ import annotations

import asyncio
import platform
from collections.abc import Callable, Coroutine, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, TypeVar, cast

import pandas as pd
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

import ragjudge
from ragjudge.config import ConfigError, EvalConfig, KnowledgeBaseConfig
from ragjudge.dryrun import DryRunPlan, plan_evaluation
from ragjudge.http_targets import (
    HTTP_TARGET_KINDS,
    http_retriever_from_config,
    http_target_from_config,
)
from ragjudge.judging import build_agent_models, build_judge, check_judge, generate_config
from ragjudge.loading import load_samples
from ragjudge.metrics import Metric, MetricContext, create_metric
from ragjudge.models import JudgeModel, Provider
from ragjudge.schema import Output, Sample, Score
from ragjudge.stats import MetricSummary, summarize_by, summarize_scores, summary_frame
from ragjudge.store import RunInfo, RunStatus, Store, new_run_id
from ragjudge.targets import CallableTarget, DataTarget, Target, TargetError, import_callable

T = TypeVar("T")
MetricSpec = str | dict[str, Any] | Metric

_TARGET_FIELDS = ("response", "retrieved_context", "trace")


class RequirementError(ValueError):
    """Rows lack fields that the chosen metrics need; raised before any work starts."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("the evaluation set cannot be scored:\n" + "\n".join(problems))
        self.problems = problems


@dataclass
class EvaluationResult:
    """The outcome of a run: its id, where it is stored, and the per-metric summary."""

    run_id: str
    store_path: Path
    status: RunStatus
    summaries: list[MetricSummary]
    n_samples: int
    trials: int
    by: str | None = None
    subsets: dict[str, list[MetricSummary]] = field(default_factory=dict)
    judge_usage: list[dict[str, Any]] = field(default_factory=list)
    """Judge calls, cached calls, tokens, cost and errors per metric."""
    target_usage: dict[str, Any] = field(default_factory=dict)

    def summary(self) -> pd.DataFrame:
        """One row per metric: mean, 95% CI, n, errors, excluded values, trial spread."""
        return summary_frame(self.summaries)

    def to_pandas(self) -> pd.DataFrame:
        """One row per sample and trial, with every metric's value, error and rationale."""
        with Store(self.store_path) as store:
            return store.sample_frame(self.run_id)

    def to_dict(self) -> dict[str, Any]:
        """The JSON form printed by ``ragjudge run --json``."""
        return {
            "run_id": self.run_id,
            "store": str(self.store_path),
            "status": self.status,
            "n_samples": self.n_samples,
            "trials": self.trials,
            "metrics": [_summary_dict(s) for s in self.summaries],
            "by": self.by,
            "subsets": {
                group: [_summary_dict(s) for s in summaries]
                for group, summaries in self.subsets.items()
            },
            "judge_usage": self.judge_usage,
            "target_usage": self.target_usage,
        }


def _summary_dict(s: MetricSummary) -> dict[str, Any]:
    return {
        "metric": s.metric,
        "mean": s.mean,
        "ci95": None if s.ci is None else [s.ci.low, s.ci.high],
        "n": s.n,
        "errors": s.errors,
        "excluded": s.excluded,
        "excluded_share": s.excluded_share,
        "mean_all": s.mean_all,
        "trials": s.trials,
        "trial_sd": s.trial_sd,
        "trial_agreement": s.trial_agreement,
    }


# set-up --------------------------------------------------------------------------


def build_target(config: EvalConfig, target: Any = None) -> Target:
    """The target from an explicit object (callable or Target) or from the config."""
    if target is not None and not isinstance(target, str):
        if hasattr(target, "supplies_response"):
            return cast(Target, target)
        if callable(target):
            return CallableTarget(target)
        raise TargetError(f"target {target!r} is neither a callable nor a 'module:function' path")
    spec = config.target
    if spec is None or spec.kind == "data":
        return DataTarget()
    if spec.kind == "callable":
        if not spec.path:
            raise TargetError("target kind 'callable' needs 'path: package.module:function'")
        fn = import_callable(spec.path, search_dir=config.base_dir)
        return CallableTarget(fn, name=spec.path, timeout=spec.timeout)
    if spec.kind in HTTP_TARGET_KINDS:
        return http_target_from_config(spec.model_dump(exclude_none=True))
    known = ", ".join(("data", "callable", *HTTP_TARGET_KINDS))
    raise TargetError(f"unknown target kind {spec.kind!r}; known kinds: {known}")


def build_metrics(specs: Sequence[MetricSpec]) -> list[Metric]:
    """The run's metrics from names, option dicts or instances; an unknown metric, a
    bad option or a repeated name is a :class:`ConfigError`."""
    try:
        metrics = [create_metric(s) for s in specs]
    except (ValueError, TypeError) as exc:
        raise ConfigError(f"metrics: {exc}") from exc
    names = [n for m in metrics for n in m.score_names()]
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        raise ConfigError(
            f"metric names must be unique in a run; repeated: {', '.join(duplicates)}"
            " (give each instance its own 'name')"
        )
    return metrics


def check_requirements(
    samples: Sequence[Sample], metrics: Sequence[Metric], target: Target
) -> None:
    """Raise :class:`RequirementError` listing, per metric and field, the rows that
    lack what the metric needs."""
    problems: list[str] = []
    for metric in metrics:
        if (problem := metric.check_target(target)) is not None:
            problems.append(problem)
        for requirement in metric.requires:
            alternatives = requirement.split("|")
            if target.supplies_response and any(a in _TARGET_FIELDS for a in alternatives):
                continue
            missing = [
                (i + 1, s.request_id)
                for i, s in enumerate(samples)
                if not any(s.has_field(a) for a in alternatives)
            ]
            if missing:
                shown = ", ".join(f"row {row} ({rid})" for row, rid in missing[:20])
                more = f" and {len(missing) - 20} more" if len(missing) > 20 else ""
                wanted = " or ".join(repr(a) for a in alternatives)
                problems.append(
                    f"metric {metric.name!r} needs {wanted}; missing in {len(missing)} of "
                    f"{len(samples)} rows: {shown}{more}"
                )
    if problems:
        raise RequirementError(problems)


def check_retriever(config: EvalConfig, metrics: Sequence[Metric]) -> None:
    """Before any work: metrics that search for evaluation contexts need a knowledge
    base or a retriever endpoint."""
    needing = [m.name for m in metrics if m.needs_retriever]
    if needing and config.knowledge_base is None and config.retriever is None:
        names = ", ".join(repr(n) for n in needing)
        raise ConfigError(
            f"metric {names} retrieves evaluation contexts: configure 'knowledge_base' "
            "(or 'retriever: {kind: http, url: ...}'), or use contexts: retrieved or none"
        )


def build_retriever(kb: KnowledgeBaseConfig | None, config: EvalConfig) -> Any:
    """The evaluation retriever: the target's own search endpoint when ``retriever`` is
    configured, else a BM25, dense or hybrid index over the knowledge base (dense
    indexes are cached under ``.ragjudge/index`` beside the config)."""
    if config.retriever is not None:
        try:
            return http_retriever_from_config(config.retriever)
        except TargetError as exc:
            raise ConfigError(f"retriever: {exc}") from exc
    if kb is None:
        return None
    from ragjudge import retrieval
    from ragjudge.knowledge import KnowledgeBase

    if kb.retriever not in retrieval.RETRIEVER_KINDS:
        known = ", ".join(retrieval.RETRIEVER_KINDS)
        raise ConfigError(f"unknown retriever {kb.retriever!r}; known: {known}")
    base = KnowledgeBase.load(
        config.resolve(kb.path), chunk_size=kb.chunk_size, chunk_overlap=kb.chunk_overlap
    )
    return retrieval.build_retriever(
        base,
        kb.retriever,  # type: ignore[arg-type]
        embedder=kb.embedding,
        cache_dir=config.resolve(".ragjudge/index"),
        k_rrf=kb.k_rrf,
    )


def _versions() -> dict[str, str]:
    from importlib.metadata import PackageNotFoundError, version

    found = {"ragjudge": ragjudge.__version__, "python": platform.python_version()}
    for package in ("pydantic", "numpy", "scipy", "bm25s", "rouge-score", "fugashi"):
        try:
            found[package] = version(package)
        except PackageNotFoundError:
            continue
    return found


# execution -----------------------------------------------------------------------


class _Execution:
    """Runs one evaluation's samples against the target and the metrics."""

    def __init__(
        self,
        store: Store,
        run_id: str,
        metrics: Sequence[Metric],
        trials: int,
        context: MetricContext,
        agent_models: dict[str, dict[str, JudgeModel]],
    ) -> None:
        self.store = store
        self.run_id = run_id
        self.metrics = metrics
        self.trials = trials
        self.context = context
        """What every metric receives; trial and agent models are set per call."""
        self.agent_models = agent_models
        self.finished = store.finished_scores(run_id)
        self.outputs = store.outputs(run_id)

    def is_done(self, sample: Sample) -> bool:
        return not self._pending(sample) and sample.request_id in self.outputs

    def _pending(self, sample: Sample) -> list[tuple[int, Metric]]:
        rid = sample.request_id
        return [
            (trial, metric)
            for trial in range(self.trials)
            for metric in self.metrics
            if any((rid, trial, n) not in self.finished for n in metric.score_names())
        ]

    async def run(self, samples: Sequence[Sample], concurrency: int, progress: bool) -> None:
        todo = [s for s in samples if not self.is_done(s)]
        semaphore = asyncio.Semaphore(concurrency)
        with _progress_bar(progress) as bar:
            task = bar.add_task(
                "evaluating", total=len(samples), completed=len(samples) - len(todo)
            )

            async def one(sample: Sample) -> None:
                async with semaphore:
                    await self.evaluate_sample(sample)
                bar.advance(task)

            await _gather_all([one(s) for s in todo])

    async def evaluate_sample(self, sample: Sample) -> None:
        output = self.outputs.get(sample.request_id)
        if output is None:
            output = await self.context.target(sample)
            self.store.save_output(self.run_id, sample.request_id, output)
            self.outputs[sample.request_id] = output
        pending = self._pending(sample)
        for trial in sorted({t for t, _ in pending}):
            metrics = [m for t, m in pending if t == trial]
            results = await asyncio.gather(
                *(_score_one(m, sample, output, self._context(m, trial)) for m in metrics)
            )
            scores = [s for group in results for s in group]
            self.store.save_scores(self.run_id, sample.request_id, trial, scores)
            self.finished.update((sample.request_id, trial, s.metric) for s in scores)

    def _context(self, metric: Metric, trial: int) -> MetricContext:
        return replace(self.context, trial=trial, models=self.agent_models.get(metric.name, {}))


async def _gather_all(coroutines: list[Coroutine[Any, Any, None]]) -> None:
    """Run all; on the first failure or cancellation cancel the rest and re-raise."""
    tasks = [asyncio.ensure_future(c) for c in coroutines]
    try:
        await asyncio.gather(*tasks)
    finally:
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


async def _score_one(
    metric: Metric, sample: Sample, output: Output, ctx: MetricContext
) -> list[Score]:
    if output.error is not None and output.response is None:
        return [Score.failed(n, f"target failed: {output.error}") for n in metric.score_names()]
    try:
        result = await metric.score(sample, output, ctx)
    except Exception as exc:  # a metric bug or bad row becomes this score's error
        return [Score.failed(n, f"{type(exc).__name__}: {exc}") for n in metric.score_names()]
    return result if isinstance(result, list) else [result]


def _progress_bar(enabled: bool) -> Progress:
    return Progress(
        TextColumn("[progress.description]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=Console(stderr=True),
        disable=not enabled,
        transient=False,
    )


@contextmanager
def _outcome_recorded(store: Store, run_id: str) -> Iterator[None]:
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


# entry points ---------------------------------------------------------------------


async def run_evaluation(
    config: EvalConfig,
    *,
    data: Any = None,
    target: Any = None,
    metrics: Sequence[MetricSpec] | None = None,
    resume: str | None = None,
    progress: bool = True,
    use_cache: bool = True,
    judge_provider: Provider | None = None,
) -> EvaluationResult:
    """Run (or resume) an evaluation described by ``config``.

    ``data`` (a DataFrame or list of dicts), ``target`` (a callable), ``metrics``
    (names, option dicts or Metric instances) and ``judge_provider`` (a model provider,
    wrapped in the judge layer with the config's limits) may be given as objects
    instead of through the config. With ``resume``, the run's stored samples, metrics
    and trials are used (only the concurrency and the ``by`` breakdown come from
    ``config``) and only missing results are computed.
    """
    with Store(config.store_path) as store:
        resumed = store.run(resume) if resume is not None else None
        if resumed is None:
            samples = _load_samples(config, data)
        else:
            config = _resumed_config(resumed, config)
            samples = store.samples(resumed.run_id)
        metric_objects = build_metrics(config.metrics if metrics is None else metrics)
        target_obj = build_target(config, target)
        check_requirements(samples, metric_objects, target_obj)
        check_judge(config, metric_objects, provider=judge_provider)
        check_retriever(config, metric_objects)
        retriever = build_retriever(config.knowledge_base, config)
        # The models record their calls under the run id, so it is drawn before the run
        # is stored: a judge that cannot be built leaves no empty run behind.
        run_id = new_run_id() if resumed is None else resumed.run_id
        judge, agents = _build_models(
            config, metric_objects, store, run_id, use_cache=use_cache, provider=judge_provider
        )
        _record_start(store, run_id, config, samples, resumed)
        context = MetricContext(
            retriever=retriever,
            judge=judge,
            generate_config=generate_config(config.judge),
            target=target_obj,
        )
        execution = _Execution(store, run_id, metric_objects, config.trials, context, agents)
        try:
            with _outcome_recorded(store, run_id):
                await execution.run(samples, config.concurrency, progress)
        finally:
            await _close(
                target_obj, retriever, judge, *(m for a in agents.values() for m in a.values())
            )
        return summarize_run(store, run_id, by=config.by, metrics=metric_objects)


def _resumed_config(run: RunInfo, given: EvalConfig) -> EvalConfig:
    """The stored run's config, with the pace and the breakdown of ``given``: a resumed
    run keeps its samples, metrics, trials and models."""
    stored = EvalConfig.model_validate(run.config)
    return stored.model_copy(update={"concurrency": given.concurrency, "by": given.by or stored.by})


def _build_models(
    config: EvalConfig,
    metrics: Sequence[Metric],
    store: Store,
    run_id: str,
    *,
    use_cache: bool,
    provider: Provider | None,
) -> tuple[JudgeModel | None, dict[str, dict[str, JudgeModel]]]:
    """The judge and the agents' models; a model spec no provider serves is a
    :class:`ConfigError`."""
    try:
        judge = build_judge(config, store, run_id, use_cache=use_cache, provider=provider)
        agents = build_agent_models(
            config,
            metrics,
            store,
            run_id,
            use_cache=use_cache,
            cache=judge.cache if judge is not None else None,
        )
    except ValueError as exc:
        raise ConfigError(str(exc)) from exc
    return judge, agents


def _record_start(
    store: Store,
    run_id: str,
    config: EvalConfig,
    samples: Sequence[Sample],
    resumed: RunInfo | None,
) -> None:
    if resumed is not None:
        store.set_status(run_id, "running")
        return
    store.create_run(
        run_id=run_id,
        name=config.name,
        config=config.to_record(),
        versions=_versions(),
        samples=samples,
        trials=config.trials,
    )


async def dry_run(
    config: EvalConfig,
    *,
    data: Any = None,
    target: Any = None,
    metrics: Sequence[MetricSpec] | None = None,
) -> DryRunPlan:
    """Build every judge prompt of the evaluation, count calls and estimate tokens and
    cost without calling the target or any model (see :mod:`ragjudge.dryrun`)."""
    samples = _load_samples(config, data)
    metric_objects = build_metrics(config.metrics if metrics is None else metrics)
    target_obj = build_target(config, target)
    check_requirements(samples, metric_objects, target_obj)
    check_retriever(config, metric_objects)
    retriever = build_retriever(config.knowledge_base, config)
    try:
        return await plan_evaluation(
            config,
            samples,
            metric_objects,
            supplies_response=target_obj.supplies_response,
            retriever=retriever,
        )
    finally:
        await _close(target_obj, retriever)


async def _close(*resources: Any) -> None:
    """Close the HTTP clients that targets, retrievers and models keep open across calls."""
    for resource in resources:
        close = getattr(resource, "aclose", None)
        if close is not None:
            await close()


def _load_samples(config: EvalConfig, data: Any) -> list[Sample]:
    if data is None:
        if config.data is None:
            raise ConfigError("no evaluation set: give 'data' (a file, DataFrame or list of dicts)")
        data = config.resolve(config.data)
    samples = load_samples(data, format=config.format)
    return samples[: config.limit] if config.limit else samples


def metric_exclusions(metrics: Sequence[Metric]) -> dict[str, list[float]]:
    """Per score name, the values its metric leaves out of the mean."""
    return {n: list(m.exclude_from_mean) for m in metrics for n in m.score_names()}


def run_exclusions(*configs: Mapping[str, Any]) -> dict[str, list[float]]:
    """The excluded values of stored runs' metrics, rebuilt from their configs and
    merged. A metric that cannot be rebuilt (given as an object when the run was made,
    or no longer registered) contributes none; the others still do."""
    merged: dict[str, set[float]] = {}
    for config in configs:
        for name, values in metric_exclusions(_rebuildable(config.get("metrics"))).items():
            merged.setdefault(name, set()).update(map(float, values))
    return {name: sorted(values) for name, values in merged.items() if values}


def _rebuildable(specs: Any) -> list[Metric]:
    metrics: list[Metric] = []
    for spec in specs if isinstance(specs, list) else []:
        try:
            metrics.append(create_metric(spec))
        except (ValueError, TypeError, KeyError, ImportError):
            continue
    return metrics


def summarize_run(
    store: Store,
    run_id: str,
    *,
    by: str | None = None,
    metrics: Sequence[Metric] | None = None,
    seed: int | None = None,
) -> EvaluationResult:
    """Aggregate a stored run: per-metric mean, CI, n, errors, and per-subset tables.

    Excluded values come from ``metrics`` (else from the run's config); the bootstrap
    ``seed`` defaults to the run's own, so a stored run shows the intervals it ran with.
    """
    run = store.run(run_id)
    exclude = metric_exclusions(metrics) if metrics is not None else run_exclusions(run.config)
    if seed is None:
        seed = int(run.config.get("seed", 0))
    frame = store.score_frame(run.run_id)
    summaries = summarize_scores(frame, exclude=exclude, seed=seed) if len(frame) else []
    subsets: dict[str, list[MetricSummary]] = {}
    if by is not None and len(frame):
        column = by if by in frame.columns else f"metadata.{by}"
        if column not in frame.columns:
            raise ConfigError(f"--by {by!r}: no sample has that metadata key")
        subsets = summarize_by(frame, column, exclude=exclude, seed=seed)
    return EvaluationResult(
        run_id=run.run_id,
        store_path=store.path,
        status=run.status,
        summaries=summaries,
        n_samples=run.n_samples,
        trials=run.trials,
        by=by,
        subsets=subsets,
        judge_usage=store.judge_usage(run.run_id),
        target_usage=store.target_usage(run.run_id),
    )


def run_sync(make: Callable[[], Coroutine[Any, Any, T]]) -> T:
    """Run a coroutine from sync code, also when an event loop is already running
    (a notebook): then it runs on a fresh loop in a worker thread."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(make())
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="ragjudge") as pool:
        return pool.submit(lambda: asyncio.run(make())).result()


def evaluate(
    data: Any = None,
    *,
    target: Any = None,
    metrics: Sequence[MetricSpec],
    knowledge_base: str | Path | dict[str, Any] | None = None,
    judge: str | dict[str, Any] | Provider | None = None,
    trials: int = 1,
    concurrency: int = 8,
    limit: int | None = None,
    by: str | None = None,
    store: str | Path | None = None,
    name: str | None = None,
    format: str | None = None,
    resume: str | None = None,
    seed: int = 0,
    progress: bool = True,
) -> EvaluationResult:
    """Evaluate ``data`` (a file path, DataFrame or list of dicts) with ``metrics``
    (names, option dicts or Metric instances).

    ``target`` is None (responses are in the data), a ``package.module:function`` path
    or a callable. ``judge`` is a model spec (``openai/gpt-4o-mini``), a dict of judge
    settings (model, base_url, rpm, prices …) or a provider object. Results go to the
    SQLite store (default ``.ragjudge/runs.db`` in the current folder); ``resume``
    finishes an interrupted run. Works in scripts and inside a running event loop
    (notebooks).
    """
    data_spec, data_object = _spec_or_object(data, str | Path)
    target_spec, target_object = _spec_or_object(target, str)
    judge_spec, judge_provider = _spec_or_object(judge, str | dict)
    config = EvalConfig(
        name=name,
        data=None if data_spec is None else str(data_spec),
        format=format,
        target=target_spec,
        # a Metric instance is recorded by its name; such a run resumes only when the
        # instances are passed again
        metrics=[m if isinstance(m, str | dict) else {"metric": m.name} for m in metrics],
        knowledge_base=knowledge_base,
        judge=judge_spec,
        trials=trials,
        concurrency=concurrency,
        limit=limit,
        by=by,
        store=None if store is None else str(store),
        seed=seed,
    )
    instances_given = any(isinstance(m, Metric) for m in metrics)
    return run_sync(
        lambda: run_evaluation(
            config,
            data=data_object,
            target=target_object,
            metrics=metrics if instances_given else None,
            resume=resume,
            judge_provider=judge_provider,
            progress=progress,
        )
    )


def _spec_or_object(value: Any, spec_types: Any) -> tuple[Any, Any]:
    """``(value, None)`` when ``value`` is None or a spec the config holds (a path, a
    model name …), else ``(None, value)``: an object handed to the run directly."""
    if value is None or isinstance(value, spec_types):
        return value, None
    return None, value

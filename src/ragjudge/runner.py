"""The runner: sends every sample to the target, scores the output with every metric
(for every trial), and writes each result to the store as it arrives."""

from __future__ import annotations

import asyncio
import platform
from collections.abc import Callable, Coroutine, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar, cast

import pandas as pd
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

import ragjudge
from ragjudge.config import ConfigError, EvalConfig, KnowledgeBaseConfig
from ragjudge.dryrun import DryRunPlan, plan_evaluation
from ragjudge.judging import build_agent_models, build_judge, check_judge, generate_config
from ragjudge.loading import load_samples
from ragjudge.metrics import Metric, MetricContext, create_metric
from ragjudge.models import Provider
from ragjudge.schema import Output, Sample, Score
from ragjudge.stats import MetricSummary, summarize_by, summarize_scores, summary_frame
from ragjudge.store import RunStatus, Store
from ragjudge.targets import CallableTarget, DataTarget, Target, TargetError, import_callable

T = TypeVar("T")

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
    if spec.kind in ("openai_chat", "json_api"):
        from ragjudge.http_targets import http_target_from_config

        return http_target_from_config(spec.model_dump(exclude_none=True))
    raise TargetError(
        f"unknown target kind {spec.kind!r}; known kinds: data, callable, openai_chat, json_api"
    )


def build_metrics(specs: Sequence[str | dict[str, Any] | Metric]) -> list[Metric]:
    metrics = [create_metric(s) for s in specs]
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
        check_target = getattr(metric, "check_target", None)
        if check_target is not None and (problem := check_target(target)) is not None:
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


def build_retriever(kb: KnowledgeBaseConfig | None, config: EvalConfig) -> Any:
    """The evaluation retriever: the target's own search endpoint when ``retriever`` is
    configured, else a BM25, dense or hybrid index over the knowledge base (dense
    indexes are cached under ``.ragjudge/index`` beside the config)."""
    if config.retriever is not None:
        from ragjudge.http_targets import http_retriever_from_config

        if config.retriever.get("kind", "http") != "http":
            raise ConfigError("retriever: only 'kind: http' is known (or use knowledge_base)")
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
        target: Target,
        trials: int,
        retriever: Any,
        judge: Any = None,
        generate_config: Any = None,
        agent_models: dict[str, dict[str, Any]] | None = None,
    ) -> None:
        self.judge = judge
        self.agent_models = agent_models or {}
        self.generate_config = generate_config
        self.store = store
        self.run_id = run_id
        self.metrics = metrics
        self.target = target
        self.trials = trials
        self.retriever = retriever
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
            output = await self.target(sample)
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
        return MetricContext(
            trial=trial,
            retriever=self.retriever,
            judge=self.judge,
            generate_config=self.generate_config,
            target=self.target,
            models=self.agent_models.get(metric.name, {}),
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


# entry points ---------------------------------------------------------------------


async def run_evaluation(
    config: EvalConfig,
    *,
    data: Any = None,
    target: Any = None,
    metrics: Sequence[Metric] | None = None,
    resume: str | None = None,
    progress: bool = True,
    use_cache: bool = True,
    judge_provider: Provider | None = None,
) -> EvaluationResult:
    """Run (or resume) an evaluation described by ``config``.

    ``data`` (a DataFrame or list of dicts), ``target`` (a callable), ``metrics``
    (Metric instances) and ``judge_provider`` (a model provider, wrapped in the judge
    layer with the config's limits) may be given as objects instead of through the
    config. With
    ``resume``, the run's stored samples, metrics and trials are used and only missing
    results are computed.
    """
    store = Store(config.store_path)
    try:
        if resume is not None:
            run = store.run(resume)
            run_id = run.run_id
            stored = EvalConfig.model_validate(run.config)
            config = stored.model_copy(update={"concurrency": config.concurrency})
            samples = store.samples(run_id)
        else:
            samples = _load_samples(config, data)
        metrics = list(metrics) if metrics is not None else build_metrics(config.metrics)
        target_obj = build_target(config, target)
        check_requirements(samples, metrics, target_obj)
        check_judge(config, metrics, provider=judge_provider)
        retriever = build_retriever(config.knowledge_base, config)
        if resume is None:
            run_id = store.create_run(
                name=config.name,
                config=config.to_record(),
                versions=_versions(),
                samples=samples,
                trials=config.trials,
            )
        else:
            store.set_status(run_id, "running")
        judge = build_judge(config, store, run_id, use_cache=use_cache, provider=judge_provider)
        agents = build_agent_models(config, metrics, store, run_id, use_cache=use_cache)
        execution = _Execution(
            store,
            run_id,
            metrics,
            target_obj,
            config.trials,
            retriever,
            judge=judge,
            generate_config=generate_config(config.judge),
            agent_models=agents,
        )
        try:
            await execution.run(samples, config.concurrency, progress)
        except (asyncio.CancelledError, KeyboardInterrupt):
            store.set_status(run_id, "interrupted")
            raise
        except BaseException:
            store.set_status(run_id, "failed")
            raise
        finally:
            await _close(
                target_obj, retriever, judge, *(m for a in agents.values() for m in a.values())
            )
        store.set_status(run_id, "completed")
        return summarize_run(store, run_id, by=config.by, metrics=metrics, seed=config.seed)
    finally:
        store.close()


async def dry_run(
    config: EvalConfig,
    *,
    data: Any = None,
    target: Any = None,
    metrics: Sequence[Metric] | None = None,
) -> DryRunPlan:
    """Build every judge prompt of the evaluation, count calls and estimate tokens and
    cost without calling the target or any model (see :mod:`ragjudge.dryrun`)."""
    samples = _load_samples(config, data)
    metric_objects = list(metrics) if metrics is not None else build_metrics(config.metrics)
    target_obj = build_target(config, target)
    check_requirements(samples, metric_objects, target_obj)
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
    """Close HTTP clients that targets and retrievers keep open across calls."""
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
    merged; a config whose metrics cannot be rebuilt (given as objects when the run
    was made, or no longer registered) contributes none."""
    merged: dict[str, set[float]] = {}
    for config in configs:
        try:
            metrics = build_metrics(EvalConfig.model_validate(config).metrics)
        except (ValueError, TypeError, KeyError, ImportError):
            continue
        for name, values in metric_exclusions(metrics).items():
            merged.setdefault(name, set()).update(map(float, values))
    return {name: sorted(values) for name, values in merged.items() if values}


def summarize_run(
    store: Store,
    run_id: str,
    *,
    by: str | None = None,
    metrics: Sequence[Metric] | None = None,
    seed: int = 0,
) -> EvaluationResult:
    """Aggregate a stored run: per-metric mean, CI, n, errors, and per-subset tables."""
    run = store.run(run_id)
    exclude = metric_exclusions(metrics) if metrics is not None else run_exclusions(run.config)
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
    metrics: Sequence[str | dict[str, Any] | Metric],
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
    """Evaluate ``data`` (a file path, DataFrame or list of dicts) with ``metrics``.

    ``target`` is None (responses are in the data), a ``package.module:function`` path
    or a callable. ``judge`` is a model spec (``openai/gpt-4o-mini``), a dict of judge
    settings (model, base_url, rpm, prices …) or a provider object. Results go to the SQLite store (default ``.ragjudge/runs.db`` in
    the current folder); ``resume`` finishes an interrupted run. Works in scripts and
    inside a running event loop (notebooks).
    """
    is_object = data is not None and not isinstance(data, str | Path)
    target_is_object = target is not None and not isinstance(target, str)
    config = EvalConfig(
        name=name,
        data=None if data is None or is_object else str(data),
        format=format,
        target=None if target_is_object else target,
        metrics=[m if isinstance(m, str | dict) else {"metric": m.name} for m in metrics],
        knowledge_base=knowledge_base,
        judge=None if judge is None or not isinstance(judge, str | dict) else judge,
        trials=trials,
        concurrency=concurrency,
        limit=limit,
        by=by,
        store=None if store is None else str(store),
        seed=seed,
    )
    metric_objects = None
    if any(isinstance(m, Metric) for m in metrics):
        metric_objects = [create_metric(m) for m in metrics]
    return run_sync(
        lambda: run_evaluation(
            config,
            data=data if is_object else None,
            target=target if target_is_object else None,
            metrics=metric_objects,
            resume=resume,
            judge_provider=None if judge is None or isinstance(judge, str | dict) else judge,
            progress=progress,
        )
    )

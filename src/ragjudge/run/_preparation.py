"""Setting up an evaluation, shared by a run and a dry run: the metrics (options
checked before any data is read), the target, the samples, the evaluation retriever,
and the checks that every row carries what every metric needs."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ragjudge._util.extras import require_extra
from ragjudge._util.importing import import_object
from ragjudge.config import ConfigError, EvalConfig, expand_environment
from ragjudge.errors import MissingExtra, NothingNew
from ragjudge.loading import DELTA_PREFIX, DataShape, LoadReport, read_evaluation_set
from ragjudge.loading._mlflow_traces import is_mlflow_data
from ragjudge.metrics import ConfigSettings, Metric, create_metric
from ragjudge.run._incremental import Continuation, check_named_rows, continuation
from ragjudge.run._matrix import judge_choice, judged_metrics
from ragjudge.run._reducing import check_reduce, reduce_choice, with_trials_reduce
from ragjudge.run._requirements import (
    SKIP_HINT,
    RequirementError,
    check_by_key,
    check_requirements,
    skip_unscorable_rows,
)
from ragjudge.run._row_skipping import (
    check_filled,
    filled_fields,
)
from ragjudge.run._sampling import per_group_sample, stratified_sample
from ragjudge.run._thresholds import with_threshold
from ragjudge.schema import Sample, TrialsReduce
from ragjudge.store._frames import reserved_name_problem
from ragjudge.targets._targets import (
    DataTarget,
    ReplyLimits,
    Target,
    TargetError,
    TargetSetupError,
    target_from_object,
)

if TYPE_CHECKING:
    from ragjudge.run._openai_evals import OpenAIEval

__all__ = [
    "SKIP_HINT",
    "MetricSpec",
    "Prepared",
    "RequirementError",
    "build_metrics",
    "build_retriever",
    "build_target",
    "check_requirements",
    "configured_metrics",
    "prepare",
]

MetricSpec = str | dict[str, Any] | Metric


@dataclass
class Prepared:
    """What an evaluation runs with, checked and built."""

    samples: list[Sample]
    metrics: list[Metric]
    target: Target
    retriever: Any
    notes: list[str] = field(default_factory=list)
    """What the run should say about its evaluation set: the format assumed, columns
    left unread, rows skipped or not applicable (see :mod:`ragjudge.loading`)."""
    continued: Continuation | None = None
    """For an incremental run: the earlier runs of its config it continues."""
    in_store: bool = False
    """The samples are not held (``samples`` is empty): the run reads them back from
    the store a page at a time."""


def prepare(
    config: EvalConfig,
    *,
    data: Any = None,
    target: Any = None,
    metrics: Sequence[MetricSpec] | None = None,
    samples: list[Sample] | None = None,
) -> Prepared:
    """Build and check everything before any paid work, in this order: the metrics (a
    bad option is a :class:`ConfigError` before any data is read), the target, the
    samples (``samples`` when given, as on a resume, else loaded from ``data`` or the
    config), the rows' fields against what the metrics need (what every row must have,
    and what some row must), the rows kept times the trials, and the retriever."""
    registry = _registry_eval(config)
    metric_objects = configured_metrics(config, metrics, registry)
    target_obj = build_target(config, target)
    notes: list[str] = []
    continued: list[Continuation] = []
    if samples is not None:
        rows = samples
    elif data is None and config.data is None and registry is not None:
        rows = load_config_samples(
            config, registry.rows, format="openai_evals", notes=notes, continued=continued
        )
    else:
        rows = load_config_samples(config, data, notes=notes, continued=continued)
    check_by_key(config.by, rows)
    check_filled(metric_objects, filled_fields(rows, metric_objects))
    if config.skip_invalid_rows:
        rows = skip_unscorable_rows(rows, metric_objects, target_obj, notes)
    else:
        check_requirements(rows, metric_objects, target_obj)
    config.check_run_size(len(rows))
    check_retriever(config, metric_objects)
    retriever = build_retriever(config)
    return Prepared(rows, metric_objects, target_obj, retriever, notes, next(iter(continued), None))


def configured_metrics(
    config: EvalConfig,
    metrics: Sequence[MetricSpec] | None = None,
    registry: OpenAIEval | None = None,
) -> list[Metric]:
    """The run's metrics: ``metrics`` when given, else the config's (an openai-evals
    eval's first); also how a Ray worker builds its own."""
    if registry is None and metrics is None:
        registry = _registry_eval(config)
    given = list(config.metrics if metrics is None else metrics)
    if registry is not None and metrics is None:
        given = [*registry.metrics, *given]
    return build_metrics(
        given,
        base_dir=config.base_dir,
        settings=_config_settings(config),
        where=config.where("metrics"),
        judges=config.judge_names,
        trials_reduce=config.trials_reduce_choice(),
        trials=config.trials,
    )


def _config_settings(config: EvalConfig) -> ConfigSettings:
    """What ``config`` gives metric options that declare a config-wide setting or a
    path: its settings by name and its folder."""

    def setting(name: str) -> Any:
        if name not in EvalConfig.model_fields:
            raise ConfigError(
                f"a metric option takes the config setting {name!r}, which no config has"
            )
        return getattr(config, name)

    return ConfigSettings(folder=config.base_dir, setting=setting)


def build_target(config: EvalConfig, target: Any = None) -> Target:
    """The target from an explicit object (callable or Target) or from the config. A
    Python function's calls run at most ``config.concurrency`` at a time."""
    if target is not None and not isinstance(target, str):
        return target_from_object(target, concurrency=config.concurrency)
    spec = config.target
    if spec is None or spec.kind == "data":
        return DataTarget()
    if spec.kind == "callable":
        if not spec.path:
            raise TargetSetupError("target kind 'callable' needs 'path: package.module:function'")
        # A resumed run's stored record keeps ${VAR} references.
        path = str(expand_environment(spec.path, source="target"))
        app = import_object(path, search_dir=config.base_dir)
        limits = ReplyLimits.of(
            max_reply_bytes=spec.max_reply_bytes,
            max_contexts=spec.max_contexts,
            max_context_bytes=spec.max_context_bytes,
        )
        return target_from_object(
            app,
            name=path,
            where=f"target {path!r}",
            timeout=spec.timeout,
            concurrency=config.concurrency,
            limits=limits,
        )
    if spec.kind == "mlflow_model":
        from ragjudge.targets._mlflow_model import mlflow_model_target

        return mlflow_model_target(
            spec.model_dump(exclude_none=True), concurrency=config.concurrency
        )
    # imported here: an HTTP client (httpx2) only for the runs that call one
    from ragjudge.targets.http import HTTP_TARGET_KINDS, http_target_from_config

    if spec.kind in HTTP_TARGET_KINDS:
        return http_target_from_config(spec.model_dump(exclude_none=True))
    known = ", ".join(("data", "callable", "mlflow_model", *HTTP_TARGET_KINDS))
    raise TargetSetupError(f"unknown target kind {spec.kind!r}; known kinds: {known}")


def build_metrics(
    specs: Sequence[MetricSpec],
    *,
    base_dir: Path | None = None,
    settings: ConfigSettings | None = None,
    where: str = "metrics",
    judges: Sequence[str] = (),
    trials_reduce: TrialsReduce | None = None,
    trials: int | None = None,
) -> list[Metric]:
    """The run's metrics from names, option dicts or instances, each judged metric once
    per named judge it uses when the run has several (``judges``, see
    :mod:`ragjudge.run._matrix`); an unknown metric, a
    bad option, a repeated score name or one reserved for the export's other columns
    (:func:`ragjudge.store._frames.reserved_name_problem`) is a :class:`ConfigError`. ``module:Class``
    metrics are looked up beside the config (``base_dir``) first; ``settings`` fill the
    options that take a config-wide setting or a path. ``where`` begins each message
    (the config file and its key). A metric's trials are reduced as its entry says
    (``reduce``, see :mod:`ragjudge.run._reducing`), else by ``trials_reduce``; a
    reducer that cannot apply (``reduce_k`` above ``trials``) is a :class:`ConfigError`."""
    metrics: list[Metric] = []
    problems: list[str] = []
    for spec in specs:
        try:
            unreduced, reduce = reduce_choice(spec, f"metric {_spec_name(spec)!r}")
            plain, choice = judge_choice(unreduced, f"metric {_spec_name(spec)!r}")
            metric = create_metric(plain, search_dir=base_dir, settings=settings)
            metric = with_threshold(metric)
            metric = _reduced(metric, reduce or trials_reduce, trials)
            metrics.extend(judged_metrics(metric, choice, judges, f"metric {metric.name!r}"))
        except (ValueError, TypeError) as exc:
            problems.append(str(exc))
    if problems:
        raise ConfigError(f"{where}: " + "\n  ".join(problems))
    check_metric_extras(metrics)
    reserved = [
        f"metric {m.name!r}: the score name {n!r} is reserved: {problem}"
        for m in metrics
        for n in m.score_names()
        if (problem := reserved_name_problem(n)) is not None
    ]
    if reserved:
        raise ConfigError(
            f"{where}: " + "\n  ".join(reserved) + "\n  (give the metric another 'name')"
        )
    names = [n for m in metrics for n in m.score_names()]
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        raise ConfigError(
            f"metric names must be unique in a run; repeated: {', '.join(duplicates)}"
            " (give each instance its own 'name')"
        )
    return metrics


def _reduced(metric: Metric, reduce: TrialsReduce | None, trials: int | None) -> Metric:
    """``metric`` with its trials reduced by ``reduce`` (checked), or as it is."""
    if reduce is None:
        return metric
    check_reduce(metric, reduce, trials, f"metric {metric.name!r}")
    return with_trials_reduce(metric, reduce)


def _spec_name(spec: MetricSpec) -> str:
    """What a metric spec is called before it is built, for a message."""
    if isinstance(spec, dict):
        return str(spec.get("name") or spec.get("metric"))
    return spec if isinstance(spec, str) else spec.name


def check_metric_extras(metrics: Sequence[Metric]) -> None:
    """Refuse, before anything is read or paid for, a metric whose optional extra
    (:attr:`Metric.extra`, a local embedding model) is not installed: a
    :class:`MissingExtra` naming the metric and the pip command."""
    for metric in metrics:
        for extra in metric.extras():
            embeds_locally = extra == "local" and metric.extra != "local"
            how = " (its local embedding model)" if embeds_locally else ""
            require_extra(extra, f"metric {metric.name!r}{how}")


def load_config_samples(
    config: EvalConfig,
    data: Any,
    *,
    format: str | None = None,
    notes: list[str] | None = None,
    continued: list[Continuation] | None = None,
) -> list[Sample]:
    """The evaluation set: ``data`` when given (a DataFrame, list of dicts, dict of
    columns or path), else the config's ``data``, read with the config's ``format``,
    ``columns`` and ``skip_invalid_rows``; with ``incremental``, only the rows no earlier
    run of the config scored; of those, the first ``limit`` rows when a limit is set, or
    a random ``sample`` stratified by ``by`` (or ``sample`` rows per value of
    ``sample_per``). ``notes`` receives what the reading decided,
    ``continued`` what an incremental run continues."""
    check_sample_per(config)
    if data is None:
        if config.data is None:
            raise ConfigError("no evaluation set: give 'data' (a file, DataFrame or list of dicts)")
        data = _config_source(config, config.data)
    loaded = read_evaluation_set(
        data,
        format=format or config.format,
        columns=config.columns,
        skip_invalid_rows=config.skip_invalid_rows,
        max_field_bytes=config.max_field_bytes,
        shape=_data_shape(config),
        where=config.data_where,
    )
    if notes is not None:
        notes.extend(loaded.report.notes())
    samples = loaded.samples
    if config.incremental:
        samples = _new_rows(config, loaded.report, samples, continued)
    if config.sample and config.sample_per:
        return per_group_sample(samples, config.sample, per=config.sample_per, seed=config.seed)
    if config.sample:
        return stratified_sample(samples, config.sample, by=config.by, seed=config.seed)
    return samples[: config.limit] if config.limit else samples


def _new_rows(
    config: EvalConfig,
    report: LoadReport,
    samples: list[Sample],
    continued: list[Continuation] | None,
) -> list[Sample]:
    """The rows of an incremental run: those no earlier run of its config scored."""
    check_named_rows(report, config.where("incremental"))
    found, new = continuation(config, samples)
    if not new:
        raise NothingNew(
            f"nothing new to evaluate: all {len(samples)} rows of {report.source} were "
            f"scored by earlier runs of this config ({', '.join(found.continues[-3:])})"
        )
    if continued is not None:
        continued.append(found)
    return new


def _data_shape(config: EvalConfig) -> DataShape:
    """How the config's data departs from one column per field; a config with
    ``systems`` must name the one it evaluates (see :meth:`EvalConfig.system_configs`)."""
    if config.systems and config.system is None:
        raise ConfigError(
            "systems: a wide file makes one run per system; run it with 'ragjudge run' or "
            "evaluate_systems()"
        )
    return DataShape(config.delimiter, config.separators, config.systems, config.system)


def _registry_eval(config: EvalConfig) -> OpenAIEval | None:
    """The openai-evals eval the config names (its metrics and rows), or None."""
    if config.openai_evals is None:
        return None
    from ragjudge.run._openai_evals import load_eval

    chosen = config.openai_evals
    return load_eval(config.resolve(chosen.registry), chosen.eval, invalid=chosen.invalid)


def check_retriever(config: EvalConfig, metrics: Sequence[Metric]) -> None:
    """Metrics that search for evaluation contexts need a knowledge base or a
    retriever endpoint."""
    needing = list(dict.fromkeys(m.name for m in metrics if m.needs_retriever))
    if needing and config.knowledge_base is None and config.retriever is None:
        names = ", ".join(repr(n) for n in needing)
        raise ConfigError(
            f"metric {names} retrieves evaluation contexts: configure 'knowledge_base' "
            "(or 'retriever: {kind: http, url: ...}'), or use contexts: retrieved or none"
        )


def build_retriever(config: EvalConfig) -> Any:
    """The evaluation retriever: the target's own search endpoint when ``retriever`` is
    configured, else a BM25, dense or hybrid index over the knowledge base (dense
    indexes are cached under ``.ragjudge/index`` beside the config); None without
    either."""
    if config.retriever is not None:
        from ragjudge.targets.http import http_retriever_from_config

        try:
            return http_retriever_from_config(config.retriever)
        except TargetError as exc:
            raise ConfigError(f"retriever: {exc}") from exc
    kb = config.knowledge_base
    if kb is None:
        return None
    from ragjudge.knowledge import KnowledgeBase
    from ragjudge.knowledge import _retrieval as retrieval

    if kb.retriever not in retrieval.RETRIEVER_KINDS:
        known = ", ".join(retrieval.RETRIEVER_KINDS)
        raise ConfigError(f"unknown retriever {kb.retriever!r}; known: {known}")
    try:
        base = KnowledgeBase.load(
            config.resolve(kb.path),
            chunk_size=kb.chunk_size,
            chunk_overlap=kb.chunk_overlap,
            workers=None if config.processes == "auto" else config.processes,
        )
    except (ValueError, OSError) as exc:  # TextFileError is a ValueError
        raise ConfigError(f"knowledge_base: {exc}") from None
    try:
        return retrieval.build_retriever(
            base,
            kb.retriever,  # type: ignore[arg-type]
            embedder=kb.embedding,
            cache_dir=config.resolve(".ragjudge/index"),
            k_rrf=kb.k_rrf,
        )
    except MissingExtra as exc:
        raise MissingExtra(
            f"knowledge_base: retriever {kb.retriever!r}: {exc}", extra=exc.extra
        ) from None


def check_sample_per(config: EvalConfig) -> None:
    """``sample_per`` says how ``sample`` draws: alone it would be silently ignored."""
    if config.sample_per is not None and config.sample is None:
        raise ConfigError(
            f"{config.where('sample_per')}: give 'sample' (the most rows drawn per value) too"
        )


def _config_source(config: EvalConfig, data: str) -> str | Path:
    """The config's ``data``: a path relative to the config's folder (``delta:PATH``
    too), or the traces of an MLflow experiment as named."""
    if is_mlflow_data(data):
        return data
    if data.startswith(DELTA_PREFIX):
        return DELTA_PREFIX + str(config.resolve(data.removeprefix(DELTA_PREFIX)))
    return config.resolve(data)

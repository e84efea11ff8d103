"""The Python API: :func:`evaluate` (sync, also inside a running event loop, such as a
notebook's) and :func:`aevaluate` (awaited, for async code), both building a config
from their arguments and running it with :func:`ragjudge.run._runner.run_evaluation`."""

from __future__ import annotations

import functools
import inspect
import warnings
from collections.abc import Callable, Coroutine, Sequence
from pathlib import Path
from typing import Any, Literal, ParamSpec, TypeVar, get_args

from pydantic import ValidationError

from ragjudge.analysis._gates import (
    check_gates,
    configured_gates,
    failed_gates,
    needs_calibrated,
)
from ragjudge.analysis._results import EvaluationResult
from ragjudge.analysis._systems import SystemRuns
from ragjudge.config import ConfigError, EvalConfig, expand_presets
from ragjudge.config._surface import (
    control_default,
    controls_documentation,
    setting_default,
    settings_documentation,
)
from ragjudge.errors import RunFailed, RunFailedWarning
from ragjudge.metrics import Metric, create_metric
from ragjudge.metrics._function import is_plain_function
from ragjudge.models import Provider
from ragjudge.run._preparation import MetricSpec
from ragjudge.run._resuming import resumed_config, stored_run
from ragjudge.run._runner import run_evaluation, run_sync

__all__ = ["aevaluate", "aevaluate_systems", "evaluate", "evaluate_systems"]

OnFailure = Literal["warn", "raise", "ignore"]

P = ParamSpec("P")
T = TypeVar("T")


async def aevaluate(
    data: Any = None,
    *,
    target: Any = None,
    metrics: Sequence[MetricSpec | Callable[..., Any]],
    knowledge_base: str | Path | dict[str, Any] | None = setting_default("knowledge_base"),
    judge: str | dict[str, Any] | Provider | None = setting_default("judge"),
    judges: dict[str, str | dict[str, Any]] | None = setting_default("judges"),
    name: str | None = setting_default("name"),
    format: str | None = setting_default("format"),
    columns: dict[str, str] | None = None,
    delimiter: str | None = setting_default("delimiter"),
    separators: dict[str, str] | None = None,
    systems: dict[str, str] | None = None,
    skip_invalid_rows: bool = setting_default("skip_invalid_rows"),
    max_field_bytes: int = setting_default("max_field_bytes"),
    specs: Sequence[str] | None = None,
    openai_evals: dict[str, Any] | None = setting_default("openai_evals"),
    retriever: dict[str, Any] | None = setting_default("retriever"),
    cache: bool | str = setting_default("cache"),
    trials: int = setting_default("trials"),
    trials_reduce: str = setting_default("trials_reduce"),
    trials_reduce_k: int | None = setting_default("trials_reduce_k"),
    trials_pass_threshold: float | None = setting_default("trials_pass_threshold"),
    concurrency: int | None = None,
    processes: int | str = setting_default("processes"),
    max_error_rate: float = setting_default("max_error_rate"),
    max_cost: float | None = setting_default("max_cost"),
    dry_run_target_rows: int = setting_default("dry_run_target_rows"),
    limit: int | None = setting_default("limit"),
    sample: int | None = setting_default("sample"),
    sample_per: str | None = setting_default("sample_per"),
    data_where: str | None = setting_default("data_where"),
    incremental: bool = setting_default("incremental"),
    by: str | None = setting_default("by"),
    store: str | Path | None = setting_default("store"),
    seed: int = setting_default("seed"),
    report: bool | str | dict[str, Any] | None = setting_default("report"),
    fail_under: dict[str, float] | None = None,
    fail_over: dict[str, float] | None = None,
    gate: str = setting_default("gate"),
    executor: str = setting_default("executor"),
    ray: dict[str, Any] | None = setting_default("ray"),
    results_table: str | dict[str, Any] | None = setting_default("results_table"),
    anchors: str | list[dict[str, Any]] | None = setting_default("anchors"),
    reference_run: str | None = setting_default("reference_run"),
    resume: str | None = control_default("resume"),
    retry_errors: bool = control_default("retry_errors"),
    progress: bool = control_default("progress"),
    on_failure: OnFailure = control_default("on_failure"),
) -> EvaluationResult:
    """:func:`evaluate`, awaited on the running event loop: for async code (an async
    test, a FastAPI handler, a notebook cell with ``await``). The arguments are those
    of :func:`evaluate`.

    >>> result = await rj.aevaluate("evalset.jsonl", target=my_async_app, metrics=["rouge_l"])
    """
    arguments = dict(locals())
    if systems:
        raise ConfigError(
            "systems: a wide file makes one run per system; call evaluate_systems() "
            "(aevaluate_systems() in async code) for one result per system"
        )
    ((_, result),) = await _evaluate_each(arguments)
    return result


async def aevaluate_systems(
    data: Any = None, *, systems: dict[str, str], **settings: Any
) -> SystemRuns:
    """:func:`evaluate_systems`, awaited on the running event loop (for async code)."""
    try:
        bound = inspect.signature(aevaluate).bind(data, systems=systems, **settings)
    except TypeError as exc:
        raise TypeError(f"evaluate_systems(): {exc}") from None
    bound.apply_defaults()
    if not systems:
        raise ConfigError("systems: name at least one system and its response column")
    return SystemRuns(dict(await _evaluate_each(bound.arguments)))


async def _evaluate_each(arguments: dict[str, Any]) -> list[tuple[str, EvaluationResult]]:
    """Run the evaluation :func:`aevaluate`'s ``arguments`` describe, once per system
    of ``systems`` (once when there are none, keyed ``""``), or resume the one stored
    run ``resume`` names; each result checked as ``on_failure`` asks once all ran."""
    on_failure = arguments["on_failure"]
    if on_failure not in get_args(OnFailure):
        raise ConfigError(f"on_failure: {on_failure!r} is not one of 'warn', 'raise', 'ignore'")
    given = _metric_specs(arguments["metrics"])
    data_spec, data_object = _spec_or_object(arguments["data"], str | Path)
    target_spec, target_object = _spec_or_object(arguments["target"], str)
    judge_spec, judge_provider = _spec_or_object(arguments["judge"], str | dict)
    settings = {name: arguments[name] for name in _PLAIN_SETTINGS}
    if settings["concurrency"] is None:  # not given: the config's default, or batch mode's
        del settings["concurrency"]
    settings.update(
        {
            "data": None if data_spec is None else str(data_spec),
            "columns": arguments["columns"] or {},
            "separators": arguments["separators"] or {},
            "systems": arguments["systems"] or {},
            "target": target_spec,
            # a Metric instance is recorded by its name; such a run resumes only when the
            # instances are passed again
            "metrics": [m if isinstance(m, str | dict) else {"metric": m.name} for m in given],
            "specs": list(arguments["specs"] or []),
            "judge": judge_spec,
            "store": None if arguments["store"] is None else str(arguments["store"]),
            "fail_under": arguments["fail_under"] or {},
            "fail_over": arguments["fail_over"] or {},
        }
    )
    try:
        config = EvalConfig(**settings)
    except ValidationError as exc:
        raise ConfigError(_plain_errors(exc)) from None
    instances_given = any(isinstance(m, Metric) for m in given)
    resume = arguments["resume"]
    results = []
    for system, one in _runs_to_make(config, resume):
        result = await run_evaluation(
            one,
            data=data_object,
            target=target_object,
            metrics=given if instances_given else None,
            resume=resume,
            retry_errors=arguments["retry_errors"],
            judge_provider=judge_provider,
            progress=arguments["progress"],
        )
        gates = configured_gates(config)
        result.gates = check_gates(
            result.summaries,
            gates,
            on=config.gate,
            pass_rates=result.pass_rates,
            calibrated=result.calibrated() if needs_calibrated(gates) else None,
        )
        results.append((system, result))
    return [(system, _checked(result, on_failure)) for system, result in results]


_PLAIN_SETTINGS = (
    "name", "format", "delimiter", "skip_invalid_rows", "max_field_bytes", "openai_evals",
    "knowledge_base", "retriever", "judges", "cache", "trials", "trials_reduce",
    "trials_reduce_k", "trials_pass_threshold", "concurrency", "processes",
    "max_error_rate", "max_cost", "dry_run_target_rows", "limit", "sample", "incremental",
    "by", "seed", "sample_per", "data_where",
    "report", "gate", "executor", "ray", "results_table", "anchors", "reference_run",
)  # fmt: skip
"""Arguments of :func:`aevaluate` that go into the config as they are given."""


def _runs_to_make(config: EvalConfig, resume: str | None) -> list[tuple[str, EvalConfig]]:
    """Each system's config (see :meth:`EvalConfig.system_configs`); with ``resume``,
    the one stored run it names, keyed by the system that run evaluated (``""`` for a
    run of a config without systems)."""
    if resume is None:
        return config.system_configs()
    run, _ = stored_run(config, resume, read=False)
    return [(resumed_config(run, config).system or "", config)]


def _checked(result: EvaluationResult, on_failure: OnFailure) -> EvaluationResult:
    """``result``, after the warning or the exception ``on_failure`` asks for when the
    run ended ``incomplete`` or ``failed``, or a quality gate failed."""
    message = _failure_message(result)
    if message is None or on_failure == "ignore":
        return result
    if on_failure == "raise":
        raise RunFailed(message, result)
    warnings.warn(message, RunFailedWarning, stacklevel=1)  # async: no caller frame above
    return result


def _failure_message(result: EvaluationResult) -> str | None:
    """Why the run counts as failed (its status, then its failed gates), or None."""
    if result.status in ("incomplete", "failed"):
        return f"run {result.run_id} is {result.status}: " + "; ".join(result.verdict.reasons)
    failed = failed_gates(result.gates)
    if failed:
        return f"run {result.run_id}: " + "; ".join(g.reason for g in failed)
    return None


def _blocking(
    coroutine_function: Callable[P, Coroutine[Any, Any, T]], name: str, doc: str
) -> Callable[P, T]:
    """``coroutine_function`` called from sync code (see :func:`run_sync`), with its
    signature and the given name and docstring."""

    @functools.wraps(coroutine_function)
    def call(*args: P.args, **kwargs: P.kwargs) -> T:
        return run_sync(lambda: coroutine_function(*args, **kwargs))

    call.__name__ = call.__qualname__ = name
    call.__doc__ = doc
    return call


_EVALUATE_DOC = """Evaluate ``data`` with ``metrics`` and return the run's result; works in
scripts and inside a running event loop (a notebook: the run goes to a worker thread).
In async code, ``await`` :func:`aevaluate` instead.

``data`` is a file path, a DataFrame, a list of dicts or a dict of columns
(``{{"question": [...], "answer": [...]}}``, each a list of one length). ``metrics`` are
names, option dicts, Metric instances, or plain functions ``(sample, output) -> float``
named after themselves. ``target`` is None (the responses are in the data), a
``module:function`` path (or ``path/to/file.py:function``), a callable, or an application
object recognised by its shape: a LangChain Runnable, a LlamaIndex query or chat engine,
a model with ``predict`` (see docs/frameworks.md). ``judge`` is a model spec
(``openai/gpt-4o-mini``), a dict of judge settings or a provider object.

Every keyword is a setting of the evaluation, the same as the YAML config's key of that
name, with the same default (for ``columns``, ``separators``, ``systems``, ``specs`` and
``metrics``, None stands for none); ``systems`` (a wide file, one run per system) is
refused here: :func:`evaluate_systems` takes it.

{settings}

How this call runs it:

{controls}
"""

evaluate = _blocking(
    aevaluate,
    "evaluate",
    _EVALUATE_DOC.format(settings=settings_documentation(), controls=controls_documentation()),
)


def _metric_specs(metrics: Sequence[MetricSpec | Callable[..., Any]]) -> list[MetricSpec]:
    """The metrics with each plain function made a metric named after it and each
    ``{"preset": NAME}`` replaced by its metrics."""
    try:
        metrics = expand_presets(list(metrics))
    except ValueError as exc:
        raise ConfigError(f"metrics: {exc}") from None
    specs: list[MetricSpec] = []
    for metric in metrics:
        if isinstance(metric, str | dict | Metric):
            specs.append(metric)
        elif is_plain_function(metric):
            specs.append(create_metric(metric))
        else:
            raise TypeError(f"{metric!r} is not a metric name, dict, Metric or function")
    return specs


def _plain_errors(exc: ValidationError) -> str:
    """A validation error of evaluate()'s arguments in words, one line per argument."""
    lines = []
    for error in exc.errors():
        where = ".".join(str(p) for p in error["loc"]) or "arguments"
        lines.append(f"{where}: {error['msg'].removeprefix('Value error, ')}")
    return "invalid arguments: " + "; ".join(lines)


def _spec_or_object(value: Any, spec_types: Any) -> tuple[Any, Any]:
    """``(value, None)`` when ``value`` is None or a spec the config holds (a path, a
    model name …), else ``(None, value)``: an object handed to the run directly."""
    if value is None or isinstance(value, spec_types):
        return value, None
    return None, value


evaluate_systems = _blocking(
    aevaluate_systems,
    "evaluate_systems",
    """Evaluate a wide file (one response column per system) once per system and return
each system's result, in the order of ``systems``; works in scripts and notebooks (in
async code, ``await`` :func:`aevaluate_systems`).

``systems`` maps each system's name to the column holding its responses
(``{"gpt4o": "response_gpt4o", "llama": "response_llama"}``); every other argument is
one of :func:`evaluate`'s, with its default. Each system's run is stored under the name
``NAME/SYSTEM`` (NAME: ``name``, or the data file's stem) with the same sample ids, so
``runs.compare("gpt4o", "llama")`` pairs every row. With ``resume``, the stored run of
one system is finished and returned alone, keyed by its system. ``on_failure`` is
applied to each run once all have run (with ``"raise"``, the first failed one raises).

>>> runs = rj.evaluate_systems("wide.tsv", systems={"a": "answer_a", "b": "answer_b"},
...                            columns={"request": "question"}, metrics=["token_f1"])
>>> runs["a"].summaries, runs.compare("a", "b")
""",
)

"""The Python API: :func:`evaluate` (sync, also inside a running event loop, such as a
notebook's) and :func:`aevaluate` (awaited, for async code), both building a config
from their arguments and running it with :func:`ragjudge.run._runner.run_evaluation`."""

from __future__ import annotations

import functools
from collections.abc import Callable, Coroutine, Sequence
from pathlib import Path
from typing import Any, ParamSpec, TypeVar

from pydantic import ValidationError

from ragjudge.analysis._results import EvaluationResult
from ragjudge.config._eval import ConfigError, EvalConfig
from ragjudge.metrics import Metric, create_metric
from ragjudge.metrics._function import is_plain_function
from ragjudge.models import Provider
from ragjudge.run._preparation import MetricSpec
from ragjudge.run._runner import run_evaluation, run_sync

__all__ = ["aevaluate", "evaluate"]

P = ParamSpec("P")
T = TypeVar("T")


async def aevaluate(
    data: Any = None,
    *,
    target: Any = None,
    metrics: Sequence[MetricSpec | Callable[..., Any]],
    knowledge_base: str | Path | dict[str, Any] | None = None,
    judge: str | dict[str, Any] | Provider | None = None,
    trials: int = 1,
    concurrency: int = 8,
    processes: int | str = "auto",
    limit: int | None = None,
    sample: int | None = None,
    by: str | None = None,
    store: str | Path | None = None,
    name: str | None = None,
    format: str | None = None,
    columns: dict[str, str] | None = None,
    skip_invalid_rows: bool = False,
    resume: str | None = None,
    retry_errors: bool = False,
    seed: int = 0,
    progress: bool = True,
    executor: str = "local",
    ray: dict[str, Any] | None = None,
) -> EvaluationResult:
    """:func:`evaluate`, awaited on the running event loop: for async code (an async
    test, a FastAPI handler, a notebook cell with ``await``). The arguments are those
    of :func:`evaluate`.

    >>> result = await rj.aevaluate("evalset.jsonl", target=my_async_app, metrics=["rouge_l"])
    """
    given = _metric_specs(metrics)
    data_spec, data_object = _spec_or_object(data, str | Path)
    target_spec, target_object = _spec_or_object(target, str)
    judge_spec, judge_provider = _spec_or_object(judge, str | dict)
    try:
        config = EvalConfig(
            name=name,
            data=None if data_spec is None else str(data_spec),
            format=format,
            columns=columns or {},
            skip_invalid_rows=skip_invalid_rows,
            target=target_spec,
            # a Metric instance is recorded by its name; such a run resumes only when the
            # instances are passed again
            metrics=[m if isinstance(m, str | dict) else {"metric": m.name} for m in given],
            knowledge_base=knowledge_base,
            judge=judge_spec,
            trials=trials,
            concurrency=concurrency,
            processes=processes,
            limit=limit,
            sample=sample,
            by=by,
            store=None if store is None else str(store),
            seed=seed,
            executor=executor,
            ray=ray,
        )
    except ValidationError as exc:
        raise ConfigError(_plain_errors(exc)) from None
    instances_given = any(isinstance(m, Metric) for m in given)
    return await run_evaluation(
        config,
        data=data_object,
        target=target_object,
        metrics=given if instances_given else None,
        resume=resume,
        retry_errors=retry_errors,
        judge_provider=judge_provider,
        progress=progress,
    )


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


evaluate = _blocking(
    aevaluate,
    "evaluate",
    """Evaluate ``data`` (a file path, DataFrame or list of dicts) with ``metrics``
(names, option dicts, Metric instances, or plain functions
``(sample, output) -> float`` named after themselves).

``target`` is None (responses are in the data), a ``package.module:function`` path
(or ``path/to/file.py:function``) or a callable. ``judge`` is a model spec
(``openai/gpt-4o-mini``), a dict of judge settings (model, base_url, rpm, prices …)
or a provider object. ``format`` names the data's layout (guessed from its columns
otherwise) and ``columns`` maps Sample fields to the data's own column names
(``{"request": "ticket_text", "response": "bot_reply"}``). ``skip_invalid_rows``
scores what can be scored and reports the rest (rows that cannot be read are left
out; a metric is not applicable to rows lacking its inputs). ``limit`` takes the
first N rows, ``sample`` N random rows stratified by ``by`` (drawn with ``seed``).
Results go to the SQLite store (default ``.ragjudge/runs.db`` in the current
folder); ``resume`` finishes an interrupted run (``retry_errors``: and computes
its errored results again). ``executor="ray"`` evaluates the samples on Ray workers
(``ray``: the ``ray:`` config section, e.g. ``{"address": "host:6379"}``);
``processes`` (``"auto"``: every CPU) score CPU-only metrics of a large run and chunk
a large knowledge base on one machine, ``1`` keeps them in this process. Works
in scripts and inside a running event loop (notebooks: the run goes to a worker
thread); in async code, ``await`` :func:`aevaluate` instead.
""",
)


def _metric_specs(metrics: Sequence[MetricSpec | Callable[..., Any]]) -> list[MetricSpec]:
    """The metrics with each plain function made a metric named after it."""
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

"""The entry points of an evaluation from a config: :func:`run_evaluation` (async) and
:func:`dry_run`; :func:`run_sync` runs a coroutine from sync code (also inside a
running event loop). The Python API built on them, ``evaluate`` and ``aevaluate``, is
in :mod:`ragjudge.api`.

Setting up lives in :mod:`ragjudge.run._preparation`, executing in
:mod:`ragjudge.run._execution`, aggregating in :mod:`ragjudge.analysis._results`.
"""

from __future__ import annotations

import asyncio
import platform
from collections.abc import Callable, Coroutine, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import nullcontext
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from rich.console import Console

from ragjudge._util.gc import fewer_collections, kept_for_good
from ragjudge._util.parallel import usable_cpus
from ragjudge._version import __version__
from ragjudge.analysis._rate_limits import record_rate_limits
from ragjudge.analysis._results import EvaluationResult, summarize_run
from ragjudge.config import ConfigError, EvalConfig
from ragjudge.loading import STREAM_PAGE_ROWS
from ragjudge.metrics import Metric, MetricContext
from ragjudge.models import JudgeCallRecord, JudgeModel, PermitSource, Provider, ResponseCache
from ragjudge.run._execution import Execution, outcome_recorded
from ragjudge.run._judging import (
    build_agent_models,
    build_embedders,
    build_judge,
    check_judge,
    generate_config,
    open_cache,
    preflight,
    record_calls,
)
from ragjudge.run._preparation import MetricSpec, Prepared, RequirementError, prepare
from ragjudge.run._resuming import resumed_config, stored_run
from ragjudge.run.ray import require_ray
from ragjudge.schema import Sample
from ragjudge.store._events import NOTE
from ragjudge.store._lock import run_lock
from ragjudge.store._store import RunInfo, Store, new_run_id

if TYPE_CHECKING:
    from ragjudge.run._dryrun import DryRunPlan
    from ragjudge.run._spooling import SpooledSet

__all__ = [
    "EvaluationResult",
    "RequirementError",
    "dry_run",
    "run_evaluation",
    "run_sync",
]

T = TypeVar("T")


@dataclass(frozen=True)
class _Options:
    """How a prepared run executes."""

    progress: bool = True
    use_cache: bool = True
    provider: Provider | None = None
    retry_errors: bool = False
    on_start: Callable[[str], None] | None = None
    given_metrics: bool = False
    given_target: bool = False


async def run_evaluation(
    config: EvalConfig,
    *,
    data: Any = None,
    target: Any = None,
    metrics: Sequence[MetricSpec] | None = None,
    resume: str | None = None,
    retry_errors: bool = False,
    progress: bool = True,
    use_cache: bool = True,
    judge_provider: Provider | None = None,
    on_start: Callable[[str], None] | None = None,
) -> EvaluationResult:
    """Run (or resume) an evaluation described by ``config``.

    ``data`` (a DataFrame or list of dicts), ``target`` (a callable), ``metrics``
    (names, option dicts or Metric instances) and ``judge_provider`` (a model provider,
    wrapped in the judge layer with the config's limits) may be given as objects
    instead of through the config. With ``resume``, the run's stored samples, metrics
    and trials are used (only the concurrency and the ``by`` breakdown come from
    ``config``) and only missing results are computed; ``retry_errors`` computes its
    errored results again too. One process at a time executes a run
    (:class:`~ragjudge.store._lock.RunBusy` otherwise). ``on_start`` is called with the run
    id once the run is stored (so an interrupted caller can name it).
    """
    resumed, stored_samples = None, None
    if resume is not None:
        resumed, stored_samples = stored_run(
            config, resume, read=not _pages_stored(config, metrics)
        )
        config = resumed_config(resumed, config)
    elif retry_errors:
        raise ConfigError("retry_errors (--retry-errors) goes with resume (--resume RUN)")
    options = _Options(
        progress,
        use_cache,
        judge_provider,
        retry_errors,
        on_start,
        given_metrics=metrics is not None,
        given_target=target is not None and not isinstance(target, str),
    )
    if config.executor == "ray":
        require_ray(config)
    with fewer_collections():
        return await _run_prepared(config, data, target, metrics, stored_samples, resumed, options)


async def _run_prepared(
    config: EvalConfig,
    data: Any,
    target: Any,
    metrics: Sequence[MetricSpec] | None,
    stored_samples: list[Sample] | None,
    resumed: RunInfo | None,
    options: _Options,
) -> EvaluationResult:
    """Prepare the run, then execute it with the store open and the run locked."""
    # Everything is checked before the store is opened: a bad config leaves no file.
    setup, spool = _prepared(config, data, target, metrics, stored_samples, resumed=resumed)
    try:
        check_judge(config, setup.metrics, provider=options.provider)
        with Store(config.store_path) as store:
            # The models record their calls under the run id, so it is drawn before the
            # run is stored: a judge that cannot be built leaves no empty run behind.
            run_id = new_run_id() if resumed is None else resumed.run_id
            with run_lock(store.path, run_id):
                return await _execute(store, run_id, config, setup, resumed, options, spool)
    finally:
        if spool is not None:
            spool.remove()
        await _close(setup.target, setup.retriever)


def _pages_stored(config: EvalConfig, metrics: Sequence[MetricSpec] | None) -> bool:
    """Whether a resumed run's samples stay in the store, read a page at a time by
    the Ray driver (with metrics given to the call they are read whole, as before: the
    driver's metrics learn which rows they do not apply to)."""
    return config.executor == "ray" and metrics is None


def _prepared(
    config: EvalConfig,
    data: Any,
    target: Any,
    metrics: Sequence[MetricSpec] | None,
    stored: list[Sample] | None,
    *,
    resumed: RunInfo | None,
) -> tuple[Prepared, SpooledSet | None]:
    """The checked setup of the run; on Ray, a folder of Parquet files is spooled page
    by page rather than loaded, and a resumed run's samples are left in the store
    (checked when the run was created)."""
    from ragjudge.run._spooling import parquet_folder, prepare_stored, prepare_streamed

    # In the command's process what is loaded is frozen once loaded (see ragjudge._util.gc);
    # a set read page by page keeps the collector on, so its pages' garbage is freed.
    if resumed is not None and stored is None:
        with kept_for_good():
            return prepare_stored(config, target=target, metrics=metrics), None
    folder = parquet_folder(config, data) if resumed is None else None
    if folder is not None:
        with kept_for_good():
            return prepare_streamed(config, folder, target=target, metrics=metrics)
    with kept_for_good(paused=True):  # held whole: the samples live as long as the run
        return prepare(config, data=data, target=target, metrics=metrics, samples=stored), None


async def _execute(
    store: Store,
    run_id: str,
    config: EvalConfig,
    setup: Prepared,
    resumed: RunInfo | None,
    options: _Options,
    spool: SpooledSet | None = None,
) -> EvaluationResult:
    """With the run's lock held: models, pre-flight, the run record, execution."""
    limiters: dict[str, PermitSource] = {}  # one per endpoint: its limit counts every request
    judge, agents = _build_models(
        config,
        setup.metrics,
        store,
        run_id,
        use_cache=options.use_cache,
        provider=options.provider,
        limiters=limiters,
    )
    models = [m for roles in agents.values() for m in roles.values()]
    own_cache = None
    try:
        cache = judge.cache if judge is not None else None
        if cache is None and any(m.embedding_specs() for m in setup.metrics):
            cache = own_cache = open_cache(config, options.use_cache)
        embedders = build_embedders(config, setup.metrics, cache, limiters)
        asked = await _preflight(config, judge, models)
    except BaseException:
        await _close(judge, *models)
        _close_cache(own_cache)
        raise
    context = MetricContext(
        retriever=setup.retriever,
        judge=judge,
        generate_config=generate_config(config.judge),
        target=setup.target,
        embedders=embedders,
    )
    # A new local run forks its scoring workers first: they score while the run and its
    # samples are stored. A resumed run learns what is left only once it is stored again
    # (with --retry-errors, storing it removes the errors to redo).
    early = resumed is None and config.executor != "ray"
    execution = (
        _execution(store, run_id, config, setup, context, agents, options, cache) if early else None
    )
    try:
        with execution.workers_started(setup.samples) if execution else nullcontext():
            _record_start(
                store,
                run_id,
                config,
                setup,
                resumed,
                retry_errors=options.retry_errors,
                spool=spool,
            )
            if options.on_start is not None:
                options.on_start(run_id)
            _tell(setup.notes, options.progress)
            await record_calls(store, run_id, config.judge, asked)
            if execution is None:
                execution = _execution(
                    store, run_id, config, setup, context, agents, options, cache
                )
            with outcome_recorded(store, run_id):
                await execution.run(setup.samples, config.concurrency, options.progress)
    finally:
        await _drain_and_close([m for m in (judge, *models) if m is not None])
        if execution is not None:
            record_rate_limits(store, run_id, execution.models)
        _close_cache(own_cache)
    result = summarize_run(store, run_id, by=config.by)
    if config.report is not None:
        from ragjudge.report import write_configured_report

        write_configured_report(result, store, config)
    return result


def _execution(
    store: Store,
    run_id: str,
    config: EvalConfig,
    setup: Prepared,
    context: MetricContext,
    agents: dict[str, dict[str, JudgeModel]],
    options: _Options,
    cache: ResponseCache | None,
) -> Execution:
    """This process's execution, or the Ray workers' (``executor: ray``)."""
    if config.executor != "ray":
        processes = usable_cpus() if config.processes == "auto" else config.processes
        return Execution(
            store, run_id, setup.metrics, config.trials, context, agents, processes=processes
        )
    from ragjudge.run.ray._driver import RayExecution

    return RayExecution(
        *(store, run_id, setup.metrics, config.trials, context, agents),
        config=config,
        cache=cache,
        given_metrics=options.given_metrics,
        given_target=setup.target if options.given_target else None,
        provider=options.provider,
    )


def _tell(notes: list[str], progress: bool) -> None:
    """Say what preparing the run decided (the format assumed, rows skipped …) before
    the progress bar; the summary repeats it."""
    if progress:
        console = Console(stderr=True)
        for note in notes:
            console.print(f"note: {note}", highlight=False, markup=False, soft_wrap=True)


def _close_cache(cache: ResponseCache | None) -> None:
    """Commit and close a cache the run opened for its embedders alone."""
    if cache is not None:
        cache.close()


async def _drain_and_close(models: list[JudgeModel]) -> None:
    """Close the models; replies to requests already sent when the run was interrupted
    are awaited first (each model's ``in_flight_grace``), cached and recorded."""
    waiting = sum(m.in_flight for m in models)
    if waiting:
        grace = max(m.settings.in_flight_grace for m in models)
        Console(stderr=True).print(
            f"waiting up to {grace:g} s for {waiting} judge repl{'y' if waiting == 1 else 'ies'}"
            " already sent (they are paid for; Ctrl-C again to abandon them)",
            highlight=False,
        )
    await _close(*models)


async def _preflight(
    config: EvalConfig, judge: JudgeModel | None, agents: list[JudgeModel]
) -> list[JudgeCallRecord]:
    """The pre-flight question to every model, unless the config turns it off."""
    if config.judge is not None and not config.judge.preflight:
        return []
    return await preflight([m for m in (judge, *agents) if m is not None])


def _build_models(
    config: EvalConfig,
    metrics: Sequence[Metric],
    store: Store,
    run_id: str,
    *,
    use_cache: bool,
    provider: Provider | None,
    limiters: dict[str, PermitSource],
) -> tuple[JudgeModel | None, dict[str, dict[str, JudgeModel]]]:
    """The judge and the agents' models; a model spec no provider serves is a
    :class:`ConfigError`."""
    try:
        judge = build_judge(
            config, store, run_id, use_cache=use_cache, provider=provider, limiters=limiters
        )
        agents = build_agent_models(
            config,
            metrics,
            store,
            run_id,
            use_cache=use_cache,
            cache=judge.cache if judge is not None else None,
            limiters=limiters,
        )
    except ValueError as exc:
        raise ConfigError(str(exc)) from exc
    return judge, agents


def _record_start(
    store: Store,
    run_id: str,
    config: EvalConfig,
    setup: Prepared,
    resumed: RunInfo | None,
    *,
    retry_errors: bool = False,
    spool: SpooledSet | None = None,
) -> None:
    """Store a new run, or reopen a resumed one: calls a killed process left in flight
    are marked lost, and with ``retry_errors`` its errored results are cleared so they
    are computed again."""
    if resumed is not None:
        store.mark_lost_calls(run_id)
        if retry_errors:
            store.discard_errors(run_id)
        store.set_status(run_id, "running")
        return
    store.create_run(
        run_id=run_id,
        name=config.name,
        config=config.to_record(),
        versions=_versions(),
        samples=setup.samples,
        trials=config.trials,
        meanings=spool.meanings
        if spool is not None
        else {
            name: meaning
            for metric in setup.metrics
            for name, meaning in metric.meanings_for(setup.samples).items()
        },
        pages=spool.pages(STREAM_PAGE_ROWS) if spool is not None else (),
    )
    for note in setup.notes:
        store.add_run_event(run_id, NOTE, {"text": note})


def _versions() -> dict[str, str]:
    from importlib.metadata import PackageNotFoundError, version

    found = {"ragjudge": __version__, "python": platform.python_version()}
    for package in ("pydantic", "numpy", "scipy", "bm25s", "rouge-score", "fugashi"):
        try:
            found[package] = version(package)
        except PackageNotFoundError:
            continue
    return found


async def dry_run(
    config: EvalConfig,
    *,
    data: Any = None,
    target: Any = None,
    metrics: Sequence[MetricSpec] | None = None,
) -> DryRunPlan:
    """Build every judge prompt of the evaluation, count calls and estimate tokens and
    cost without calling the target or any model (see :mod:`ragjudge.run._dryrun`)."""
    from ragjudge.run._dryrun import plan_evaluation

    setup = prepare(config, data=data, target=target, metrics=metrics)
    try:
        return await plan_evaluation(
            config,
            setup.samples,
            setup.metrics,
            supplies_response=setup.target.supplies_response,
            retriever=setup.retriever,
        )
    finally:
        await _close(setup.target, setup.retriever)


async def _close(*resources: Any) -> None:
    """Close the HTTP clients that targets, retrievers and models keep open across calls."""
    for resource in resources:
        close = getattr(resource, "aclose", None)
        if close is not None:
            await close()


def run_sync(make: Callable[[], Coroutine[Any, Any, T]]) -> T:
    """Run a coroutine from sync code, also when an event loop is already running
    (a notebook): then it runs on a fresh loop in a worker thread."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(make())
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="ragjudge") as pool:
        return pool.submit(lambda: asyncio.run(make())).result()

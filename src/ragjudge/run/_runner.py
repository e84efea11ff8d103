"""The entry points of an evaluation from a config: :func:`run_evaluation` (async) and
:func:`dry_run`; :func:`run_sync` runs a coroutine from sync code (also inside a
running event loop). The Python API built on them, ``evaluate`` and ``aevaluate``, is
in :mod:`ragjudge.api`.

Setting up lives in :mod:`ragjudge.run._preparation`, executing in
:mod:`ragjudge.run._execution`, aggregating in :mod:`ragjudge.analysis._results`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from ragjudge._util.gc import fewer_collections, loading
from ragjudge._util.known_secrets import register_secrets
from ragjudge._util.parallel import BusyWatch
from ragjudge.analysis._rate_limits import record_rate_limits
from ragjudge.analysis._results import EvaluationResult, summarize_run
from ragjudge.config import ConfigError, EvalConfig
from ragjudge.config._secrets import config_secrets
from ragjudge.errors import SpendingLimitReached
from ragjudge.loading import STREAM_PAGE_ROWS
from ragjudge.models import Provider
from ragjudge.run._batch_judge import with_batch_concurrency
from ragjudge.run._ceiling import recorded_spend, spending_watched
from ragjudge.run._dryrun import DryRunPlan, TargetAnswers, ask_target, plan_evaluation
from ragjudge.run._estimates import check_estimate, expected_calls
from ragjudge.run._execution import outcome_recorded
from ragjudge.run._executors import ExecutionParts, ExecutorKind, executor_kind
from ragjudge.run._holding import held_whole_warning
from ragjudge.run._incremental import record_continuation
from ragjudge.run._judging import check_judges, record_calls
from ragjudge.run._models import RunModels, close_all
from ragjudge.run._preflights import preflight_failure_noted
from ragjudge.run._preparation import MetricSpec, Prepared, RequirementError, prepare
from ragjudge.run._results_table import check_results_table, results_table_kept
from ragjudge.run._resuming import resumed_config, stored_run
from ragjudge.run._run_notes import prices_note, record_notes, tell, versions, warn
from ragjudge.run._samples_in_flight import samples_in_flight
from ragjudge.schema import Sample
from ragjudge.store._events import NOTE
from ragjudge.store._lock import run_lock
from ragjudge.store._store import RunInfo, Store, new_run_id

if TYPE_CHECKING:
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
    busy_cpus: Callable[[], float | None] | None = None


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

    ``data`` (a DataFrame, list of dicts or dict of columns), ``target`` (a callable),
    ``metrics`` (names, option dicts or Metric instances) and ``judge_provider`` (a
    model provider, wrapped in the judge layer with the config's limits) may be given as objects
    instead of through the config. With ``resume``, the run's stored samples, metrics
    and trials are used (only the concurrency and the ``by`` breakdown come from
    ``config``) and only missing results are computed; ``retry_errors`` computes its
    errored results again too. One process at a time executes a run
    (:class:`~ragjudge.store._lock.RunBusy` otherwise). ``on_start`` is called with the run
    id once the run is stored (so an interrupted caller can name it).

    The config's secrets are registered first (:func:`~ragjudge.config._secrets.config_secrets`):
    from then on the store, the reply cache and every output mask them by value.
    """
    register_secrets(config_secrets(config))
    # the CPUs other programs keep busy, measured while the run prepares (processes: auto)
    busy_cpus = BusyWatch()
    resumed, stored_samples = None, None
    if resume is not None:
        # a resumed run's samples stay in the store when the executor reads them in pages
        kind = executor_kind(config.executor)
        resumed, stored_samples = stored_run(
            config, resume, read=lambda run: metrics is not None or not kind.in_pages(run.n_samples)
        )
        config = resumed_config(resumed, config)
    elif retry_errors:
        raise ConfigError("retry_errors (--retry-errors) goes with resume (--resume RUN)")
    config, batch_note = with_batch_concurrency(config)
    options = _Options(
        progress,
        use_cache,
        judge_provider,
        retry_errors,
        on_start,
        given_metrics=metrics is not None,
        given_target=target is not None and not isinstance(target, str),
        busy_cpus=busy_cpus,
    )
    kind = executor_kind(config.executor)
    kind.check(config)
    check_results_table(config)
    with fewer_collections():
        setup, spool = _prepared(kind, config, data, target, metrics, stored_samples, resumed)
        if batch_note is not None:
            setup.notes.append(batch_note)
        try:
            return await _run_prepared(kind, config, setup, spool, resumed, options)
        finally:
            if spool is not None:
                spool.remove()
            await close_all(setup.target, setup.retriever)


def _prepared(
    kind: ExecutorKind,
    config: EvalConfig,
    data: Any,
    target: Any,
    metrics: Sequence[MetricSpec] | None,
    stored: list[Sample] | None,
    resumed: RunInfo | None,
) -> tuple[Prepared, SpooledSet | None]:
    """The checked setup of the run, before the store is opened (a bad config leaves no
    file). A set the executor takes in pages (a folder of Parquet files, a resumed run's
    stored samples) is not held whole; the collector policy follows suit (see
    :mod:`ragjudge._util.gc`)."""
    from ragjudge.run._spooling import (
        parquet_folder,
        parquet_folder_rows,
        prepare_stored,
        prepare_streamed,
    )

    if resumed is not None and stored is None:
        with loading(held_whole=False):
            return prepare_stored(config, target=target, metrics=metrics), None
    folder = parquet_folder(config, data) if resumed is None and kind.reads_in_pages else None
    if folder is not None and not kind.in_pages(parquet_folder_rows(folder)):
        folder = None  # small enough to hold whole
    if folder is not None and config.incremental and kind.held_whole_up_to:
        folder = None  # an incremental run reads its set whole; this executor can hold it
    if folder is not None and config.incremental:
        raise ConfigError(
            f"{config.where('incremental')}: an incremental run reads its set whole; "
            "run it with 'executor: local', or give the Parquet folder's files as one file"
        )
    if folder is not None:
        with loading(held_whole=False):
            return prepare_streamed(config, folder, target=target, metrics=metrics)
    with loading(held_whole=True):  # the samples live as long as the run
        setup = prepare(config, data=data, target=target, metrics=metrics, samples=stored)
    if (warning := held_whole_warning(len(setup.samples))) is not None:
        warn(warning)
        setup.notes.append(warning)
    return setup, None


async def _run_prepared(
    kind: ExecutorKind,
    config: EvalConfig,
    setup: Prepared,
    spool: SpooledSet | None,
    resumed: RunInfo | None,
    options: _Options,
) -> EvaluationResult:
    """Execute the prepared run with the store open and the run locked."""
    check_judges(config, setup.metrics, provider=options.provider)
    estimate: DryRunPlan | None = None
    if resumed is None and options.provider is None:
        setup.notes.extend(prices_note(config, setup.metrics))
        estimate = await check_estimate(
            config,
            setup.samples,
            setup.metrics,
            supplies_response=setup.target.supplies_response,
            retriever=setup.retriever,
        )
    with Store(config.store_path, write=True) as store:
        # The models record their calls under the run id, so it is drawn before the
        # run is stored: a judge that cannot be built leaves no empty run behind.
        run_id = new_run_id() if resumed is None else resumed.run_id
        with run_lock(store.path, run_id):
            await _execute(kind, store, run_id, config, setup, spool, resumed, options, estimate)
        result = summarize_run(store, run_id, by=config.by)
        store.record_outcome(run_id, result.status)
        result.report_writer = _write_report
        if config.report is not None:
            from ragjudge.report import write_configured_report

            write_configured_report(result, store, config)
        return result


def _write_report(result: EvaluationResult, path: Path | None) -> Path:
    """``result.report()``: the report package is loaded when a report is asked for."""
    from ragjudge.report import write_result_report

    return write_result_report(result, path)


async def _execute(
    kind: ExecutorKind,
    store: Store,
    run_id: str,
    config: EvalConfig,
    setup: Prepared,
    spool: SpooledSet | None,
    resumed: RunInfo | None,
    options: _Options,
    estimate: DryRunPlan | None = None,
) -> None:
    """Plan the work, store the run, score every pending sample (each result stored as
    it arrives), with the run's models open throughout. ``estimate``: the dry run made
    for the cost ceiling, if any, so it is not made again for the progress."""
    models = await RunModels.open(
        config,
        setup.metrics,
        store,
        run_id,
        use_cache=options.use_cache,
        provider=options.provider,
        preflight_up_front=not kind.judges_here,
    )
    stored = False
    try:
        execution = kind.build(_parts(store, run_id, config, setup, models, options))
        if options.progress and resumed is None:
            execution.expected_calls = await expected_calls(
                config,
                setup.samples,
                setup.metrics,
                supplies_response=setup.target.supplies_response,
                retriever=setup.retriever,
                planned=estimate,
            )
        # A new run may plan (and start its scoring processes) before it is stored, so
        # they score meanwhile; a resumed run learns what is left once stored again.
        plan_first = resumed is None and kind.plans_before_storing and not setup.in_store
        with execution.planned(setup.samples) if plan_first else nullcontext():
            _record_start(store, run_id, config, setup, resumed, options.retry_errors, spool)
            stored = True
            if options.on_start is not None:
                options.on_start(run_id)
            tell(setup.notes, options.progress)
            await record_calls(store, run_id, config.primary_judge, models.asked)
            for name, asked in models.asked_by_judge.items():
                await record_calls(store, run_id, (config.judges or {})[name], asked, name)
            with (
                results_table_kept(config, store, run_id, execution.writer),
                spending_watched(store, run_id, config.max_cost) as reached,
            ):
                execution.stopped_by = models.preflights.failure
                try:
                    with outcome_recorded(store, run_id), preflight_failure_noted(store, run_id):
                        in_flight = samples_in_flight(config, models.judge)
                        await execution.run(setup.samples, in_flight, options.progress)
                        await models.preflights.settled()
                except asyncio.CancelledError:
                    if not reached.is_set():
                        raise
                    _stopped_at_ceiling(store, run_id, config)
    finally:
        await models.close()
        if stored:
            record_rate_limits(store, run_id, models.all)
            record_notes(store, run_id, models.notes())


def _stopped_at_ceiling(store: Store, run_id: str, config: EvalConfig) -> None:
    """Record why the run stopped and say it: the cancellation was the ceiling's own."""
    task = asyncio.current_task()
    if task is not None:
        task.uncancel()
    spent, _ = recorded_spend(store, run_id)
    note = (
        f"stopped at the cost ceiling: ${spent:.4f} spent of max_cost ${config.max_cost:.4f}; "
        "finished results are stored"
    )
    store.add_run_event(run_id, NOTE, {"text": note})
    raise SpendingLimitReached(note)


def _parts(
    store: Store,
    run_id: str,
    config: EvalConfig,
    setup: Prepared,
    models: RunModels,
    options: _Options,
) -> ExecutionParts:
    return ExecutionParts(
        store=store,
        run_id=run_id,
        config=config,
        metrics=setup.metrics,
        context=models.context(config, setup.retriever, setup.target),
        agents=models.agents,
        cache=models.cache,
        provider=options.provider,
        given_metrics=options.given_metrics,
        given_target=setup.target if options.given_target else None,
        samples_in_store=setup.in_store,
        busy_cpus=options.busy_cpus,
    )


def _record_start(
    store: Store,
    run_id: str,
    config: EvalConfig,
    setup: Prepared,
    resumed: RunInfo | None,
    retry_errors: bool,
    spool: SpooledSet | None,
) -> None:
    """Store a new run, or reopen a resumed one: calls a killed process left in flight
    are marked lost, and with ``retry_errors`` its errored results are cleared so they
    are computed again."""
    if resumed is not None:
        store.mark_lost_calls(run_id)
        if retry_errors:
            store.discard_errors(run_id)
        store.set_status(run_id, "running")
        record_notes(store, run_id, setup.notes)
        return
    store.create_run(
        run_id=run_id,
        name=config.name,
        config=config.to_record(),
        versions=versions(),
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
    if setup.continued is not None:
        record_continuation(store, run_id, setup.continued, len(setup.samples))


async def dry_run(
    config: EvalConfig,
    *,
    data: Any = None,
    target: Any = None,
    metrics: Sequence[MetricSpec] | None = None,
) -> DryRunPlan:
    """Build every judge prompt of the evaluation, count calls and estimate tokens and
    cost without calling any model; the target answers ``dry_run_target_rows`` rows, whose
    answers size the prompts (see :mod:`ragjudge.run._dryrun`)."""
    register_secrets(config_secrets(config))
    setup = prepare(config, data=data, target=target, metrics=metrics)
    try:
        answers = TargetAnswers()
        if setup.target.supplies_response and any(m.needs_judge for m in setup.metrics):
            answers = await ask_target(setup.target, setup.samples, config.dry_run_target_rows)
        return await plan_evaluation(
            config,
            setup.samples,
            setup.metrics,
            supplies_response=setup.target.supplies_response,
            retriever=setup.retriever,
            answers=answers,
        )
    finally:
        await close_all(setup.target, setup.retriever)


def run_sync(make: Callable[[], Coroutine[Any, Any, T]]) -> T:
    """Run a coroutine from sync code, also when an event loop is already running
    (a notebook): then it runs on a fresh loop in a worker thread."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(make())
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="ragjudge") as pool:
        return pool.submit(lambda: asyncio.run(make())).result()

"""The ``ragjudge`` command line."""

from __future__ import annotations

import atexit
import json
import os
import sys
import threading
from pathlib import Path
from typing import Annotated, NoReturn

import typer
from rich.text import Text

from ragjudge._util.gc import fewer_collections
from ragjudge.cli._align import register as register_align
from ragjudge.cli._cache import register as register_cache
from ragjudge.cli._calibrated import CalibratedOption
from ragjudge.cli._classify import register as register_classify
from ragjudge.cli._common import (
    DEFAULT_STORE,
    RUN_ID_HELP,
    RunArgument,
    StoreOption,
    current_names,
    err,
    fail,
    opened_store,
    out,
    table_console,
)
from ragjudge.cli._errors import CommandGroup
from ragjudge.cli._export import register as register_export
from ragjudge.cli._followups import register as register_followups
from ragjudge.cli._gate import (
    check_gate_names,
    configured_gates,
    gate_outcome,
    parse_gates,
    print_gates,
    resume_command,
)
from ragjudge.cli._gate_command import register as register_gate
from ragjudge.cli._generate import register as register_generate
from ragjudge.cli._help import version_option
from ragjudge.cli._init import register as register_init
from ragjudge.cli._labels import register as register_labels
from ragjudge.cli._meta import register as register_meta
from ragjudge.cli._metrics import register as register_metrics
from ragjudge.cli._prompts import register as register_prompts
from ragjudge.cli._report import register as register_report
from ragjudge.cli._schema import register as register_schema
from ragjudge.cli._series import register as register_series
from ragjudge.cli._setting_options import (
    RunBy,
    RunConcurrency,
    RunDataWhere,
    RunExecutor,
    RunFailOver,
    RunFailUnder,
    RunGate,
    RunIncremental,
    RunLimit,
    RunMaxCost,
    RunMaxErrorRate,
    RunProcesses,
    RunProgress,
    RunResume,
    RunRetryErrors,
    RunSample,
    RunSeed,
    RunSkipInvalidRows,
    RunStore,
    RunTrials,
    RunUseCache,
)
from ragjudge.cli._table import TableOption, compare_from_table, show_from_table
from ragjudge.cli._trials import register as register_trials

# Each command imports what it needs when it runs: `ragjudge --help`, `runs` and
# `show` do not load the runner, the judge models or the statistics stack.

app = typer.Typer(
    cls=CommandGroup,
    no_args_is_help=True,
    help="Evaluate RAG and LLM applications; results are kept in a SQLite store.",
)


@app.callback()
def _main(version: Annotated[bool, version_option()] = False) -> None:
    """Evaluate RAG and LLM applications; results are kept in a SQLite store."""


@app.command()
def run(
    config: Annotated[
        Path | None,
        typer.Argument(help="The evaluation YAML file (optional with --openai-evals)."),
    ] = None,
    openai_evals: Annotated[
        tuple[str, str] | None,
        typer.Option(
            "--openai-evals",
            metavar="REGISTRY EVAL",
            help="Run eval EVAL of the openai-evals registry folder REGISTRY.",
        ),
    ] = None,
    resume: RunResume = None,
    retry_errors: RunRetryErrors = False,
    limit: RunLimit = None,
    sample: RunSample = None,
    data_where: RunDataWhere = None,
    seed: RunSeed = None,
    concurrency: RunConcurrency = None,
    processes: RunProcesses = None,
    executor: RunExecutor = None,
    trials: RunTrials = None,
    max_error_rate: RunMaxErrorRate = None,
    max_cost: RunMaxCost = None,
    skip_invalid_rows: RunSkipInvalidRows = False,
    incremental: RunIncremental = False,
    by: RunBy = None,
    store: RunStore = None,
    fail_under: RunFailUnder = None,
    fail_over: RunFailOver = None,
    gate: RunGate = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the summary as JSON.")] = False,
    progress: RunProgress = True,
    use_cache: RunUseCache = True,
    plan: Annotated[
        bool,
        typer.Option(
            "--dry-run",
            help="Build every judge prompt, count calls, estimate tokens and cost; call nothing.",
        ),
    ] = False,
) -> None:
    """Run the evaluation described by CONFIG and print its summary.

    Exit codes: 0 every score arrived (and every gate held); 3 some scores failed
    (beyond --max-error-rate); 4 a metric has no value at all; 5 a quality gate
    (--fail-under, --fail-over) failed; 6 stopped at the --max-cost ceiling (finished
    results are stored; resume with a higher one); 2 a mistake in the input or config
    (also a run estimated above --max-cost);
    130, 143, 129 interrupted by Ctrl-C, SIGTERM or SIGHUP (finished results are
    stored; a second one stops waiting for replies already sent); 1 the Ray cluster
    lost work (resume the run), or a bug in ragjudge (its traceback is printed).
    """
    import asyncio

    from ragjudge.cli._classify import openai_evals_config
    from ragjudge.cli._systems import print_system_runs, systems_not_started
    from ragjudge.errors import ClusterError, NothingNew, SpendingLimitReached
    from ragjudge.run._runner import dry_run, run_evaluation
    from ragjudge.run._stopping import Stopping
    from ragjudge.terminal import print_plan, print_result

    if config is None and openai_evals is None:
        raise fail("give the evaluation YAML file (or --openai-evals REGISTRY EVAL)")
    if resume is not None and (
        plan or limit is not None or sample is not None or trials is not None or config is None
    ):
        raise fail(
            "--resume finishes a stored run with its own samples and trials; "
            "it takes its config and no --dry-run, --limit, --sample or --trials"
        )
    given_gates = parse_gates(fail_under, fail_over)
    started: list[str] = [] if resume is None else [resume]
    planned: list[str] = []  # the systems of a wide file, in the order their runs start
    stopping = Stopping()
    try:
        cfg = openai_evals_config(
            config,
            openai_evals,
            limit=limit,
            sample=sample,
            data_where=data_where,
            seed=seed,
            concurrency=concurrency,
            processes=processes,
            executor=executor,
            trials=trials,
            max_error_rate=max_error_rate,
            max_cost=max_cost,
            skip_invalid_rows=True if skip_invalid_rows else None,
            incremental=True if incremental else None,
            by=by,
            store=None if store is None else str(store.resolve()),
            gate=gate,
        )
        gates = configured_gates(cfg, given_gates)
        if cfg.gate == "ci" and not gates:
            raise fail(
                "--gate ci (gate: ci in the config) says what the gates check; give one with "
                "--fail-under or --fail-over (fail_under or fail_over in the config)"
            )
        check_gate_names(gates, cfg)
        # a resumed run is one system's run: its stored config says which
        configs = cfg.system_configs() if resume is None else [("", cfg)]
        planned = [system for system, _ in configs if system]
        if plan:
            for system, one in configs:
                estimate = asyncio.run(dry_run(one))
                if as_json:
                    print(json.dumps(estimate.to_dict(), ensure_ascii=False, indent=2))
                else:
                    if system:
                        out.print(Text(f"system {system} (run {one.name}):"))
                    print_plan(estimate, out)
            return
        results = [
            (
                system,
                stopping.run(
                    run_evaluation(
                        one,
                        resume=resume,
                        retry_errors=retry_errors,
                        progress=progress,
                        use_cache=use_cache,
                        on_start=started.append,
                    )
                ),
            )
            for system, one in configs
        ]
    except KeyboardInterrupt:
        command = resume_command(config, started[-1] if started else None, {"--store": store})
        by = stopping.signal_name
        err.print(
            Text(f"interrupted ({by}); finished results are stored. Resume with: {command}"),
            soft_wrap=True,
        )
        left = systems_not_started(planned, len(started))
        if left:
            err.print(Text(left), soft_wrap=True)
        raise typer.Exit(stopping.exit_code) from None
    except NothingNew as exc:
        err.print(Text(str(exc)), soft_wrap=True)
        return
    except SpendingLimitReached as exc:
        command = resume_command(config, started[-1] if started else None, {"--store": store})
        err.print(Text(f"{exc}. Resume with a higher --max-cost: {command}"), soft_wrap=True)
        raise typer.Exit(6) from None
    except ClusterError as exc:
        command = resume_command(config, started[-1] if started else None, {"--store": store})
        err.print(Text(f"{exc}. Resume with: {command}"), soft_wrap=True)
        raise typer.Exit(1) from None
    codes, summaries = [], {}
    for system, result in results:
        code, gate_results = gate_outcome(result, gates, cfg.gate)
        codes.append(code)
        if as_json:
            summary = result.to_dict()
            summary["gates"] = [g.to_dict() for g in gate_results]
            summary["exit_code"] = code
            summaries[system] = summary
        else:
            print_result(result, out)
        print_gates(gate_results, to_stderr=as_json)
    if as_json:
        shown = summaries.get("", {"systems": summaries})
        print(json.dumps(shown, ensure_ascii=False, indent=2))
    if len(results) > 1:
        print_system_runs(results, cfg.store_path, err if as_json else out)
    code = next((c for c in codes if c), 0)
    if code:
        raise typer.Exit(code)


@app.command("runs")
def list_runs(
    store: StoreOption = DEFAULT_STORE,
    as_json: Annotated[bool, typer.Option("--json", help="Print the runs as JSON.")] = False,
) -> None:
    """List the runs in a store, each with its status (completed, incomplete,
    interrupted, failed, running) and its failed results counted by cause."""
    from ragjudge.analysis._status import run_states
    from ragjudge.terminal import runs_table

    with opened_store(store) as s:
        states = run_states(s)
    if as_json:
        print(json.dumps([state.to_dict() for state in states], ensure_ascii=False, indent=2))
        return
    table_console().print(runs_table(states))


@app.command()
def show(
    run_id: RunArgument,
    store: StoreOption = DEFAULT_STORE,
    by: Annotated[str | None, typer.Option(help="Break down by a metadata key.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print as JSON.")] = False,
    table: TableOption = None,
    calibrated: CalibratedOption = False,
) -> None:
    """Show a stored run's summary (with --table, the counts and values of each score
    read from the results table instead)."""
    from ragjudge.analysis._results import summarize_run
    from ragjudge.cli._calibrated import calibrated_json, print_calibrated
    from ragjudge.terminal import print_result

    if table is not None:
        if by is not None or calibrated:
            raise fail("--by and --calibrated read the store; leave out --table")
        show_from_table(table, run_id, as_json)
        return
    with opened_store(store) as s:
        run = s.run(run_id)
        result = summarize_run(s, run.run_id, by=by or run.config.get("by"))
    found = result.calibrated() if calibrated else {}
    if as_json:
        shown = result.to_dict()
        if calibrated:
            shown["calibrated"] = calibrated_json(result, found)
        print(json.dumps(shown, ensure_ascii=False, indent=2))
    else:
        print_result(result, out)
    if calibrated:
        print_calibrated(result, found, as_json=as_json)


register_export(app)
register_gate(app)


@app.command()
def compare(
    run_a: Annotated[str, typer.Argument(metavar="RUN_A", help="Baseline run. " + RUN_ID_HELP)],
    run_b: Annotated[str, typer.Argument(metavar="RUN_B", help="Run compared with it.")],
    store: StoreOption = DEFAULT_STORE,
    store_b: Annotated[
        Path | None, typer.Option("--store-b", help="Store holding RUN_B (default: --store).")
    ] = None,
    by: Annotated[str | None, typer.Option(help="One section per value of a metadata key.")] = None,
    metric: Annotated[
        list[str] | None, typer.Option(help="Compare only this metric (repeat for several).")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print as JSON.")] = False,
    table: TableOption = None,
    calibrated: CalibratedOption = False,
) -> None:
    """Paired comparison of two runs: B − A per metric with bootstrap CIs and p-values
    (with --table, both runs' scores read from the results table; with --calibrated,
    also each run's means calibrated to its people's labels and their difference)."""
    from ragjudge.analysis._compare import compare_runs
    from ragjudge.cli._calibrated import (
        calibrated_comparison_json,
        compared_calibrated,
        print_calibrated_comparison,
    )
    from ragjudge.terminal import render_comparison, render_paired_passes

    if table is not None:
        if by is not None or calibrated:
            raise fail("--by and --calibrated read the store; leave out --table")
        compare_from_table(table, run_a, run_b, store, current_names(metric), as_json)
        return
    names = current_names(metric) or None
    with opened_store(store) as first:
        if store_b is None or store_b.resolve() == store.resolve():
            comparison = compare_runs(first, run_a, first, run_b, by=by, metrics=names)
            differences = compared_calibrated(first, first, comparison) if calibrated else []
        else:
            with opened_store(store_b) as second:
                comparison = compare_runs(first, run_a, second, run_b, by=by, metrics=names)
                differences = compared_calibrated(first, second, comparison) if calibrated else []
    if as_json:
        shown = comparison.to_dict()
        if calibrated:
            shown["calibrated"] = calibrated_comparison_json(differences)
        print(json.dumps(shown, ensure_ascii=False, indent=2))
    else:
        console = table_console()
        console.print(render_comparison(comparison))
        if (passes := render_paired_passes(comparison)) is not None:
            console.print(passes)
        print_calibrated_comparison(differences)


@app.command()
def stability(
    run_id: RunArgument,
    store: StoreOption = DEFAULT_STORE,
    as_json: Annotated[bool, typer.Option("--json", help="Print as JSON.")] = False,
) -> None:
    """How stable each metric of a run with several trials is: within-sample spread,
    flipping samples, ICC(1,1) with CI, spread vs size — beside the RAGAS-style stability
    rating of each RAGAS metric."""
    from ragjudge.analysis._stability import stability_for_run
    from ragjudge.terminal import render_stability

    with opened_store(store) as s:
        table = stability_for_run(s, run_id)
    if table.trials < 2:
        raise fail(f"run {table.run_id} has one trial; run it with --trials N (N >= 2)")
    if as_json:
        print(json.dumps(table.to_dict(), ensure_ascii=False, indent=2))
    else:
        table_console().print(render_stability(table))


register_init(app)
register_generate(app)
register_followups(app)
register_classify(app)
register_trials(app)
register_meta(app)
register_labels(app)
register_align(app)
register_metrics(app)
register_prompts(app)
register_cache(app)
register_report(app)
register_schema(app)
register_series(app)


def main() -> None:
    """Console-script entry point."""
    with fewer_collections():
        try:
            app(prog_name="ragjudge")
        except SystemExit as done:
            leave(done)


def leave(done: SystemExit) -> NoReturn:
    """End the process with ``done``'s status without taking the interpreter apart
    object by object (≈ 0.15 s after a run of 10,000 samples): the exit handlers run and
    the output is flushed first. While another thread still runs, the usual exit waits
    for it instead."""
    main_thread = threading.main_thread()
    if any(t is not main_thread and t.is_alive() and not t.daemon for t in threading.enumerate()):
        raise done
    code = done.code
    if code is not None and not isinstance(code, int):
        print(code, file=sys.stderr)
        code = 1
    atexit._run_exitfuncs()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code or 0)


if __name__ == "__main__":
    main()

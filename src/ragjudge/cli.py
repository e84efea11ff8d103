"""The ``ragjudge`` command line."""

from __future__ import annotations

import asyncio
import json
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, cast

import typer
from rich.text import Text

from ragjudge.cli_classify import openai_evals_config
from ragjudge.cli_classify import register as register_classify
from ragjudge.cli_common import (
    DEFAULT_STORE,
    StoreOption,
    err,
    fail,
    message_of,
    opened_store,
    out,
    table_console,
)
from ragjudge.cli_report import register as register_report
from ragjudge.config import ConfigError
from ragjudge.loading import DatasetError
from ragjudge.metrics import available_metrics
from ragjudge.models import CacheError, ResponseCache
from ragjudge.report import (
    print_plan,
    print_result,
    render_comparison,
    render_meta,
    render_stability,
    runs_table,
)
from ragjudge.results import summarize_run
from ragjudge.runner import RequirementError, dry_run, run_evaluation
from ragjudge.store import StoreError
from ragjudge.targets import TargetError

if TYPE_CHECKING:
    import pandas as pd

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    help="Evaluate RAG and LLM applications; results are kept in a SQLite store.",
)


class ExportFormat(StrEnum):
    jsonl = "jsonl"
    parquet = "parquet"
    csv = "csv"


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
    resume: Annotated[str | None, typer.Option(help="Finish the interrupted run RUN.")] = None,
    retry_errors: Annotated[
        bool, typer.Option("--retry-errors", help="With --resume: compute errored results again.")
    ] = False,
    limit: Annotated[int | None, typer.Option(help="Evaluate only the first N rows.")] = None,
    concurrency: Annotated[int | None, typer.Option(help="Samples in flight at once.")] = None,
    trials: Annotated[int | None, typer.Option(help="Score every sample N times.")] = None,
    max_error_rate: Annotated[
        float | None,
        typer.Option(
            help="Share of a metric's results that may fail before the run exits 3 (default 0)."
        ),
    ] = None,
    by: Annotated[
        str | None, typer.Option(help="Break the summary down by a metadata key.")
    ] = None,
    store: Annotated[
        Path | None, typer.Option(help="Store file (default beside the config).")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the summary as JSON.")] = False,
    progress: Annotated[bool, typer.Option(help="Show a progress bar.")] = True,
    cache: Annotated[
        bool, typer.Option("--cache/--no-cache", help="Reuse cached judge replies.")
    ] = True,
    plan: Annotated[
        bool,
        typer.Option(
            "--dry-run",
            help="Build every judge prompt, count calls, estimate tokens and cost; call nothing.",
        ),
    ] = False,
) -> None:
    """Run the evaluation described by CONFIG and print its summary.

    Exit codes: 0 every score arrived; 3 some scores failed (beyond --max-error-rate);
    4 a metric has no value at all; 2 a mistake in the input or config; 130 interrupted.
    """
    if config is None and openai_evals is None:
        raise fail("give the evaluation YAML file (or --openai-evals REGISTRY EVAL)")
    if resume is not None and (plan or limit is not None or trials is not None or config is None):
        raise fail(
            "--resume finishes a stored run with its own samples and trials; "
            "it takes its config and no --dry-run, --limit or --trials"
        )
    try:
        cfg = openai_evals_config(
            config,
            openai_evals,
            limit=limit,
            concurrency=concurrency,
            trials=trials,
            max_error_rate=max_error_rate,
            by=by,
            store=None if store is None else str(store.resolve()),
        )
        if plan:
            estimate = asyncio.run(dry_run(cfg))
            if as_json:
                print(json.dumps(estimate.to_dict(), ensure_ascii=False, indent=2))
            else:
                print_plan(estimate, out)
            return
        result = asyncio.run(
            run_evaluation(
                cfg, resume=resume, retry_errors=retry_errors, progress=progress, use_cache=cache
            )
        )
    except (
        ConfigError,
        DatasetError,
        RequirementError,
        TargetError,
        StoreError,
        OSError,
        KeyError,
    ) as exc:
        raise fail(message_of(exc)) from None
    except KeyboardInterrupt:
        err.print(
            "interrupted; finished results are stored. Resume with: "
            f"ragjudge run {config or 'CONFIG'} --resume RUN (see `ragjudge runs`)"
        )
        raise typer.Exit(130) from None
    if as_json:
        print(json.dumps(result.to_dict(), ensure_ascii=False, indent=2))
    else:
        print_result(result, out)
    if result.verdict.exit_code:
        raise typer.Exit(result.verdict.exit_code)


@app.command("runs")
def list_runs(store: StoreOption = DEFAULT_STORE) -> None:
    """List the runs in a store."""
    with opened_store(store) as s:
        table = runs_table(s.runs())
    table_console().print(table)


@app.command()
def show(
    run_id: Annotated[str, typer.Argument(metavar="RUN", help="Run id (a unique prefix will do).")],
    store: StoreOption = DEFAULT_STORE,
    by: Annotated[str | None, typer.Option(help="Break down by a metadata key.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print as JSON.")] = False,
) -> None:
    """Show a stored run's summary."""
    with opened_store(store) as s:
        run = s.run(run_id)
        result = summarize_run(s, run.run_id, by=by or run.config.get("by"))
    if as_json:
        print(json.dumps(result.to_dict(), ensure_ascii=False, indent=2))
    else:
        print_result(result, out)


class ExportTarget(StrEnum):
    mlflow = "mlflow"


@app.command()
def export(
    run_id: Annotated[str, typer.Argument(metavar="RUN", help="Run id (a unique prefix will do).")],
    output: Annotated[Path | None, typer.Option("--output", "-o", help="File to write.")] = None,
    fmt: Annotated[ExportFormat, typer.Option("--format", help="jsonl, parquet or csv.")] = (
        ExportFormat.jsonl
    ),
    store: StoreOption = DEFAULT_STORE,
    to: Annotated[
        ExportTarget | None,
        typer.Option(
            "--to",
            help="Log the run to MLflow instead: params, aggregate metrics with CI bounds, "
            "the eval_results table (needs the mlflow extra).",
        ),
    ] = None,
    tracking_uri: Annotated[
        str | None,
        typer.Option(help="With --to mlflow: the tracking URI (default MLFLOW_TRACKING_URI)."),
    ] = None,
    experiment: Annotated[
        str | None,
        typer.Option(help="With --to mlflow: the experiment (default the run's name)."),
    ] = None,
    report: Annotated[
        Path | None, typer.Option(help="With --to mlflow: an HTML report to log with the run.")
    ] = None,
) -> None:
    """Export one row per sample and trial with every metric's value, error and rationale
    (and METRIC.left_out where a mean leaves values out) to a file, or log the run to
    MLflow (--to mlflow)."""
    from ragjudge.meanings import exclusions, run_meanings

    mlflow_options = {
        "--tracking-uri": tracking_uri,
        "--experiment": experiment,
        "--report": report,
    }
    if to is ExportTarget.mlflow:
        if output is not None:
            raise fail("--to mlflow writes no file; leave out -o")
        _export_to_mlflow(run_id, store, tracking_uri, experiment, report)
        return
    if given := [flag for flag, value in mlflow_options.items() if value is not None]:
        raise fail(f"{', '.join(given)} go(es) with --to mlflow")
    if output is None:
        raise fail("give the file to write (-o FILE), or log the run to MLflow (--to mlflow)")
    if output.is_dir():
        raise fail(f"cannot write {output}: it is a folder; give a file name (-o FILE)")
    with opened_store(store) as s:
        run = s.run(run_id)
        frame = s.sample_frame(run.run_id, exclusions(run_meanings(run)))
    try:
        _write_frame(frame, output, fmt)
    except OSError as exc:
        raise fail(f"cannot write {output}: {_os_reason(output, exc)}") from None
    err.print(f"wrote {len(frame)} rows to {output}")


def _export_to_mlflow(
    run_id: str,
    store: Path,
    tracking_uri: str | None,
    experiment: str | None,
    report: Path | None,
) -> None:
    from ragjudge.mlflow_export import EVAL_RESULTS, MlflowExportError, export_to_mlflow

    with opened_store(store) as s:
        try:
            logged = export_to_mlflow(
                s, run_id, tracking_uri=tracking_uri, experiment=experiment, report=report
            )
        except (MlflowExportError, OSError) as exc:
            raise fail(str(exc)) from None
        except Exception as exc:  # MLflow's own errors (a bad tracking URI …)
            if type(exc).__module__.startswith("mlflow"):
                raise fail(f"MLflow: {exc}") from None
            raise
    err.print(
        Text(
            f"logged run {run_id} to MLflow run {logged.run_id} (experiment "
            f"{logged.experiment_id}) at {logged.tracking_uri}: {len(logged.metrics)} metrics "
            f"and the {EVAL_RESULTS} table"
        ),
        highlight=False,
        soft_wrap=True,
    )


def _write_frame(frame: pd.DataFrame, output: Path, fmt: ExportFormat) -> None:
    output.parent.mkdir(parents=True, exist_ok=True)
    if fmt is ExportFormat.jsonl:
        frame.to_json(output, orient="records", lines=True, force_ascii=False)
    elif fmt is ExportFormat.parquet:
        frame.to_parquet(output, index=False)
    else:
        frame.to_csv(output, index=False)


def _os_reason(path: Path, exc: OSError) -> str:
    """Why ``path`` could not be written, in words (a file where a folder should be
    is named)."""
    blocking = next((p for p in reversed(path.parents) if p.exists() and not p.is_dir()), None)
    if blocking is not None:
        return f"{blocking} is a file, not a folder"
    return exc.strerror or str(exc)


@app.command()
def meta(
    run_id: Annotated[str, typer.Argument(metavar="RUN", help="Run id (a unique prefix will do).")],
    human: Annotated[
        list[str],
        typer.Option(help="Metadata key holding a human score (repeat for several)."),
    ],
    combine: Annotated[
        str, typer.Option(help="How to combine several annotators: mean or median.")
    ] = "mean",
    by: Annotated[str | None, typer.Option(help="One table per value of a metadata key.")] = None,
    extra: Annotated[
        list[str] | None,
        typer.Option(help="Metadata key holding another system's score, correlated as a row."),
    ] = None,
    store: StoreOption = DEFAULT_STORE,
    as_json: Annotated[bool, typer.Option("--json", help="Print as JSON.")] = False,
) -> None:
    """Correlate every metric of a run with human scores (Pearson, Spearman, Kendall,
    bootstrap CIs) — the meta-evaluation table."""
    from ragjudge.meta import Combine, meta_for_run

    if combine not in ("mean", "median"):
        raise fail(f"--combine must be mean or median, not {combine!r}")
    with opened_store(store) as s:
        table = meta_for_run(
            s, run_id, human, combine=cast(Combine, combine), by=by, extra=extra or []
        )
    if as_json:
        print(json.dumps(table.to_dict(), ensure_ascii=False, indent=2))
    else:
        table_console().print(render_meta(table))


@app.command()
def compare(
    run_a: Annotated[
        str, typer.Argument(metavar="RUN_A", help="Baseline run (a unique id prefix).")
    ],
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
) -> None:
    """Paired comparison of two runs: B − A per metric with bootstrap CIs and p-values."""
    from ragjudge.compare import compare_runs

    with opened_store(store) as first:
        if store_b is None or store_b.resolve() == store.resolve():
            comparison = compare_runs(first, run_a, first, run_b, by=by, metrics=metric or None)
        else:
            with opened_store(store_b) as second:
                comparison = compare_runs(
                    first, run_a, second, run_b, by=by, metrics=metric or None
                )
    if as_json:
        print(json.dumps(comparison.to_dict(), ensure_ascii=False, indent=2))
    else:
        table_console().print(render_comparison(comparison))


@app.command()
def stability(
    run_id: Annotated[str, typer.Argument(metavar="RUN", help="Run id (a unique prefix will do).")],
    store: StoreOption = DEFAULT_STORE,
    as_json: Annotated[bool, typer.Option("--json", help="Print as JSON.")] = False,
) -> None:
    """How stable each metric of a run with several trials is: within-sample spread,
    flipping samples, ICC(1,1) with CI, spread vs size — beside seed 004's ratings."""
    from ragjudge.stability import stability_for_run

    with opened_store(store) as s:
        table = stability_for_run(s, run_id)
    if table.trials < 2:
        raise fail(f"run {table.run_id} has one trial; run it with --trials N (N >= 2)")
    if as_json:
        print(json.dumps(table.to_dict(), ensure_ascii=False, indent=2))
    else:
        table_console().print(render_stability(table))


@app.command()
def metrics() -> None:
    """List the registered metrics."""
    for name in available_metrics():
        out.print(name)


register_classify(app)
register_report(app)

cache_app = typer.Typer(help="The judge response cache.", no_args_is_help=True)
app.add_typer(cache_app, name="cache")
CacheOption = Annotated[
    Path, typer.Option("--path", help="Cache file (default .ragjudge/cache.db in this folder).")
]
DEFAULT_CACHE = Path(".ragjudge/cache.db")


def _existing_cache(path: Path) -> ResponseCache:
    if not path.exists():
        raise fail(f"no cache at {path}")
    cache = ResponseCache(path)
    try:
        cache.check()
    except CacheError as exc:
        raise fail(str(exc)) from None
    return cache


@cache_app.command("stats")
def cache_stats(path: CacheOption = DEFAULT_CACHE) -> None:
    """Entries, lifetime hits and misses, and size of the judge cache."""
    with _existing_cache(path) as cache:
        stats = cache.stats()
    for key, value in stats.model_dump().items():
        out.print(f"{key}: {value}")


@cache_app.command("clear")
def cache_clear(path: CacheOption = DEFAULT_CACHE) -> None:
    """Delete every cached judge reply."""
    with _existing_cache(path) as cache:
        removed = cache.clear()
    out.print(f"removed {removed} cached replies from {path}")


def main() -> None:
    """Console-script entry point."""
    app(prog_name="ragjudge")


if __name__ == "__main__":
    main()

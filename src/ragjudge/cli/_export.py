"""``ragjudge export``: a run's per-sample rows to a file or standard output (see
:mod:`ragjudge.export._files`), or the run to MLflow (``--to mlflow``)."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer
from rich.text import Text

from ragjudge.cli._common import DEFAULT_STORE, RunArgument, StoreOption, err, fail, opened_store
from ragjudge.cli._table import TableOption, export_from_table

__all__ = ["register"]


class ExportFormat(StrEnum):
    jsonl = "jsonl"
    json = "json"
    parquet = "parquet"
    csv = "csv"


class ExportLayout(StrEnum):
    wide = "wide"
    long = "long"
    databricks = "databricks"


class ExportTarget(StrEnum):
    mlflow = "mlflow"


def export(
    run_id: RunArgument,
    output: Annotated[
        str | None,
        typer.Option(
            "--output",
            "-o",
            metavar="FILE",
            help="File to write; its extension picks the format (.jsonl, .json, .csv, "
            ".parquet). '-' writes JSON Lines to standard output.",
        ),
    ] = None,
    fmt: Annotated[
        ExportFormat | None,
        typer.Option("--format", help="Write this format whatever the extension."),
    ] = None,
    with_calls: Annotated[
        bool,
        typer.Option(
            "--with-calls",
            help="Add a judge_calls column: every judge prompt and reply of the row.",
        ),
    ] = False,
    layout: Annotated[
        ExportLayout | None,
        typer.Option(
            help="wide (the default): one row per sample and trial, a column per score; "
            "long: one row per score, with metric and judge columns when the run has "
            "several judges (with --table, the table's score rows); databricks: the "
            "eval_results table of Databricks Agent Evaluation (yes/no ratings, "
            "rationales, chunk ratings, its column names).",
        ),
    ] = None,
    store: StoreOption = DEFAULT_STORE,
    to: Annotated[
        ExportTarget | None,
        typer.Option(
            "--to",
            help="Log the run to MLflow instead: params, aggregate metrics with CI bounds, "
            "the eval_results table, one trace per row with its scores as assessments and "
            "the evaluation set as the run's dataset (needs the mlflow extra).",
        ),
    ] = None,
    tracking_uri: Annotated[
        str | None,
        typer.Option(
            metavar="URI", help="With --to mlflow: the tracking URI (default MLFLOW_TRACKING_URI)."
        ),
    ] = None,
    experiment: Annotated[
        str | None,
        typer.Option(
            metavar="NAME", help="With --to mlflow: the experiment (default the run's name)."
        ),
    ] = None,
    report: Annotated[
        Path | None,
        typer.Option(metavar="FILE", help="With --to mlflow: an HTML report to log with the run."),
    ] = None,
    table: TableOption = None,
) -> None:
    """Export a run's rows to a file or standard output, or log it to MLflow.

    One row per sample and trial: request, response, reference, the retrieved contexts
    and those each judge was shown, every metric's value, error and rationale (and
    METRIC.left_out where a mean leaves values out); --with-calls adds every judge
    prompt and reply. --layout long writes one row per score instead. --table reads the
    run's score rows from a results table, a page at a time."""
    from ragjudge.export._files import STDOUT, databricks_frame, export_format, write_export
    from ragjudge.export._paged import long_pages, wide_pages, write_paged_export

    mlflow_options = {
        "--tracking-uri": tracking_uri,
        "--experiment": experiment,
        "--report": report,
    }
    if table is not None:
        _check_table_export(to, layout, with_calls, output)
        assert output is not None
        export_from_table(table, run_id, output, export_format(output, fmt and fmt.value))
        return
    layout = layout or ExportLayout.wide
    if to is ExportTarget.mlflow:
        if output is not None or fmt is not None or with_calls:
            raise fail("--to mlflow writes no file; leave out -o, --format and --with-calls")
        _export_to_mlflow(run_id, store, tracking_uri, experiment, report)
        return
    if given := [flag for flag, value in mlflow_options.items() if value is not None]:
        raise fail(f"{', '.join(given)} go(es) with --to mlflow")
    if output is None:
        raise fail(
            "give the file to write (-o FILE), '-o -' for standard output, "
            "or log the run to MLflow (--to mlflow)"
        )
    if output != STDOUT and Path(output).is_dir():
        raise fail(f"cannot write {output}: it is a folder; give a file name (-o FILE)")
    if layout is not ExportLayout.wide and with_calls:
        raise fail(
            f"--with-calls adds a column to the wide layout; leave it out with --layout {layout}"
        )
    chosen = export_format(output, None if fmt is None else fmt.value)
    with opened_store(store) as s:
        if layout is ExportLayout.databricks:
            frame = databricks_frame(s, run_id)
            write_export(frame, output, chosen)
            rows = len(frame)
        else:
            pages = (
                long_pages(s, run_id)
                if layout is ExportLayout.long
                else wide_pages(s, run_id, with_calls=with_calls)
            )
            rows = write_paged_export(pages, output, chosen)
    where = "standard output" if output == STDOUT else output
    err.print(Text(f"wrote {rows} rows to {where} ({chosen})"), highlight=False)


def _check_table_export(
    to: ExportTarget | None, layout: ExportLayout | None, with_calls: bool, output: str | None
) -> None:
    """--table writes the table's score rows (the long layout) to a file."""
    if to is not None:
        raise fail("--table exports to a file; log the run from the store with --to mlflow")
    if with_calls or layout not in (None, ExportLayout.long):
        raise fail(
            "--table holds one row per score: leave out --with-calls and --layout wide/databricks"
        )
    if output is None:
        raise fail("give the file to write (-o FILE) or '-o -' for standard output")


def _export_to_mlflow(
    run_id: str,
    store: Path,
    tracking_uri: str | None,
    experiment: str | None,
    report: Path | None,
) -> None:
    from ragjudge.export._mlflow import EVAL_RESULTS, export_to_mlflow

    with opened_store(store) as s:
        logged = export_to_mlflow(
            s, run_id, tracking_uri=tracking_uri, experiment=experiment, report=report
        )
    err.print(
        Text(
            f"logged run {run_id} to MLflow run {logged.run_id} (experiment "
            f"{logged.experiment_id}) at {logged.tracking_uri}: {len(logged.metrics)} metrics, "
            f"the {EVAL_RESULTS} table and {logged.traces} row traces with their assessments"
        ),
        highlight=False,
        soft_wrap=True,
    )


def register(app: typer.Typer) -> None:
    """Add ``export`` to the ``ragjudge`` app."""
    app.command()(export)

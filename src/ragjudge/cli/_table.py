"""Reading a run from a results table (``results_table`` setting) on the command line:
``ragjudge show RUN --table PATH``, ``ragjudge export RUN --table PATH`` and
``ragjudge compare A B --table PATH``, a page at a time, so the memory they take does not grow with the run."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.text import Text

from ragjudge.cli._common import err, opened_store, table_console

__all__ = ["TableOption", "compare_from_table", "export_from_table", "show_from_table"]

TableOption = Annotated[
    Path | None,
    typer.Option(
        "--table",
        metavar="PATH",
        help="Read the run from this results table (the folder of the results_table "
        "setting) instead of the store; RUN is its id, a unique start or end of it, or "
        "latest.",
    ),
]


def show_from_table(root: Path, reference: str, as_json: bool) -> None:
    """Print each score's counts and values for the run, read from the table."""
    from ragjudge.analysis._table_summary import summarize_score_pages
    from ragjudge.store._table_reader import ResultsTable
    from ragjudge.terminal._table_summary import score_summary_table

    table = ResultsTable.open(root)
    run_id = table.run_id(reference)
    summaries = summarize_score_pages(table.score_pages(run_id))
    if as_json:
        found = {"run_id": run_id, "scores": [s.to_dict() for s in summaries]}
        print(json.dumps(found, ensure_ascii=False, indent=2))
        return
    table_console().print(score_summary_table(run_id, summaries))


def export_from_table(root: Path, reference: str, output: str, fmt: str) -> None:
    """Write the run's score rows, read from the table, to ``output``."""
    from ragjudge.export._table_files import STDOUT, write_pages
    from ragjudge.store._table_reader import ResultsTable

    table = ResultsTable.open(root)
    run_id = table.run_id(reference)
    rows = write_pages(table.score_pages(run_id), output, fmt)
    where = "standard output" if output == STDOUT else output
    err.print(Text(f"wrote {rows} rows of run {run_id} to {where} ({fmt})"), highlight=False)


def compare_from_table(
    root: Path, run_a: str, run_b: str, store: Path, metrics: list[str] | None, as_json: bool
) -> None:
    """Print the paired comparison of two runs read from the table; the scores'
    meanings come from the store at ``store`` when it exists and holds the runs."""
    from ragjudge.analysis._table_compare import compare_table_runs
    from ragjudge.store._table_reader import ResultsTable
    from ragjudge.terminal import render_comparison, render_paired_passes

    table = ResultsTable.open(root)
    if store.exists():
        with opened_store(store) as opened:
            comparison = compare_table_runs(table, run_a, run_b, store=opened, metrics=metrics)
    else:
        comparison = compare_table_runs(table, run_a, run_b, metrics=metrics)
    if as_json:
        print(json.dumps(comparison.to_dict(), ensure_ascii=False, indent=2))
        return
    console = table_console()
    console.print(render_comparison(comparison))
    if (passes := render_paired_passes(comparison)) is not None:
        console.print(passes)

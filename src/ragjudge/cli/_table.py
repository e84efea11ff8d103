"""Reading a run from a results table (``results_table`` setting) on the command line:
``ragjudge show RUN --table PATH`` and ``ragjudge export RUN --table PATH``, a page
at a time, so the memory they take does not grow with the run."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.text import Text

from ragjudge.cli._common import err, table_console

__all__ = ["TableOption", "export_from_table", "show_from_table"]

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

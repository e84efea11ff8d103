"""``ragjudge series``: one metric over time across the incremental runs of one config."""

from __future__ import annotations

import json
from typing import Annotated

import typer

from ragjudge.cli._common import DEFAULT_STORE, StoreOption, opened_store, table_console

__all__ = ["register"]


def series(
    store: StoreOption = DEFAULT_STORE,
    name: Annotated[
        str | None,
        typer.Option(help="The runs' name; default: the config of the latest incremental run."),
    ] = None,
    metric: Annotated[
        str | None,
        typer.Option(help="The score to follow; default: the first score the runs have."),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print as JSON.")] = False,
) -> None:
    """List a score over time across the incremental runs (--incremental) of one
    config: each run's date, id, number of new rows, and mean with its 95% CI."""
    from ragjudge.analysis._series import run_series
    from ragjudge.terminal._series import series_table

    with opened_store(store) as s:
        found = run_series(s, name=name, metric=metric)
    if as_json:
        print(json.dumps(found.to_dict(), ensure_ascii=False, indent=2))
    else:
        table_console().print(series_table(found))


def register(app: typer.Typer) -> None:
    """Add ``series`` to the command line."""
    app.command("series")(series)

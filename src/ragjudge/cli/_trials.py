"""The command-line side of repeated trials and judge methods: ``ragjudge repro`` (each
sample's values over the trials) and ``ragjudge methods`` (the judge methods of a run
compared on discrimination, reproducibility, strictness and cost)."""

from __future__ import annotations

import json
from typing import Annotated

import typer

from ragjudge.cli._common import (
    DEFAULT_STORE,
    RunArgument,
    StoreOption,
    current_names,
    opened_store,
    table_console,
)

__all__ = ["register"]

MetricOption = Annotated[
    list[str] | None,
    typer.Option("--metric", help="Only this score (repeatable); default: every score."),
]
JsonOption = Annotated[bool, typer.Option("--json", help="Print as JSON.")]


def repro(
    run_id: RunArgument,
    store: StoreOption = DEFAULT_STORE,
    metric: MetricOption = None,
    as_json: JsonOption = False,
) -> None:
    """How each sample's scores came out over the run's trials: the distribution of
    values (5: 50/50), the share of trials equal to the commonest value, the SD; for
    rubric scores each item's agreement with its majority verdict."""
    from ragjudge.analysis._repro import repro_for_run
    from ragjudge.terminal import render_repro

    with opened_store(store) as s:
        table = repro_for_run(s, run_id, metrics=current_names(metric))
    if as_json:
        print(json.dumps(table.to_dict(), ensure_ascii=False, indent=2))
    else:
        table_console().print(render_repro(table))


def methods(
    run_id: RunArgument,
    store: StoreOption = DEFAULT_STORE,
    metric: Annotated[
        list[str] | None,
        typer.Option(
            "--metric",
            help="A score to compare (repeatable); default: the score of each configured metric.",
        ),
    ] = None,
    seed: Annotated[int, typer.Option(help="Seed of the bootstrap intervals.")] = 0,
    as_json: JsonOption = False,
) -> None:
    """Compare the judge methods of a run on the same samples: discrimination,
    reproducibility over trials, strictness, items judged and cost per sample."""
    from ragjudge.analysis._methods import methods_for_run
    from ragjudge.terminal import render_methods

    with opened_store(store) as s:
        table = methods_for_run(s, run_id, metrics=current_names(metric), seed=seed)
    if as_json:
        print(json.dumps(table.to_dict(), ensure_ascii=False, indent=2))
    else:
        table_console().print(render_methods(table))


def register(app: typer.Typer) -> None:
    """Add ``repro`` and ``methods`` to the command line."""
    app.command("repro")(repro)
    app.command("methods")(methods)

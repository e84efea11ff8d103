"""``ragjudge labels list|import|export|agreement``: the labels people gave a run's
samples, stored with the run: what is labelled, labels brought in from a file and
written to one, and how well the people agree with each other and with the judge."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.text import Text

from ragjudge.cli._common import (
    DEFAULT_STORE,
    RunArgument,
    StoreOption,
    err,
    opened_store,
    table_console,
)

__all__ = ["register"]

labels_app = typer.Typer(
    help="Labels people gave a run's samples: list, import, export, agreement.",
    no_args_is_help=True,
)

MetricOption = Annotated[
    str | None,
    typer.Option("--metric", help='Only the labels of this score ("" for whole-sample labels).'),
]
JsonOption = Annotated[bool, typer.Option("--json", help="Print as JSON.")]


@labels_app.command("list")
def list_labels(
    run_id: RunArgument,
    metric: MetricOption = None,
    store: StoreOption = DEFAULT_STORE,
    as_json: JsonOption = False,
) -> None:
    """How many samples of the run carry labels, score by score: labels, random and
    targeted ones, comments, and how many each person gave."""
    from ragjudge.meta._label_summary import label_summaries
    from ragjudge.terminal._labels import label_summary_grid

    with opened_store(store) as s:
        found = label_summaries(s, run_id, metric=metric)
    if as_json:
        print(json.dumps([x.to_dict() for x in found], ensure_ascii=False, indent=2))
        return
    if not found:
        err.print(Text("no labels stored with this run"), highlight=False)
        return
    table_console().print(label_summary_grid(found).to_rich())


@labels_app.command("import")
def import_labels(
    run_id: RunArgument,
    file: Annotated[
        Path,
        typer.Argument(
            metavar="FILE",
            help="A JSON Lines or CSV (.csv) file: request_id, annotator, label and "
            "optionally metric, kind, comment, drawn, created_at.",
        ),
    ],
    annotator: Annotated[
        str | None,
        typer.Option(help="The person who gave the labels, for rows that do not name one."),
    ] = None,
    metric: Annotated[
        str | None,
        typer.Option(help="The score the labels are about, for rows that do not name one."),
    ] = None,
    store: StoreOption = DEFAULT_STORE,
) -> None:
    """Store the labels of a file with the run. The whole file is checked first: any
    bad row is named (line and field) and then nothing is stored. A person's label of
    a sample and score replaces the one they gave before."""
    from ragjudge.meta._label_files import import_labels as read_and_store

    with opened_store(store) as s:
        found = read_and_store(s, run_id, file, annotator=annotator, metric=metric)
    people = len({x.annotator for x in found.labels})
    message = f"stored {len(found.labels)} label(s) from {people} annotator(s) from {file}"
    if found.replaced:
        message += f" ({found.replaced} replaced an earlier label)"
    table_console().print(Text(message), highlight=False)


@labels_app.command("export")
def export_labels(
    run_id: RunArgument,
    output: Annotated[
        Path,
        typer.Option(
            "--output",
            "-o",
            help="The file to write: CSV for a .csv name, JSON Lines otherwise.",
        ),
    ],
    store: StoreOption = DEFAULT_STORE,
) -> None:
    """Write every label of the run to a file that `labels import` reads back."""
    from ragjudge.meta._label_files import export_labels as write_labels

    with opened_store(store) as s:
        count = write_labels(s, run_id, output)
    table_console().print(Text(f"wrote {count} label(s) to {output}"), highlight=False)


@labels_app.command("agreement")
def agreement(
    run_id: RunArgument,
    metric: MetricOption = None,
    seed: Annotated[int, typer.Option(help="Seed of the bootstrap intervals.")] = 0,
    resamples: Annotated[
        int, typer.Option(help="Bootstrap resamples behind every interval.", min=1)
    ] = 2000,
    store: StoreOption = DEFAULT_STORE,
    as_json: JsonOption = False,
) -> None:
    """How well the people who labelled the run agree with each other (Cohen's kappa of
    each pair, Fleiss' kappa of three or more, Krippendorff's alpha), beside how well
    the judge agrees with each of them and with their combined label."""
    from ragjudge.meta._annotators import annotator_agreements
    from ragjudge.terminal._labels import label_agreement_grids

    with opened_store(store) as s:
        found = annotator_agreements(s, run_id, metric=metric, n_resamples=resamples, seed=seed)
    if as_json:
        print(json.dumps([x.to_dict() for x in found], ensure_ascii=False, indent=2))
        return
    if not found:
        err.print(Text("no labels stored with this run"), highlight=False)
        return
    console = table_console()
    for score in found:
        for grid in label_agreement_grids(score):
            console.print(grid.to_rich())


def register(app: typer.Typer) -> None:
    """Add ``labels`` to the ``ragjudge`` app."""
    app.add_typer(labels_app, name="labels")

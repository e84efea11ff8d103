"""The labelling options of ``ragjudge view`` (``--label RUN --metric M --annotator
NAME`` …): checked here and turned into the viewer's labelling session."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from ragjudge.cli._common import fail

if TYPE_CHECKING:
    from ragjudge.report._labelling import LabellingSession

__all__ = [
    "AnnotatorOption",
    "ChoicesOption",
    "HideVerdictOption",
    "KindOption",
    "LabelKindChoice",
    "LabelOption",
    "LabelOrder",
    "MetricOption",
    "OrderOption",
    "RandomShareOption",
    "ScaleOption",
    "SeedOption",
    "labelling_for",
]

_PANEL = "Labelling"


class LabelKindChoice(StrEnum):
    """The kinds of label a person can give."""

    yesno = "yesno"
    scale = "scale"
    choice = "choice"
    rubric = "rubric"
    comment = "comment"


class LabelOrder(StrEnum):
    """The orders of the labelling queue."""

    informative = "informative"
    random = "random"
    stored = "stored"


LabelOption = Annotated[
    str | None,
    typer.Option(
        "--label",
        metavar="RUN",
        help="Label this run's samples in the browser (with --metric and --annotator); "
        "without it the viewer only reads.",
        rich_help_panel=_PANEL,
    ),
]
MetricOption = Annotated[
    str | None,
    typer.Option(
        "--metric", help="The score to label (its name in the run).", rich_help_panel=_PANEL
    ),
]
AnnotatorOption = Annotated[
    str | None,
    typer.Option(
        "--annotator", help="Your name: the labels are stored under it.", rich_help_panel=_PANEL
    ),
]
KindOption = Annotated[
    LabelKindChoice | None,
    typer.Option(
        "--kind",
        help="The kind of label (default: yesno for a score that passes or fails, choice "
        "with --choices, else scale).",
        rich_help_panel=_PANEL,
    ),
]
ScaleOption = Annotated[
    str,
    typer.Option(
        "--scale", metavar="LOW-HIGH", help="The range of a scale label.", rich_help_panel=_PANEL
    ),
]
ChoicesOption = Annotated[
    str | None,
    typer.Option(
        "--choices", metavar="A,B,C", help="The names of a choice label.", rich_help_panel=_PANEL
    ),
]
HideVerdictOption = Annotated[
    bool,
    typer.Option(
        "--hide-verdict",
        help="Do not show the judge's verdict and rationale while labelling (so they do "
        "not sway the label).",
        rich_help_panel=_PANEL,
    ),
]
OrderOption = Annotated[
    LabelOrder,
    typer.Option(
        "--order",
        help="informative: random draws interleaved with the samples whose verdict is least "
        "certain; random: random draws only; stored: the run's order.",
        rich_help_panel=_PANEL,
    ),
]
RandomShareOption = Annotated[
    float,
    typer.Option(
        "--random-share",
        help="The share of the informative queue drawn at random (only those labels enter "
        "the calibrated estimate).",
        rich_help_panel=_PANEL,
    ),
]
StrataOption = Annotated[
    str | None,
    typer.Option(
        "--strata",
        metavar="metadata.KEY",
        help="Spread the informative queue's targeted samples over the values of a "
        "metadata key: the subset with the fewest labels so far goes next.",
        rich_help_panel=_PANEL,
    ),
]
SeedOption = Annotated[
    int, typer.Option("--seed", help="Seed of the queue's random draw.", rich_help_panel=_PANEL)
]


def _scale(text: str) -> tuple[int, int]:
    low, sep, high = text.partition("-")
    if not sep or not low.strip().isdigit() or not high.strip().isdigit():
        raise fail(f"--scale must be LOW-HIGH, such as 1-5; got {text!r}")
    return int(low), int(high)


def _holding(stores: list[Path], run_id: str) -> Path:
    """The first store holding run ``run_id``."""
    from ragjudge.store._store import Store

    for path in stores:
        with Store(path) as store:
            try:
                store.run(run_id)
            except KeyError:
                continue
            return path
    raise fail(f"--label: no store given holds run {run_id!r}")


def labelling_for(
    stores: list[Path],
    run_id: str,
    metric: str | None,
    annotator: str | None,
    *,
    kind: LabelKindChoice | None,
    scale: str,
    choices: str | None,
    hide_verdict: bool,
    order: LabelOrder,
    random_share: float,
    seed: int,
    strata: str | None = None,
) -> LabellingSession:
    """The labelling session the options describe; exits with the option at fault."""
    from ragjudge.errors import AnalysisError
    from ragjudge.report._labelling import labelling_session

    if metric is None:
        raise fail("--label needs --metric: the score to label")
    if annotator is None:
        raise fail("--label needs --annotator: the name your labels are stored under")
    names = tuple(c.strip() for c in choices.split(",")) if choices else ()
    try:
        return labelling_session(
            _holding(stores, run_id),
            run_id,
            metric,
            annotator,
            kind=kind.value if kind else None,
            scale=_scale(scale),
            choices=names,
            hide_verdict=hide_verdict,
            order=order.value,
            random_share=random_share,
            seed=seed,
            strata=strata,
        )
    except AnalysisError as exc:
        raise fail(str(exc)) from None

"""``--calibrated`` of ``ragjudge show`` and ``ragjudge compare``: the scores' means
calibrated to the labels people gave the runs, beside the judge's."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.text import Text

from ragjudge.cli._common import err, table_console

if TYPE_CHECKING:
    from ragjudge.analysis._calibrated import CalibratedEstimate
    from ragjudge.analysis._calibrated_difference import CalibratedDifference
    from ragjudge.analysis._comparison import Comparison
    from ragjudge.analysis._results import EvaluationResult
    from ragjudge.store import Store

__all__ = [
    "CalibratedOption",
    "calibrated_comparison_json",
    "calibrated_json",
    "compared_calibrated",
    "print_calibrated",
    "print_calibrated_comparison",
]

CalibratedOption = Annotated[
    bool,
    typer.Option(
        "--calibrated",
        help="Also show each score's mean calibrated to the labels people gave the run "
        "(labelled with `ragjudge view RUN --label` or brought in with `ragjudge labels "
        "import`), with its 95% interval, the labels it used and what they are worth.",
    ),
]


def _no_labels_note(run_id: str) -> None:
    from ragjudge.terminal._calibrated import NO_LABELS_NOTE

    err.print(Text(NO_LABELS_NOTE.format(run=run_id), style="yellow"), soft_wrap=True)


def calibrated_json(result: EvaluationResult, found: dict[str, CalibratedEstimate]) -> Any:
    """Per score of the run: its calibrated estimate, or None when nobody labelled it."""
    return {
        s.metric: (found[s.metric].to_dict() if s.metric in found else None)
        for s in result.summaries
    }


def print_calibrated(
    result: EvaluationResult, found: dict[str, CalibratedEstimate], *, as_json: bool
) -> None:
    """The calibrated table below the summary (a note naming how to label when the
    run has no labels; on standard error with ``--json``)."""
    if not found:
        _no_labels_note(result.run_id)
    if as_json:
        return
    if found:
        from ragjudge.terminal import calibrated_table

        table_console().print(calibrated_table(found, [s.metric for s in result.summaries]))


def compared_calibrated(
    first: Store, second: Store, comparison: Comparison
) -> list[CalibratedDifference]:
    """Each score either run has labels of, with the difference of their calibrated
    estimates; a note for a run with no labels at all."""
    from ragjudge.analysis._calibrated import calibrated_estimates
    from ragjudge.analysis._calibrated_difference import calibrated_differences
    from ragjudge.analysis._meanings import run_meanings

    found = []
    for store, side in ((first, comparison.run_a), (second, comparison.run_b)):
        run = store.run(side.run_id)
        estimates = calibrated_estimates(store, run.run_id, run_meanings(run))
        if not estimates:
            _no_labels_note(run.run_id)
        found.append(estimates)
    compared = [row.metric for row in comparison.rows]
    scores = list(dict.fromkeys([*compared, *found[0], *found[1]]))
    return calibrated_differences(found[0], found[1], scores)


def calibrated_comparison_json(differences: list[CalibratedDifference]) -> list[dict[str, Any]]:
    """The JSON form of the calibrated differences."""
    return [row.to_dict() for row in differences]


def print_calibrated_comparison(differences: list[CalibratedDifference]) -> None:
    """The table of calibrated estimates and their difference, when there is any."""
    if differences:
        from ragjudge.terminal import calibrated_comparison_table

        table_console().print(calibrated_comparison_table(differences))

"""Tables of scores calibrated to people's labels: ``ragjudge show --calibrated`` and
``ragjudge compare --calibrated``."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from rich.table import Table

from ragjudge.analysis._calibrated import CalibratedEstimate
from ragjudge.analysis._calibrated_difference import CalibratedDifference
from ragjudge.stats import Interval

__all__ = ["NO_LABELS_NOTE", "calibrated_comparison_table", "calibrated_table"]

NO_LABELS_NOTE = (
    "No labels from people are stored for run {run}, so there is nothing to calibrate "
    "to. Label some of its samples with `ragjudge view {run} --label`, or bring in "
    "labels made elsewhere with `ragjudge labels import`."
)

_EXPLANATION = (
    "calibrated: the judge's values on every sample corrected by the labels people gave "
    "a random draw of them (prediction-powered estimate; PPI++ weighs the judge by how "
    "well it predicts the labels). Labels of samples put first because they looked "
    "informative are left out: they are not a random draw. 'worth': how many labels "
    "alone would give an interval as narrow."
)


def _number(value: float | None) -> str:
    return "–" if value is None else f"{value:.3f}"


def _with_interval(value: float | None, ci: Interval | None) -> str:
    if value is None:
        return "–"
    if ci is None:
        return f"{value:.3f}"
    return f"{value:.3f} [{ci.low:.3f}, {ci.high:.3f}]"


def _worth(found: CalibratedEstimate) -> str:
    return "–" if found.worth is None else f"≈ {found.worth:.0f}"


def _estimate_cells(found: CalibratedEstimate) -> list[str]:
    best = found.best
    return [
        _number(found.estimate.judge.value),
        _with_interval(best.value, best.ci),
        found.method,
        str(found.used),
        str(found.targeted),
        _worth(found),
    ]


def calibrated_table(found: Mapping[str, CalibratedEstimate], scores: Sequence[str]) -> Table:
    """One row per score: the judge's mean beside the mean calibrated to people's
    labels with its 95% interval, the labels used and left out, and their worth;
    scores nobody labelled say so."""
    table = Table(title="Calibrated to people's labels", caption=_EXPLANATION)
    for header in ("score", "judge mean", "calibrated (95% CI)", "method"):
        table.add_column(header)
    for header in ("labels used", "targeted, left out", "worth (labels)"):
        table.add_column(header, justify="right")
    for score in scores:
        estimate = found.get(score)
        if estimate is None:
            table.add_row(score, "", "no labels", "", "0", "", "")
        else:
            table.add_row(score, *_estimate_cells(estimate))
    return table


def _run_cell(found: CalibratedEstimate | None) -> str:
    if found is None:
        return "no labels"
    best = found.best
    return f"{_with_interval(best.value, best.ci)} ({found.used} labels)"


def calibrated_comparison_table(differences: Sequence[CalibratedDifference]) -> Table:
    """One row per score labelled in either run: each run's calibrated estimate and
    B − A with its interval (the two runs' labels are independent draws)."""
    table = Table(title="Calibrated to people's labels: B − A", caption=_EXPLANATION)
    for header in ("score", "A calibrated (95% CI)", "B calibrated (95% CI)", "B − A (95% CI)"):
        table.add_column(header)
    for row in differences:
        change = row.note or _with_interval(row.difference, row.ci)
        table.add_row(row.score, _run_cell(row.a), _run_cell(row.b), change)
    return table

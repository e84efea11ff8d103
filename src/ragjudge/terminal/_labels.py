"""Tables of the labels stored with a run: what is labelled and by whom, and the
agreement among the people beside the judge's agreement with them."""

from __future__ import annotations

from collections.abc import Sequence

from ragjudge.meta._annotators import AnnotatorAgreement, JudgeAgreement
from ragjudge.meta._label_summary import LabelSummary
from ragjudge.stats import Correlation
from ragjudge.terminal._grid import Grid, estimate_cell, interval_text, number

__all__ = ["label_agreement_grids", "label_summary_grid"]

_WHOLE_SAMPLE = "(whole sample)"


def _score(metric: str) -> str:
    return metric or _WHOLE_SAMPLE


def label_summary_grid(summaries: Sequence[LabelSummary]) -> Grid:
    """One row per labelled score: samples, labels, random and targeted, comments and
    each person's count."""
    grid = Grid(
        title="Labels stored with the run",
        headers=["score", "samples", "labels", "random", "targeted", "comments", "annotators"],
    )
    for found in summaries:
        people = ", ".join(f"{name} {count}" for name, count in found.annotators.items())
        grid.add(
            [
                _score(found.metric),
                str(found.samples),
                str(found.labels),
                str(found.random),
                str(found.targeted),
                str(found.comments),
                people,
            ]
        )
    grid.notes.append(
        "random: drawn at random or imported (usable by the calibrated estimate); "
        "targeted: put first because they looked informative."
    )
    return grid


def label_agreement_grids(found: AnnotatorAgreement) -> list[Grid]:
    """The people's agreement and the judge's agreement with them, for one score."""
    grids = [_people_grid(found)]
    if found.judges:
        grids.append(_judge_grid(found))
    return grids


def _people_grid(found: AnnotatorAgreement) -> Grid:
    weighted = found.kind == "scale"
    headers = ["annotators", "samples", "Cohen's κ"]
    if weighted:
        headers.append("weighted κ (quadratic)")
    grid = Grid(
        title=f"Agreement among people: {_score(found.metric)} ({found.kind})", headers=headers
    )
    apart = [p for p in found.pairs if p.n == 0]
    for pair in (p for p in found.pairs if p.n):
        cells = [f"{pair.first} – {pair.second}", str(pair.n), number(pair.kappa)]
        if weighted:
            cells.append(number(pair.weighted_kappa))
        grid.add(cells)
    if found.fleiss_n:
        grid.add(
            [
                f"Fleiss' κ ({found.fleiss_raters} people a sample)",
                str(found.fleiss_n),
                number(found.fleiss_kappa),
            ]
            + [""] * weighted
        )
    if found.alpha is not None:
        alpha = found.alpha
        cell = estimate_cell(alpha.alpha)
        grid.add([f"Krippendorff's α ({alpha.level})", str(alpha.units), cell] + [""] * weighted)
    people = ", ".join(f"{name} ({count})" for name, count in found.annotators.items())
    grid.notes.append(f"labelled by {people}")
    if apart:
        names = ", ".join(f"{p.first} – {p.second}" for p in apart)
        grid.notes.append(f"no sample in common (left out): {names}")
    if len(found.annotators) < 2:
        grid.notes.append("one person only: no agreement among people yet")
    return grid


def _judge_grid(found: AnnotatorAgreement) -> Grid:
    binary = found.kind == "yesno"
    figures = ["accuracy", "Cohen's κ"] if binary else ["Spearman", "Kendall"]
    grid = Grid(
        title=f"The judge against the people: {_score(found.metric)} (95% bootstrap CI)",
        headers=["score", "against", "samples", *figures],
        left=2,
    )
    for row in found.judges:
        grid.add([row.score, row.human, str(row.n), *_judge_cells(row, binary)])
    if binary:
        shown = {f"{r.score} ≥ {r.threshold:g}" for r in found.judges if r.threshold is not None}
        if shown:
            grid.notes.append(f"the judge says yes at {', '.join(sorted(shown))}")
    grid.notes.append(
        "combined: the people's mean label (for yes/no their majority, ties left out)"
    )
    return grid


def _judge_cells(row: JudgeAgreement, binary: bool) -> list[str]:
    if binary:
        return [estimate_cell(row.accuracy), estimate_cell(row.kappa)]
    return [_correlation_cell(row.spearman), _correlation_cell(row.kendall)]


def _correlation_cell(found: Correlation | None) -> str:
    if found is None or found.estimate is None:
        return "–"
    return number(found.estimate) + interval_text(found.ci)

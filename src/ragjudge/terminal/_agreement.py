"""The agreement and PPI tables of a meta-evaluation, as grids for the terminal and
for Markdown."""

from __future__ import annotations

from collections.abc import Callable

from ragjudge.meta._result import MetaBlock, MetaRow, MetaTable
from ragjudge.stats import BinaryAgreement, MeanEstimate, PPIEstimate
from ragjudge.terminal._grid import Grid, estimate_cell, interval_text, number

__all__ = ["agreement_grids", "annotator_notes", "ppi_grid"]

_TUNED = "†"


def _lead(table: MetaTable, block: MetaBlock) -> list[str]:
    return ([block.group or ""] if table.by is not None else []) + [block.human]


def _lead_headers(table: MetaTable) -> list[str]:
    return ([table.by] if table.by is not None else []) + ["human", "metric"]


def _threshold(value: float | None, higher: bool) -> str:
    if value is None:
        return "–"
    return f"{'≥' if higher else '≤'} {value:.3g}"


def _binary_cells(a: BinaryAgreement) -> list[str]:
    return [
        f"{a.n} ({a.positives})",
        _threshold(a.threshold, a.higher_is_better),
        estimate_cell(a.accuracy),
        estimate_cell(a.kappa),
        estimate_cell(a.precision),
        estimate_cell(a.recall),
        estimate_cell(a.auc),
        _threshold(a.best_threshold, a.higher_is_better),
        estimate_cell(a.tuned_accuracy),
        estimate_cell(a.cv_accuracy),
        f"{estimate_cell(a.baseline_accuracy)} ({'yes' if a.baseline_label else 'no'})",
    ]


def _rows_of(table: MetaTable, grid: Grid, cells: Callable[[MetaRow], list[str] | None]) -> None:
    """One row per metric that has cells; the block's group and label on its first."""
    for block in table.blocks:
        lead = _lead(table, block)
        for row in block.rows:
            found = cells(row)
            if found is not None:
                grid.add([*lead, row.metric, *found])
                lead = [""] * len(lead)
        grid.section()


def _binary_grid(table: MetaTable) -> Grid | None:
    if not any(r.agreement and r.agreement.binary for b in table.blocks for r in b.rows):
        return None
    accept = table.settings.acceptable
    target = "yes / no" if accept is None else f"human ≥ {accept:g} acceptable"
    grid = Grid(
        title=f"Agreement with binary labels ({target}; {table.confidence:.0%} bootstrap CI)",
        headers=[
            *_lead_headers(table),
            "n (acceptable)",
            "threshold",
            "accuracy",
            "Cohen's κ",
            "precision",
            "recall",
            "AUC",
            f"best threshold{_TUNED}",
            f"accuracy{_TUNED}",
            "accuracy (CV)",
            "majority baseline",
        ],
        left=len(_lead_headers(table)),
    )
    _rows_of(
        table,
        grid,
        lambda r: _binary_cells(r.agreement.binary) if r.agreement and r.agreement.binary else None,
    )
    folds = table.settings.folds
    grid.notes.append(
        f"{_TUNED} tuned on the same data (optimistic); CV: the threshold tuned on "
        f"{folds - 1} of {folds} folds, accuracy on the held-out fold. Precision and recall "
        "are of 'acceptable'; the baseline always gives the majority label (its κ is 0, "
        "its AUC 0.5)."
    )
    return grid


def _ordinal_grid(table: MetaTable) -> Grid | None:
    rows = [r for b in table.blocks for r in b.rows if r.agreement]
    if not any(r.agreement and r.agreement.ordinal for r in rows):
        return None
    weights = table.settings.kappa_weights
    grid = Grid(
        title=f"Agreement with ordinal labels ({table.confidence:.0%} bootstrap CI)",
        headers=[
            *_lead_headers(table),
            "n",
            f"κ ({weights})",
            "exact",
            "within ±1",
            "majority baseline: exact",
            "within ±1",
        ],
        left=len(_lead_headers(table)),
    )

    def cells(row: MetaRow) -> list[str] | None:
        o = row.agreement.ordinal if row.agreement else None
        if o is None:
            return None
        return [
            str(o.n),
            estimate_cell(o.weighted_kappa),
            estimate_cell(o.exact),
            estimate_cell(o.within_one),
            f"{estimate_cell(o.baseline_exact)} ({o.baseline_level:g})",
            estimate_cell(o.baseline_within_one),
        ]

    _rows_of(table, grid, cells)
    off_scale = sorted({r.metric for r in rows if r.agreement and r.agreement.note})
    if off_scale:
        grid.notes.append(
            f"not on the label's scale, so no ordinal figures: {', '.join(off_scale)}"
        )
    return grid


def _preference_grid(table: MetaTable) -> Grid | None:
    if not any(r.agreement and r.agreement.preference for b in table.blocks for r in b.rows):
        return None
    grid = Grid(
        title=f"Agreement with pairwise preferences ({table.confidence:.0%} bootstrap CI)",
        headers=[*_lead_headers(table), "pairs", "metric ties", "agreement", "majority baseline"],
        left=len(_lead_headers(table)),
    )

    def cells(row: MetaRow) -> list[str] | None:
        p = row.agreement.preference if row.agreement else None
        if p is None:
            return None
        side = "second" if p.baseline_side > 0 else "first"
        return [
            str(p.n),
            str(p.ties),
            estimate_cell(p.agreement),
            f"{estimate_cell(p.baseline)} ({side})",
        ]

    _rows_of(table, grid, cells)
    grid.notes.append(
        "pairs with a human preference; the metric agrees when its difference (second − "
        "first) has the preference's sign, a tie counts one half; the baseline always "
        "prefers the side humans prefer more often."
    )
    return grid


def agreement_grids(table: MetaTable) -> list[Grid]:
    """The binary, ordinal and preference agreement tables that have rows."""
    found = [_binary_grid(table), _ordinal_grid(table), _preference_grid(table)]
    return [g for g in found if g is not None]


def annotator_notes(table: MetaTable) -> list[str]:
    """One line per block on the agreement among its annotators."""
    notes = []
    for block in table.blocks:
        where = f"{block.human}" + (f" ({block.group})" if block.group is not None else "")
        a = block.annotators
        if a is not None:
            left = (
                f"; {a.left_out} with another number of annotators left out" if a.left_out else ""
            )
            notes.append(
                f"{where}: annotators' Fleiss' κ {estimate_cell(a.kappa)} over {a.samples} "
                f"samples × {a.raters} annotators{left}"
            )
        elif block.annotators_note:
            notes.append(f"{where}: annotators' agreement not computed ({block.annotators_note})")
        if block.no_majority:
            notes.append(
                f"{where}: {block.no_majority} sample(s) without a majority label left out"
            )
    return notes


def _mean_cell(m: MeanEstimate) -> str:
    return number(m.value) + interval_text(m.ci)


def _worth(found: PPIEstimate, m: MeanEstimate) -> str:
    """How many human-only labels give an interval as narrow as ``m``'s."""
    wh, wm = found.human.width, m.width
    if not wh or not wm:
        return "–"
    return f"≈{found.labelled * (wh / wm) ** 2:.0f}"


def ppi_grid(table: MetaTable) -> Grid | None:
    """The PPI table: per metric and target, the naive judge mean, the human-only mean,
    PPI and power-tuned PPI, with intervals, and what the labels are worth."""
    if not table.ppi:
        return None
    percent = f"{table.confidence:.0%}"
    grid = Grid(
        title=f"Prediction-powered estimates of the human label ({percent} normal CI)",
        headers=[
            *_lead_headers(table),
            "estimate of",
            "labelled / all",
            "judge only (naive)",
            "humans only",
            "PPI (λ = 1)",
            "worth",
            "PPI++ (λ)",
            "worth",
        ],
        left=len(_lead_headers(table)) + 1,
    )
    for block in table.blocks:
        lead = _lead(table, block)
        for row in block.rows:
            for what, found in _ppi_targets(row):
                lam = "–" if found.tuned_lam is None else f"{found.tuned_lam:.2f}"
                grid.add(
                    [
                        *lead,
                        row.metric,
                        what,
                        f"{found.labelled} / {found.total}",
                        _mean_cell(found.judge),
                        _mean_cell(found.human),
                        _mean_cell(found.ppi),
                        _worth(found, found.ppi),
                        f"{_mean_cell(found.tuned)} ({lam})",
                        _worth(found, found.tuned),
                    ]
                )
                lead = [""] * len(lead)
        grid.section()
    grid.notes.append(
        "PPI: the judge's mean on all samples plus the mean of (human − judge) on the "
        "labelled ones; PPI++ weighs the judge by a tuned λ. 'worth': how many human-only "
        "labels would give an interval as narrow. Valid only when the labelled samples are "
        "a random draw."
    )
    return grid


def _ppi_targets(row: MetaRow) -> list[tuple[str, PPIEstimate]]:
    if row.ppi is None:
        return []
    found = []
    if row.ppi.mean is not None:
        found.append(("mean", row.ppi.mean))
    if row.ppi.rate is not None:
        verdict = _threshold(row.ppi.threshold, row.ppi.higher_is_better)
        found.append((f"acceptance rate (judge {verdict})", row.ppi.rate))
    return found

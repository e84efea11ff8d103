"""The judge table's rows and figures (:class:`JudgeTable`): per score of a run, its
metric, judge and context mode, its figures against each human label and its cost, as
a frame (CSV) and as JSON. Built by :mod:`ragjudge.meta._table`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pandas as pd

from ragjudge.meta._labels import LabelKind
from ragjudge.meta._ranking import JudgeRanking
from ragjudge.stats import Estimate

__all__ = [
    "BINARY_FIGURES",
    "SCALE_FIGURES",
    "JudgeCost",
    "JudgeTable",
    "JudgeTableRow",
    "LabelFigures",
    "primary_figure",
]

SCALE_FIGURES = ("kendall", "spearman", "pearson")
"""The figures of a scale label, the primary one (the ranking's) first."""
BINARY_FIGURES = ("kappa", "accuracy", "auc")
"""The figures of a yes/no label, the primary one (the ranking's) first."""


def primary_figure(kind: LabelKind) -> str:
    """The figure judges are ranked by: Cohen's kappa for a yes/no label, Kendall's
    tau-b for any other."""
    return BINARY_FIGURES[0] if kind == "binary" else SCALE_FIGURES[0]


@dataclass(frozen=True)
class LabelFigures:
    """One score against one human label: the figures of the label's kind (by name, see
    :data:`SCALE_FIGURES` and :data:`BINARY_FIGURES`) over ``n`` paired samples."""

    human: str
    kind: LabelKind
    n: int
    figures: dict[str, Estimate]

    @property
    def primary(self) -> Estimate:
        """The figure the judges are ranked by."""
        return self.figures.get(primary_figure(self.kind), Estimate(None))


@dataclass(frozen=True)
class JudgeCost:
    """What a score's judge calls cost: ``calls`` distinct calls, ``cost`` dollars over
    the priced ones (None when none is priced; ``unpriced`` counts the others), for
    ``samples`` samples."""

    calls: int
    cost: float | None
    unpriced: int
    samples: int

    @property
    def per_thousand(self) -> float | None:
        """Dollars per 1,000 samples (every trial included); None when unknown."""
        if self.cost is None or self.samples == 0:
            return None
        return self.cost / self.samples * 1000


@dataclass(frozen=True)
class JudgeTableRow:
    """One score of the run: its metric, judge (None for a score no judge gave, such as
    an ``--extra`` column), the judge's model when the run names it, the contexts the
    judge was shown, the judges an ensemble combines, per human label its figures, and
    its cost."""

    score: str
    metric: str
    judge: str | None
    model: str | None
    contexts: str | None
    ensemble: tuple[str, ...]
    higher_is_better: bool
    labels: dict[str, LabelFigures]
    cost: JudgeCost


@dataclass(frozen=True)
class JudgeTable:
    """Every metric × judge × context mode of a run against human labels, and the
    judges ranked per label, metric and context mode (``within``: the margin of the
    "cheapest judge within X of the best" line, in the ranked figure's units)."""

    run_id: str | None
    confidence: float
    humans: dict[str, LabelKind]
    rows: list[JudgeTableRow]
    rankings: list[JudgeRanking]
    within: float

    def to_frame(self) -> pd.DataFrame:
        """One row per (score, human label), each figure with its interval bounds
        (``kendall``, ``kendall_low``, ``kendall_high`` …; NaN where the label's kind has
        no such figure), and the cost columns."""
        figures = [*SCALE_FIGURES, *BINARY_FIGURES]
        records = [
            _frame_record(row, row.labels[h], figures) for row in self.rows for h in row.labels
        ]
        columns = ["metric", "judge", "model", "contexts", "ensemble", "score", "human", "kind"]
        columns += ["n", *[f"{f}{s}" for f in figures for s in ("", "_low", "_high")]]
        columns += ["calls", "cost", "unpriced_calls", "samples", "cost_per_1000"]
        return pd.DataFrame(records, columns=columns)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready form: missing values are None."""
        return {
            "run_id": self.run_id,
            "confidence": self.confidence,
            "within": self.within,
            "humans": [
                {"name": name, "kind": kind, "ranked_by": primary_figure(kind)}
                for name, kind in self.humans.items()
            ],
            "rows": [_row_dict(row) for row in self.rows],
            "rankings": [ranking.to_dict() for ranking in self.rankings],
        }


def _frame_record(row: JudgeTableRow, found: LabelFigures, figures: list[str]) -> dict[str, Any]:
    record: dict[str, Any] = {
        "metric": row.metric,
        "judge": row.judge,
        "model": row.model,
        "contexts": row.contexts,
        "ensemble": "+".join(row.ensemble) or None,
        "score": row.score,
        "human": found.human,
        "kind": found.kind,
        "n": found.n,
    }
    for name in figures:
        estimate = found.figures.get(name, Estimate(None))
        record[name] = estimate.value
        record[f"{name}_low"] = estimate.ci.low if estimate.ci else None
        record[f"{name}_high"] = estimate.ci.high if estimate.ci else None
    return {
        **record,
        "calls": row.cost.calls,
        "cost": row.cost.cost,
        "unpriced_calls": row.cost.unpriced,
        "samples": row.cost.samples,
        "cost_per_1000": row.cost.per_thousand,
    }


def _row_dict(row: JudgeTableRow) -> dict[str, Any]:
    return {
        "score": row.score,
        "metric": row.metric,
        "judge": row.judge,
        "model": row.model,
        "contexts": row.contexts,
        "ensemble": list(row.ensemble),
        "labels": {
            name: {
                "kind": found.kind,
                "n": found.n,
                **{k: e.to_dict() for k, e in found.figures.items()},
            }
            for name, found in row.labels.items()
        },
        "calls": row.cost.calls,
        "cost": row.cost.cost,
        "unpriced_calls": row.cost.unpriced,
        "samples": row.cost.samples,
        "cost_per_1000": row.cost.per_thousand,
    }

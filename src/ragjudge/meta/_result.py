"""The result of a meta-evaluation: one block per human label (and group), one row
per metric, and their frame and JSON forms."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from ragjudge.meta._agreement import AgreementSettings, RowAgreement, RowPPI
from ragjudge.meta._labels import Combine, LabelKind
from ragjudge.stats import CORRELATION_METHODS, Correlation, RaterAgreement

__all__ = ["MetaBlock", "MetaRow", "MetaTable"]

_TEXT_COLUMNS = ("human", "group", "metric")
_COUNT_COLUMNS = ("n", "unpaired", "human_n", "missing")


@dataclass(frozen=True)
class MetaRow:
    """One metric against one human label.

    ``mean`` is the metric's mean over the ``n`` samples that enter the correlations
    (those with both a human label and a usable metric value; a sample's trials are
    averaged first). ``unpaired`` counts samples that have a human label but no usable
    metric value (every trial failed or was an excluded value). ``agreement`` holds
    the agreement figures that fit the label, ``ppi`` the prediction-powered
    estimates (None when not asked for). At the summary and system levels each
    correlation's own ``n`` counts the groups that enter it.
    """

    metric: str
    mean: float | None
    n: int
    unpaired: int
    correlations: dict[str, Correlation]
    agreement: RowAgreement | None = None
    ppi: RowPPI | None = None


@dataclass(frozen=True)
class MetaBlock:
    """All metrics against one human label, within one group of samples.

    ``human_mean`` and ``n`` describe the samples that have the label; ``missing``
    counts the samples of the group that lack it (``no_majority`` of them have
    annotations that ``majority`` could not combine). ``annotators`` is the agreement
    among the annotators (None for a numeric label, a single annotator, or without
    statsmodels — then ``annotators_note`` says why).
    """

    human: str
    group: str | None
    human_mean: float | None
    n: int
    missing: int
    rows: list[MetaRow]
    kind: LabelKind = "numeric"
    annotators: RaterAgreement | None = None
    annotators_note: str | None = None
    no_majority: int = 0
    left_out: int = 0
    """Samples of the group whose every annotation meant "could not judge" (counted
    in ``missing`` too)."""


@dataclass(frozen=True)
class MetaTable:
    """The meta-evaluation of a run: one block per human label (and per group).

    ``where`` is the row filter the samples passed, ``level`` the level of the
    correlations (``sample``, ``summary`` or ``system``, grouped by metadata key
    ``group_key``), ``positive`` the positive class of text labels and
    ``excluded_human`` the label values that mean "could not judge" (by label, ``*``
    for every label)."""

    blocks: list[MetaBlock]
    combine: Combine
    by: str | None
    confidence: float
    run_id: str | None = None
    excluded_values: dict[str, list[float]] = field(default_factory=dict)
    settings: AgreementSettings = field(default_factory=AgreementSettings)
    pairs: str | None = None
    ppi: bool = False
    where: str | None = None
    level: str = "sample"
    group_key: str | None = None
    positive: str | None = None
    excluded_human: dict[str, list[float]] = field(default_factory=dict)

    def to_frame(self) -> pd.DataFrame:
        """One row per (human label, group, metric), with each method's estimate,
        interval bounds and p-value in columns such as ``pearson``, ``pearson_low``,
        ``pearson_high`` and ``pearson_p``. Missing values are NaN."""
        records = [
            {
                "human": block.human,
                "group": block.group,
                "metric": row.metric,
                "mean": row.mean,
                "n": row.n,
                "unpaired": row.unpaired,
                **_correlation_columns(row.correlations),
                "human_mean": block.human_mean,
                "human_n": block.n,
                "missing": block.missing,
            }
            for block in self.blocks
            for row in block.rows
        ]
        frame = pd.DataFrame(records, columns=_frame_columns())
        # None becomes NaN so the numeric columns stay numeric.
        floats = [c for c in frame.columns if c not in (*_TEXT_COLUMNS, *_COUNT_COLUMNS)]
        frame[floats] = frame[floats].astype("float64")
        return frame.astype({c: "int64" for c in _COUNT_COLUMNS})

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready form: missing values are None, never NaN."""
        return {
            "run_id": self.run_id,
            "combine": self.combine,
            "by": self.by,
            "confidence": self.confidence,
            "excluded_values": self.excluded_values,
            "acceptable": self.settings.acceptable,
            "thresholds": dict(self.settings.thresholds),
            "kappa_weights": self.settings.kappa_weights,
            "pairs": self.pairs,
            "ppi": self.ppi,
            "where": self.where,
            "level": self.level,
            "group": self.group_key,
            "positive": self.positive,
            "excluded_human": self.excluded_human,
            "seed": self.settings.seed,
            "resamples": self.settings.n_resamples,
            "blocks": [_block_dict(block) for block in self.blocks],
        }


def _block_dict(block: MetaBlock) -> dict[str, Any]:
    annotators = None
    if block.annotators is not None:
        a = block.annotators
        annotators = {
            "method": a.method,
            **a.kappa.to_dict(),
            "samples": a.samples,
            "raters": a.raters,
            "left_out": a.left_out,
        }
    return {
        "human": block.human,
        "group": block.group,
        "kind": block.kind,
        "human_mean": block.human_mean,
        "n": block.n,
        "missing": block.missing,
        "no_majority": block.no_majority,
        "left_out": block.left_out,
        "annotators": annotators,
        "annotators_note": block.annotators_note,
        "rows": [_row_dict(row) for row in block.rows],
    }


def _frame_columns() -> list[str]:
    columns = ["human", "group", "metric", "mean", "n", "unpaired"]
    for method in CORRELATION_METHODS:
        columns += [method, f"{method}_low", f"{method}_high", f"{method}_p"]
    return [*columns, "human_mean", "human_n", "missing"]


def _correlation_columns(found: Mapping[str, Correlation]) -> dict[str, float | None]:
    columns: dict[str, float | None] = {}
    for method, corr in found.items():
        columns[method] = corr.estimate
        columns[f"{method}_low"] = corr.ci.low if corr.ci else None
        columns[f"{method}_high"] = corr.ci.high if corr.ci else None
        columns[f"{method}_p"] = corr.p_value
    return columns


def _row_dict(row: MetaRow) -> dict[str, Any]:
    return {
        "metric": row.metric,
        "mean": row.mean,
        "n": row.n,
        "unpaired": row.unpaired,
        **{
            method: {
                "estimate": corr.estimate,
                "ci_low": corr.ci.low if corr.ci else None,
                "ci_high": corr.ci.high if corr.ci else None,
                "p_value": corr.p_value,
                "resamples": corr.resamples,
                "n": corr.n,
            }
            for method, corr in row.correlations.items()
        },
        "agreement": row.agreement.to_dict() if row.agreement else None,
        "ppi": row.ppi.to_dict() if row.ppi else None,
    }

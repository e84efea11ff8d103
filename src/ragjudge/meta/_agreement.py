"""The agreement and PPI figures of one metric against one human label, as
:mod:`ragjudge.meta._evaluation` puts them on each row.

Which figures a row gets:

- **binary** figures (:func:`~ragjudge.stats.binary_agreement`) when the label is binary,
  or when ``acceptable`` turns another label into "acceptable or not" (the combined
  label at or above it);
- **ordinal** figures (:func:`~ragjudge.stats.ordinal_agreement`) when the label is
  ordinal and the metric is on its scale: every per-sample value of the metric is a
  whole number within the levels the annotators used (a judge's 1–5 against 1–5
  labels; answer accuracy's 0 is already left out). A mean of several annotators is
  rounded half up to a level;
- a **preference** figure (:func:`~ragjudge.stats.preference_agreement`) in pairwise
  mode, where the metric's value is a difference between two answers;
- **PPI** (:func:`~ragjudge.stats.ppi_estimate`) with ``ppi``: of the human-scale mean
  (the metric's raw value as the prediction) for a non-binary label, and of the
  acceptance rate (the metric's acceptable-or-not at its threshold as the prediction)
  when there is a binary target and a threshold.

A metric's **threshold** (acceptable when its value is at least that, at most for a
lower-is-better metric) is the one given for it, else the one given for ``*``, else
0.5 for a yes/no metric and the middle of its declared range for another; a metric
without a declared range (a score taken from metadata) has none unless given.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ragjudge.meta._labels import LabelColumn
from ragjudge.schema import ScoreMeaning
from ragjudge.stats import (
    BinaryAgreement,
    Estimate,
    KappaWeights,
    OrdinalAgreement,
    PPIEstimate,
    PreferenceAgreement,
    binary_agreement,
    ordinal_agreement,
    ppi_estimate,
    preference_agreement,
)
from ragjudge.stats._ppi import MeanEstimate

__all__ = [
    "AgreementSettings",
    "RowAgreement",
    "RowPPI",
    "metric_threshold",
    "row_agreement",
    "row_ppi",
]


@dataclass(frozen=True)
class AgreementSettings:
    """What :func:`row_agreement` and :func:`row_ppi` compute (see the module docstring)."""

    acceptable: float | None = None
    thresholds: Mapping[str, float] = field(default_factory=dict)
    kappa_weights: KappaWeights = "quadratic"
    folds: int = 5
    pairs: bool = False
    seed: int = 0
    confidence: float = 0.95
    n_resamples: int = 2000


@dataclass(frozen=True)
class RowAgreement:
    """One metric's agreement figures against one label; ``note`` says why the ordinal
    figures are missing when the label is ordinal."""

    binary: BinaryAgreement | None = None
    ordinal: OrdinalAgreement | None = None
    preference: PreferenceAgreement | None = None
    note: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready form: estimates as ``{value, ci_low, ci_high}``, None kept."""
        return {
            "binary": _plain(self.binary),
            "ordinal": _plain(self.ordinal),
            "preference": _plain(self.preference),
            "note": self.note,
        }


@dataclass(frozen=True)
class RowPPI:
    """PPI of the human-scale mean and of the acceptance rate (None where not asked
    for or not defined), with the threshold that made the judge's verdicts."""

    mean: PPIEstimate | None = None
    rate: PPIEstimate | None = None
    threshold: float | None = None
    higher_is_better: bool = True

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready form of both estimates."""
        return {
            "mean": _plain(self.mean),
            "rate": _plain(self.rate),
            "threshold": self.threshold,
            "higher_is_better": self.higher_is_better,
        }


def _plain(value: Any) -> Any:
    """Dataclasses as dicts, estimates as ``{value, ci_low, ci_high}``, intervals split."""
    if value is None or isinstance(value, str | int | float | bool):
        return value
    if isinstance(value, Estimate):
        return value.to_dict()
    if isinstance(value, MeanEstimate):
        ci = value.ci
        return {
            "value": value.value,
            "std_error": value.std_error,
            "ci_low": ci.low if ci else None,
            "ci_high": ci.high if ci else None,
            "n": value.n,
        }
    if isinstance(value, tuple | list):
        return [_plain(v) for v in value]
    return {name: _plain(getattr(value, name)) for name in value.__dataclass_fields__}


def metric_threshold(
    metric: str, meaning: ScoreMeaning | None, thresholds: Mapping[str, float]
) -> float | None:
    """The threshold at which ``metric`` calls a sample acceptable (module docstring)."""
    if metric in thresholds:
        return thresholds[metric]
    if "*" in thresholds:
        return thresholds["*"]
    if meaning is None:
        return None
    if meaning.binary:
        return 0.5
    if meaning.low is not None and meaning.high is not None:
        return (meaning.low + meaning.high) / 2
    return None


def _higher_is_better(meaning: ScoreMeaning | None) -> bool:
    return meaning is None or not meaning.lower_is_better


def row_agreement(
    metric: str,
    values: pd.Series[float],
    label: LabelColumn,
    meaning: ScoreMeaning | None,
    settings: AgreementSettings,
) -> RowAgreement | None:
    """The agreement figures of ``values`` (per sample, paired with a label) against
    ``label``; None when none applies."""
    human = label.combined.reindex(values.index)
    if settings.pairs:
        found = preference_agreement(
            values.to_numpy(dtype=np.float64),
            human.to_numpy(dtype=np.float64),
            confidence=settings.confidence,
            n_resamples=settings.n_resamples,
            seed=settings.seed,
        )
        return RowAgreement(preference=found)
    binary = _binary(metric, values, label, meaning, settings)
    ordinal, note = _ordinal(values, label, settings)
    if binary is None and ordinal is None and note is None:
        return None
    return RowAgreement(binary=binary, ordinal=ordinal, note=note)


def _binary(
    metric: str,
    values: pd.Series[float],
    label: LabelColumn,
    meaning: ScoreMeaning | None,
    settings: AgreementSettings,
) -> BinaryAgreement | None:
    target = label.binary_target(settings.acceptable)
    if target is None:
        return None
    known = target.reindex(values.index).dropna()
    if known.empty:
        return None
    return binary_agreement(
        values.loc[known.index].to_numpy(dtype=np.float64),
        known.to_numpy(dtype=np.float64),
        threshold=metric_threshold(metric, meaning, settings.thresholds),
        higher_is_better=_higher_is_better(meaning),
        folds=settings.folds,
        confidence=settings.confidence,
        n_resamples=settings.n_resamples,
        seed=settings.seed,
    )


def _ordinal(
    values: pd.Series[float], label: LabelColumn, settings: AgreementSettings
) -> tuple[OrdinalAgreement | None, str | None]:
    target = label.ordinal_target()
    if target is None or values.empty:
        return None, None
    x = values.to_numpy(dtype=np.float64)
    low, high = min(label.levels), max(label.levels)
    if not (np.all(x == np.round(x)) and x.min() >= low and x.max() <= high):
        return None, f"not on the label's scale ({low:g}–{high:g})"
    paired = target.reindex(values.index)
    return (
        ordinal_agreement(
            x,
            paired.to_numpy(dtype=np.float64),
            weights=settings.kappa_weights,
            confidence=settings.confidence,
            n_resamples=settings.n_resamples,
            seed=settings.seed,
        ),
        None,
    )


def row_ppi(
    metric: str,
    judged: pd.Series[float],
    label: LabelColumn,
    meaning: ScoreMeaning | None,
    settings: AgreementSettings,
) -> RowPPI:
    """PPI of ``label`` with the metric's values on every judged sample (``judged``,
    indexed by sample id; the label NaN where a sample has none)."""
    threshold = metric_threshold(metric, meaning, settings.thresholds)
    mean = None
    if label.kind != "binary":
        mean = ppi_estimate(
            judged.to_numpy(dtype=np.float64),
            label.combined.reindex(judged.index).to_numpy(dtype=np.float64),
            confidence=settings.confidence,
        )
    rate = None
    higher = _higher_is_better(meaning)
    target = label.binary_target(settings.acceptable)
    if target is not None and threshold is not None:
        sign = 1.0 if higher else -1.0
        verdicts = (sign * judged >= sign * threshold).astype("float64")
        rate = ppi_estimate(
            verdicts.to_numpy(dtype=np.float64),
            target.reindex(judged.index).to_numpy(dtype=np.float64),
            confidence=settings.confidence,
        )
    return RowPPI(mean=mean, rate=rate, threshold=threshold, higher_is_better=higher)

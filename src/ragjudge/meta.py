"""Meta-evaluation: how well each metric of a run agrees with human scores.

For every metric the table gives its mean and its Pearson, Spearman and Kendall
correlation with a human score, each with a paired bootstrap confidence interval and
the number of samples ``n`` — the layout of the answer-accuracy study in seed 000
(its Figure 2), where the expert score itself heads the table.

A human score lives in a sample's metadata. It may be a number, a numeric string, a
list of numbers, or a dict from annotator id to value (MTRAG's
``{"ann1": "4", "ann2": "3"}``; an annotation record ``{"value": "4", ...}`` is read
through its ``value``). Several annotators are combined per sample with the mean or
the median. Samples without a human score are left out of the correlations and
counted; a value that is not a number raises an error naming the sample.
"""

from __future__ import annotations

import json
import math
import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal

import numpy as np
import pandas as pd

from ragjudge.meanings import exclusions, run_meanings
from ragjudge.stats import (
    CORRELATION_METHODS,
    Correlation,
    correlations,
    group_label,
    group_names,
    metadata_column,
    sample_means,
)
from ragjudge.store import Store

__all__ = [
    "Combine",
    "MetaBlock",
    "MetaRow",
    "MetaTable",
    "human_score",
    "meta_evaluate",
    "meta_for_run",
]

Combine = Literal["mean", "median"]
"""How several annotators' values become one human score per sample."""

_TEXT_COLUMNS = ("human", "group", "metric")
_COUNT_COLUMNS = ("n", "unpaired", "human_n", "missing")


@dataclass(frozen=True)
class MetaRow:
    """One metric against one human score.

    ``mean`` is the metric's mean over the ``n`` samples that enter the correlations
    (those with both a human score and a usable metric value; a sample's trials are
    averaged first). ``unpaired`` counts samples that have a human score but no usable
    metric value (every trial failed or was an excluded value).
    """

    metric: str
    mean: float | None
    n: int
    unpaired: int
    correlations: dict[str, Correlation]


@dataclass(frozen=True)
class MetaBlock:
    """All metrics against one human score, within one group of samples.

    ``human_mean`` and ``n`` describe the samples that have the human score;
    ``missing`` counts the samples of the group that lack it.
    """

    human: str
    group: str | None
    human_mean: float | None
    n: int
    missing: int
    rows: list[MetaRow]


@dataclass(frozen=True)
class MetaTable:
    """The meta-evaluation of a run: one block per human score (and per group)."""

    blocks: list[MetaBlock]
    combine: Combine
    by: str | None
    confidence: float
    run_id: str | None = None
    excluded_values: dict[str, list[float]] = field(default_factory=dict)

    def to_frame(self) -> pd.DataFrame:
        """One row per (human score, group, metric), with each method's estimate,
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
            "blocks": [
                {
                    "human": block.human,
                    "group": block.group,
                    "human_mean": block.human_mean,
                    "n": block.n,
                    "missing": block.missing,
                    "rows": [_row_dict(row) for row in block.rows],
                }
                for block in self.blocks
            ],
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
            }
            for method, corr in row.correlations.items()
        },
    }


# --------------------------------------------------------------------------- human scores


def human_score(value: Any, *, combine: Combine = "mean") -> float | None:
    """One number from a human-score value, or None when there is none.

    Accepts a number, a numeric string, a list of numbers, a dict annotator → value,
    an annotation record ``{"value": ...}``, and JSON text of a list or dict (the form
    a score frame keeps dict metadata in). Several values are combined with
    ``combine``. None, NaN, ``""`` and empty lists or dicts mean "no score"; anything
    else that is not a number raises ``ValueError``.
    """
    if combine not in ("mean", "median"):
        raise ValueError(f"combine must be 'mean' or 'median', got {combine!r}")
    values = _annotation_values(value)
    if not values:
        return None
    return statistics.fmean(values) if combine == "mean" else float(statistics.median(values))


def _annotation_values(value: Any) -> list[float]:
    """Every annotator's value inside ``value``, as floats (NaN dropped)."""
    if value is None:
        return []
    if isinstance(value, bool):
        raise ValueError(f"not a numeric score: {value!r}")
    if isinstance(value, int | float | np.integer | np.floating):
        return _finite_or_none(float(value), value)
    if isinstance(value, str):
        return _string_values(value)
    if isinstance(value, Mapping):
        if "value" in value and not isinstance(value["value"], Mapping):
            return _annotation_values(value["value"])
        return [v for item in value.values() for v in _annotation_values(item)]
    if isinstance(value, list | tuple | np.ndarray):
        return [v for item in value for v in _annotation_values(item)]
    raise ValueError(f"not a numeric score: {value!r}")


def _string_values(text: str) -> list[float]:
    stripped = text.strip()
    if not stripped:
        return []
    if stripped[0] in "[{":
        try:
            return _annotation_values(json.loads(stripped))
        except json.JSONDecodeError as exc:
            raise ValueError(f"not a numeric score: {text!r}") from exc
    try:
        number = float(stripped)
    except ValueError as exc:
        raise ValueError(f"not a numeric score: {text!r}") from exc
    return _finite_or_none(number, text)


def _finite_or_none(number: float, original: Any) -> list[float]:
    if math.isnan(number):
        return []
    if math.isinf(number):
        raise ValueError(f"not a finite score: {original!r}")
    return [number]


# --------------------------------------------------------------------------- evaluation


def meta_evaluate(
    frame: pd.DataFrame,
    human: str | Sequence[str],
    *,
    combine: Combine = "mean",
    by: str | None = None,
    seed: int = 0,
    exclude: Mapping[str, Sequence[float]] | None = None,
    extra: Sequence[str] = (),
    confidence: float = 0.95,
    n_resamples: int = 2000,
) -> MetaTable:
    """Correlate every metric of a long score frame with one or more human scores.

    ``frame`` has one row per (sample, trial, metric) — columns ``sample_id``,
    ``trial``, ``metric``, ``value``, ``error`` — and the samples' metadata as
    ``metadata.KEY`` columns (the form of :meth:`Store.score_frame`). ``human`` names
    the metadata key(s) holding a human score (see :func:`human_score`); each gives
    its own block of rows. ``by`` splits the samples by a metadata key, one block per
    group. ``exclude[metric]`` lists values left out before averaging trials (such as
    the "not sure" 0 of answer accuracy). ``extra`` names metadata keys holding other
    systems' scores to correlate as if they were metrics of the run.
    """
    keys = [human] if isinstance(human, str) else list(human)
    if not keys:
        raise ValueError("name at least one human-score key")
    if combine not in ("mean", "median"):
        raise ValueError(f"combine must be 'mean' or 'median', got {combine!r}")
    metric_values = sample_means(frame, exclude)
    if frame.empty:
        raise ValueError("score frame holds no scores")
    firsts = frame.drop_duplicates("sample_id").set_index("sample_id")
    for key in extra:
        if key in metric_values:
            raise ValueError(f"extra score {key!r} has the name of a metric of the run")
        metric_values[key] = _score_series(firsts, key, combine)
    human_scores = {key: _score_series(firsts, key, combine) for key in keys}
    groups = _groups(firsts, by)
    blocks = [
        _block(
            key,
            group,
            ids,
            human_scores[key],
            metric_values,
            seed=seed,
            confidence=confidence,
            n_resamples=n_resamples,
        )
        for key in keys
        for group, ids in groups
    ]
    return MetaTable(
        blocks=blocks,
        combine=combine,
        by=by,
        confidence=confidence,
        excluded_values={k: [float(v) for v in vs] for k, vs in (exclude or {}).items() if vs},
    )


def _score_series(firsts: pd.DataFrame, key: str, combine: Combine) -> pd.Series[float]:
    """Each sample's combined score under metadata ``key`` (NaN when it has none)."""
    column = metadata_column(firsts, key)
    values: dict[Any, float] = {}
    for sample_id, raw in firsts[column].items():
        try:
            score = human_score(raw, combine=combine)
        except ValueError as exc:
            raise ValueError(f"sample {sample_id!r}, metadata {key!r}: {exc}") from None
        values[sample_id] = math.nan if score is None else score
    return pd.Series(values, index=firsts.index, dtype="float64")


def _groups(firsts: pd.DataFrame, by: str | None) -> list[tuple[str | None, pd.Index[Any]]]:
    """(group name, sample ids) pairs; one unnamed group of all samples without ``by``."""
    if by is None:
        return [(None, firsts.index)]
    labels = firsts[metadata_column(firsts, by)].map(group_label)
    return [(name, firsts.index[(labels == name).to_numpy()]) for name in group_names(labels)]


def _block(
    key: str,
    group: str | None,
    ids: pd.Index[Any],
    human: pd.Series[float],
    metric_values: Mapping[str, pd.Series[float]],
    *,
    seed: int,
    confidence: float,
    n_resamples: int,
) -> MetaBlock:
    scored = human.reindex(ids).dropna()
    rows = []
    for metric, per_sample in metric_values.items():
        paired = per_sample.reindex(scored.index).dropna()
        pairs = scored.loc[paired.index]
        found = correlations(
            paired.to_numpy(dtype=np.float64),
            pairs.to_numpy(dtype=np.float64),
            seed=seed,
            confidence=confidence,
            n_resamples=n_resamples,
        )
        rows.append(
            MetaRow(
                metric=metric,
                mean=float(paired.mean()) if len(paired) else None,
                n=len(paired),
                unpaired=len(scored) - len(paired),
                correlations=found,
            )
        )
    return MetaBlock(
        human=key,
        group=group,
        human_mean=float(scored.mean()) if len(scored) else None,
        n=len(scored),
        missing=len(ids) - len(scored),
        rows=rows,
    )


def meta_for_run(
    store: Store,
    run_id: str,
    human: list[str],
    *,
    combine: Combine = "mean",
    by: str | None = None,
    seed: int = 0,
    extra: Sequence[str] = (),
) -> MetaTable:
    """Meta-evaluate a stored run (a unique prefix of its id is enough) from its score
    frame, where the samples' metadata (human scores, ``by`` and ``extra`` keys) sits.

    Values the run's metrics leave out of their mean (from the meanings stored with
    the run, such as answer accuracy's 0) are left out here too. Raises ``KeyError`` for an unknown run
    and ``ValueError`` when the run has no scores or no sample carries a named key.
    """
    run = store.run(run_id)
    frame = store.score_frame(run.run_id)
    if frame.empty:
        raise ValueError(f"run {run.run_id} has no scores")
    table = meta_evaluate(
        frame,
        human,
        combine=combine,
        by=by,
        seed=seed,
        exclude=exclusions(run_meanings(run)),
        extra=extra,
    )
    return replace(table, run_id=run.run_id)

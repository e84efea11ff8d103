"""Meta-evaluation: can a metric (a judge) be trusted, measured against human labels.

For every metric the table gives its mean and its Pearson, Spearman and Kendall
correlation with a human label, each with a paired bootstrap confidence interval and
the number of samples ``n`` — the correlation table of every metric against expert
scores that the answer-accuracy paper cited in ``docs/validation.md`` reports, where the
expert score itself heads the table. Beside them, the
agreement figures that fit the label (:mod:`ragjudge.meta._agreement`: accuracy, kappa,
AUC, precision and recall of "acceptable" for a binary label; weighted kappa, exact and
within-one agreement for an ordinal one; preference agreement for pairs), each with the
"always the majority label" baseline, the agreement among the annotators
themselves (Fleiss' kappa), and with ``ppi`` the prediction-powered estimate of the
human-scale mean from a few labelled samples.

A human label lives in the samples' metadata, under one key or spread over annotator
keys; its values may be numbers, booleans, yes/no words (Japanese too), lists or dicts
of annotators (:mod:`ragjudge.meta._labels`). Several annotators are combined per sample
with the mean, the median or the majority. Samples without a label are left out of the
correlations and counted; a value that is not a label raises an error naming the
sample.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import pandas as pd

from ragjudge.analysis._meanings import exclusions, run_meanings
from ragjudge.errors import AnalysisError, ConfigError
from ragjudge.meta._agreement import AgreementSettings, row_agreement, row_ppi
from ragjudge.meta._labels import (
    COMBINE_RULES,
    Combine,
    HumanLabel,
    KindOption,
    LabelColumn,
    combine_values,
    label_column,
    parse_human,
    read_annotations,
)
from ragjudge.meta._levels import Level, check_level, level_correlations
from ragjudge.meta._pairs import pair_frames
from ragjudge.meta._result import MetaBlock, MetaRow, MetaTable
from ragjudge.meta._stored_labels import with_stored_labels
from ragjudge.meta._where import rows_matching
from ragjudge.schema import ScoreMeaning
from ragjudge.stats import (
    Correlation,
    KappaWeights,
    RaterAgreement,
    correlations,
    fleiss_kappa,
    group_label,
    group_names,
    metadata_column,
    sample_means,
)
from ragjudge.store._store import Store

__all__ = [
    "Combine",
    "HumanLabel",
    "MetaBlock",
    "MetaRow",
    "MetaTable",
    "human_score",
    "meta_evaluate",
    "meta_for_run",
]


def human_score(value: Any, *, combine: Combine = "mean") -> float | None:
    """One number from a human label's value, or None when there is none (or
    ``majority`` finds a tie). See :mod:`ragjudge.meta._labels` for the forms read;
    anything else raises :class:`~ragjudge.errors.AnalysisError` (a ``ValueError``)."""
    if combine not in COMBINE_RULES:
        raise ConfigError(f"combine must be one of {', '.join(COMBINE_RULES)}, got {combine!r}")
    return combine_values(read_annotations(value).values, combine)


# --------------------------------------------------------------------------- evaluation


def meta_evaluate(
    frame: pd.DataFrame,
    human: str | HumanLabel | Sequence[str | HumanLabel],
    *,
    combine: Combine = "mean",
    by: str | None = None,
    seed: int = 0,
    exclude: Mapping[str, Sequence[float]] | None = None,
    extra: Sequence[str] = (),
    confidence: float = 0.95,
    n_resamples: int = 2000,
    kind: KindOption = "auto",
    acceptable: float | None = None,
    thresholds: Mapping[str, float] | None = None,
    kappa_weights: KappaWeights = "quadratic",
    folds: int = 5,
    ppi: bool = False,
    ppi_labels: int | None = None,
    pairs: str | None = None,
    meanings: Mapping[str, ScoreMeaning] | None = None,
    where: str | None = None,
    level: Level = "sample",
    group: str | None = None,
    positive: str | None = None,
    exclude_human: Mapping[str, Sequence[float]] | None = None,
) -> MetaTable:
    """Set every metric of a long score frame against one or more human labels.

    ``frame`` has one row per (sample, trial, metric) — columns ``sample_id``,
    ``trial``, ``metric``, ``value``, ``error`` — and the samples' metadata as
    ``metadata.KEY`` columns (the form of :meth:`Store.score_frame`). ``human`` names
    the labels: a metadata key, or ``NAME=KEY1,KEY2`` for one label whose annotators
    are under several keys (:func:`~ragjudge.meta._labels.parse_human`); each gives its
    own block of rows. ``kind`` forces the labels' kind (else detected). ``by`` splits
    the samples by a metadata key, one block per group. ``exclude[metric]`` lists
    values left out before averaging trials (such as the "not sure" 0 of answer
    accuracy). ``extra`` names metadata keys holding other systems' scores to set
    against the labels as if they were metrics of the run. ``acceptable``,
    ``thresholds``, ``kappa_weights`` and ``folds`` shape the agreement figures and
    ``ppi`` adds the prediction-powered estimates (:mod:`ragjudge.meta._agreement`);
    ``ppi_labels`` keeps only that many labels, drawn at random (seeded), for them —
    what labelling that many samples would buy when every sample is labelled;
    ``meanings`` give each metric's direction and range. ``pairs`` names the
    metadata key of the pair a sample belongs to, for pairwise labels
    (:mod:`ragjudge.meta._pairs`).

    ``where`` keeps only the samples whose metadata match an expression
    (:mod:`ragjudge.meta._where`). ``level`` ``summary`` or ``system`` correlates
    within, or the means of, the groups of metadata key ``group``
    (:mod:`ragjudge.meta._levels`); the agreement figures stay at the sample level.
    ``positive`` names the positive class of text labels. ``exclude_human[label]``
    (or ``["*"]`` for every label) lists annotation values that mean "could not
    judge": they are dropped before the annotators are combined, and the samples left
    without a label are counted. An ``extra`` score whose values all lie between 0 and
    1 (a yes/no or a probability) is acceptable at 0.5 unless ``thresholds`` say
    otherwise.
    """
    labels = [parse_human(h) for h in ([human] if isinstance(human, str | HumanLabel) else human)]
    if not labels:
        raise ConfigError("name at least one human label")
    if combine not in COMBINE_RULES:
        raise ConfigError(f"combine must be one of {', '.join(COMBINE_RULES)}, got {combine!r}")
    if ppi and pairs is not None:
        raise ConfigError("PPI estimates a mean over samples; it does not apply to pairs")
    check_level(level, group)
    if level != "sample" and (pairs is not None or ppi):
        raise ConfigError(f"the {level} level does not combine with --pairs or --ppi")
    if frame.empty:
        raise AnalysisError("score frame holds no scores")
    if where is not None:
        frame = rows_matching(frame, where)
    metric_values = sample_means(frame, exclude)
    firsts = frame.drop_duplicates("sample_id").set_index("sample_id")
    for key in extra:
        if key in metric_values:
            raise AnalysisError(f"extra score {key!r} has the name of a metric of the run")
        metric_values[key] = _score_series(firsts, key)
    thresholds = _with_extra_thresholds(thresholds, metric_values, extra)
    if pairs is not None:
        keys = [k for label in labels for k in label.keys]
        firsts, metric_values = pair_frames(firsts, metric_values, pairs, keys)
    columns = {
        label.name: _label_column(
            firsts, label, combine, kind, positive, _left_out(exclude_human, label.name)
        )
        for label in labels
    }
    settings = AgreementSettings(
        acceptable=acceptable,
        thresholds=thresholds,
        kappa_weights=kappa_weights,
        folds=folds,
        pairs=pairs is not None,
        seed=seed,
        confidence=confidence,
        n_resamples=n_resamples,
    )
    ppi_columns = {}
    if ppi:
        ppi_columns = {n: _subsampled(c, ppi_labels, seed) for n, c in columns.items()}
    groups = None if group is None else firsts[metadata_column(firsts, group)].map(group_label)
    context = _Context(metric_values, dict(meanings or {}), settings, ppi_columns, level, groups)
    blocks = [
        _block(columns[label.name], group, ids, context)
        for label in labels
        for group, ids in _groups(firsts, by)
    ]
    return MetaTable(
        blocks=blocks,
        combine=combine,
        by=by,
        confidence=confidence,
        excluded_values={k: [float(v) for v in vs] for k, vs in (exclude or {}).items() if vs},
        settings=settings,
        pairs=pairs,
        ppi=ppi,
        where=where,
        level=level,
        group_key=group,
        positive=positive,
        excluded_human={k: [float(v) for v in vs] for k, vs in (exclude_human or {}).items()},
    )


@dataclass(frozen=True)
class _Context:
    metric_values: Mapping[str, pd.Series[float]]
    meanings: Mapping[str, ScoreMeaning]
    settings: AgreementSettings
    ppi_columns: Mapping[str, LabelColumn]
    """The labels PPI sees (by label name); empty without ``ppi``."""
    level: Level = "sample"
    groups: pd.Series[Any] | None = None
    """Each sample's group at the summary or system level (by sample id)."""


def _left_out(exclude_human: Mapping[str, Sequence[float]] | None, name: str) -> list[float]:
    """The values that mean "could not judge" for label ``name``."""
    if not exclude_human:
        return []
    return [*exclude_human.get(name, ()), *exclude_human.get("*", ())]


def _with_extra_thresholds(
    thresholds: Mapping[str, float] | None,
    metric_values: Mapping[str, pd.Series[float]],
    extra: Sequence[str],
) -> dict[str, float]:
    """``thresholds`` plus 0.5 for every extra score whose values lie within 0–1 (a
    yes/no or a probability), unless a threshold is given for it or for every metric."""
    found = dict(thresholds or {})
    if "*" in found:
        return found
    for key in extra:
        values = metric_values[key].dropna()
        if key not in found and len(values) and values.between(0.0, 1.0).all():
            found[key] = 0.5
    return found


def _subsampled(column: LabelColumn, keep: int | None, seed: int) -> LabelColumn:
    """``column`` with only ``keep`` of its labels (a seeded random draw), or as is."""
    labelled = column.combined.dropna().index
    if keep is None or keep >= len(labelled):
        return column
    if keep < 2:
        raise ConfigError(f"PPI needs at least 2 labels, not {keep}")
    chosen = np.random.default_rng(seed).choice(len(labelled), size=keep, replace=False)
    kept = column.combined.where(column.combined.index.isin(labelled[np.sort(chosen)]))
    return replace(column, combined=kept)


def _label_column(
    firsts: pd.DataFrame,
    label: HumanLabel,
    combine: Combine,
    kind: KindOption,
    positive: str | None,
    leave_out: Sequence[float],
) -> LabelColumn:
    """The label's values: every sample's values under each of its keys."""
    raw = pd.DataFrame(
        {key: firsts[metadata_column(firsts, key)] for key in label.keys}, index=firsts.index
    )
    return label_column(
        raw, label.name, combine=combine, kind=kind, positive=positive, leave_out=leave_out
    )


def _score_series(firsts: pd.DataFrame, key: str) -> pd.Series[float]:
    """Each sample's (mean) score under metadata ``key`` (NaN when it has none)."""
    column = metadata_column(firsts, key)
    values: dict[Any, float] = {}
    for sample_id, raw in firsts[column].items():
        try:
            score = human_score(raw)
        except ValueError as exc:
            raise AnalysisError(f"sample {sample_id!r}, metadata {key!r}: {exc}") from None
        values[sample_id] = float("nan") if score is None else score
    return pd.Series(values, index=firsts.index, dtype="float64")


def _groups(firsts: pd.DataFrame, by: str | None) -> list[tuple[str | None, pd.Index[Any]]]:
    """(group name, sample ids) pairs; one unnamed group of all samples without ``by``."""
    if by is None:
        return [(None, firsts.index)]
    labels = firsts[metadata_column(firsts, by)].map(group_label)
    return [(name, firsts.index[(labels == name).to_numpy()]) for name in group_names(labels)]


def _block(label: LabelColumn, group: str | None, ids: pd.Index[Any], ctx: _Context) -> MetaBlock:
    scored = label.combined.reindex(ids).dropna()
    rows = [
        _row(metric, per_sample, scored, label, ids, ctx)
        for metric, per_sample in ctx.metric_values.items()
    ]
    annotators, note = _annotator_agreement(label, ids, ctx.settings)
    no_majority = sum(1 for s in ids if label.annotations.get(s) and pd.isna(label.combined.get(s)))
    return MetaBlock(
        human=label.name,
        group=group,
        human_mean=float(scored.mean()) if len(scored) else None,
        n=len(scored),
        missing=len(ids) - len(scored),
        rows=rows,
        kind=label.kind,
        annotators=annotators,
        annotators_note=note,
        no_majority=no_majority,
        left_out=sum(1 for s in ids if s in label.left_out),
    )


def _row(
    metric: str,
    per_sample: pd.Series[float],
    scored: pd.Series[float],
    label: LabelColumn,
    ids: pd.Index[Any],
    ctx: _Context,
) -> MetaRow:
    paired = per_sample.reindex(scored.index).dropna()
    found = _correlations(paired, scored.loc[paired.index], ctx)
    meaning = ctx.meanings.get(metric)
    agreement = row_agreement(metric, paired, label, meaning, ctx.settings)
    ppi = None
    if label.name in ctx.ppi_columns:
        judged = per_sample.reindex(ids).dropna()
        ppi = row_ppi(metric, judged, ctx.ppi_columns[label.name], meaning, ctx.settings)
    return MetaRow(
        metric=metric,
        mean=float(paired.mean()) if len(paired) else None,
        n=len(paired),
        unpaired=len(scored) - len(paired),
        correlations=found,
        agreement=agreement,
        ppi=ppi,
    )


def _correlations(
    metric: pd.Series[float], human: pd.Series[float], ctx: _Context
) -> dict[str, Correlation]:
    """The correlations of paired per-sample values at the context's level."""
    settings = ctx.settings
    if ctx.level != "sample" and ctx.groups is not None:
        return level_correlations(
            metric,
            human,
            ctx.groups,
            ctx.level,
            seed=settings.seed,
            confidence=settings.confidence,
            n_resamples=settings.n_resamples,
        )
    return correlations(
        metric.to_numpy(dtype="float64"),
        human.to_numpy(dtype="float64"),
        seed=settings.seed,
        confidence=settings.confidence,
        n_resamples=settings.n_resamples,
    )


def _annotator_agreement(
    label: LabelColumn, ids: pd.Index[Any], settings: AgreementSettings
) -> tuple[RaterAgreement | None, str | None]:
    """Fleiss' kappa of the label's annotators on the samples ``ids``, or why not."""
    annotations = [label.annotations.get(s, ()) for s in ids]
    if not any(len(a) >= 2 for a in annotations):
        return None, None
    if label.kind == "numeric":
        return None, "numeric labels: Fleiss' kappa needs categories"
    try:
        found = fleiss_kappa(
            annotations,
            confidence=settings.confidence,
            n_resamples=settings.n_resamples,
            seed=settings.seed,
        )
    except ImportError as exc:
        return None, str(exc)
    return found, None if found else "no two samples with the same number of annotators"


def meta_for_run(
    store: Store,
    run_id: str,
    human: Sequence[str | HumanLabel],
    *,
    combine: Combine = "mean",
    by: str | None = None,
    seed: int = 0,
    extra: Sequence[str] = (),
    stored_labels: bool = False,
    **options: Any,
) -> MetaTable:
    """Meta-evaluate a stored run (a unique prefix of its id is enough) from its score
    frame, where the samples' metadata (human labels, ``by`` and ``extra`` keys) sits.
    ``options`` are :func:`meta_evaluate`'s (``kind``, ``acceptable``, ``thresholds``,
    ``ppi``, ``pairs`` …).

    Values the run's metrics leave out of their mean (from the meanings stored with
    the run, such as answer accuracy's 0) are left out here too, and the meanings give
    each metric's direction and default threshold. ``stored_labels`` adds the labels
    stored with the run as human labels (:mod:`ragjudge.meta._stored_labels`). Raises
    :class:`~ragjudge.store.RunNotFound` (a ``KeyError``) for an unknown run and
    :class:`~ragjudge.errors.AnalysisError` (a ``ValueError``) when the run has no
    scores or no sample carries a named key.
    """
    run = store.run(run_id)
    frame = store.score_frame(run.run_id)
    if frame.empty:
        raise AnalysisError(f"run {run.run_id} has no scores")
    humans = list(human)
    if stored_labels:
        frame, stored = with_stored_labels(frame, store.labels(run.run_id), run.run_id)
        humans += stored
    meanings = run_meanings(run)
    table = meta_evaluate(
        frame,
        humans,
        combine=combine,
        by=by,
        seed=seed,
        exclude=exclusions(meanings),
        extra=extra,
        meanings=meanings,
        **options,
    )
    return replace(table, run_id=run.run_id)

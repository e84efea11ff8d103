"""Agreement among the people who labelled a run, score by score, beside the judge's
agreement with them.

Among people: Cohen's kappa of every pair of annotators over the samples both labelled
(with the quadratic-weighted kappa for scale labels), Fleiss' kappa over the samples
every annotator labelled when there are three or more, and Krippendorff's alpha over
every sample at least two of them labelled (nominal for yes/no and choices, ordinal for
a scale, interval for the share of rubric items met), each with the number of samples
it is over. The judge against the people: each judge score of the labelled metric
against each person's labels and against their combined label (the mean; for yes/no
labels the majority, a tie left out): accuracy and Cohen's kappa with bootstrap
intervals for yes/no labels (the judge's verdict at its pass threshold), Spearman's
and Kendall's correlations for scale and rubric labels.
"""

from __future__ import annotations

import itertools
import statistics
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from ragjudge.analysis._meanings import run_meanings
from ragjudge.meta._agreement import metric_threshold
from ragjudge.schema import ScoreMeaning
from ragjudge.stats import Correlation, binary_agreement, correlations
from ragjudge.stats._agreement import Estimate, weighted_kappa
from ragjudge.stats._reliability import (
    AlphaLevel,
    ReliabilityAlpha,
    fleiss_kappa_of_counts,
    reliability_alpha,
)
from ragjudge.store._labels import Label
from ragjudge.store._store import Store

__all__ = [
    "COMBINED",
    "AnnotatorAgreement",
    "JudgeAgreement",
    "PairKappa",
    "annotator_agreement",
    "annotator_agreements",
]

COMBINED = "combined"
"""The name of the people's combined label in :class:`JudgeAgreement`."""

_ALPHA_LEVELS: Mapping[str, AlphaLevel] = {
    "yesno": "nominal",
    "choice": "nominal",
    "scale": "ordinal",
    "rubric": "interval",
}


@dataclass(frozen=True)
class PairKappa:
    """Cohen's kappa of two annotators over the ``n`` samples both labelled (the
    quadratic-weighted one too for scale labels)."""

    first: str
    second: str
    n: int
    kappa: float | None
    weighted_kappa: float | None = None


@dataclass(frozen=True)
class JudgeAgreement:
    """One judge score against one person's labels (or the combined label, ``COMBINED``)
    over ``n`` samples: accuracy and kappa for yes/no labels, correlations otherwise."""

    score: str
    human: str
    n: int
    threshold: float | None = None
    accuracy: Estimate | None = None
    kappa: Estimate | None = None
    spearman: Correlation | None = None
    kendall: Correlation | None = None


@dataclass(frozen=True)
class AnnotatorAgreement:
    """What the labels of one score say about the people and the judge."""

    metric: str
    kind: str
    annotators: dict[str, int]
    """Each annotator and how many samples they labelled."""
    pairs: list[PairKappa]
    fleiss_kappa: float | None
    fleiss_n: int
    fleiss_raters: int
    """How many people labelled each of the ``fleiss_n`` samples Fleiss' kappa is over."""
    alpha: ReliabilityAlpha | None
    judges: list[JudgeAgreement]

    def to_dict(self) -> dict[str, Any]:
        """The figures as plain JSON values."""
        return asdict(self)


@dataclass(frozen=True)
class _Settings:
    confidence: float
    n_resamples: int
    seed: int


def annotator_agreements(
    store: Store,
    run_id: str,
    *,
    metric: str | None = None,
    confidence: float = 0.95,
    n_resamples: int = 2000,
    seed: int = 0,
) -> list[AnnotatorAgreement]:
    """The agreement figures of every labelled score of run ``run_id`` (or of
    ``metric``), comment-only labels left out."""
    run = store.run(run_id)
    settings = _Settings(confidence, n_resamples, seed)
    labels = [x for x in store.labels(run.run_id, metric=metric) if x.kind != "comment"]
    meanings = run_meanings(run)
    found = []
    for name in sorted({x.metric for x in labels}):
        of_metric = [x for x in labels if x.metric == name]
        judged = {s: store.sample_means(run.run_id, s) for s in _judge_scores(name, meanings)}
        found.append(annotator_agreement(name, of_metric, judged, meanings, settings))
    return found


def annotator_agreement(
    metric: str,
    labels: Sequence[Label],
    judged: Mapping[str, Mapping[str, float]],
    meanings: Mapping[str, ScoreMeaning],
    settings: _Settings | None = None,
) -> AnnotatorAgreement:
    """The figures of one score's ``labels``; ``judged`` holds each judge score's
    per-sample values."""
    settings = settings or _Settings(0.95, 2000, 0)
    kind = _kind(labels)
    table = _label_table(labels, kind)
    people = sorted(table)
    fleiss, fleiss_n, fleiss_raters = _fleiss(table, people)
    return AnnotatorAgreement(
        metric=metric,
        kind=kind,
        annotators={person: len(table[person]) for person in people},
        pairs=[_pair(table, a, b, kind) for a, b in itertools.combinations(people, 2)],
        fleiss_kappa=fleiss,
        fleiss_n=fleiss_n,
        fleiss_raters=fleiss_raters,
        alpha=_alpha(table, people, kind, settings),
        judges=[
            agreement
            for score, values in judged.items()
            for agreement in _judge_rows(score, values, table, kind, meanings.get(score), settings)
        ],
    )


def people_agreement(labels: Sequence[Label]) -> dict[str, Any]:
    """Agreement among the people who labelled one score, cheap enough to show after
    every label: Cohen's kappa of each pair over the samples both labelled, and Fleiss'
    kappa when three or more labelled the same samples (comment-only labels left out)."""
    labels = [x for x in labels if x.kind != "comment"]
    kind = _kind(labels)
    table = _label_table(labels, kind)
    people = sorted(table)
    fleiss, fleiss_n, raters = _fleiss(table, people)
    pairs = [_pair(table, a, b, kind) for a, b in itertools.combinations(people, 2)]
    return {
        "pairs": [asdict(pair) for pair in pairs if pair.n],
        "fleiss_kappa": fleiss,
        "fleiss_n": fleiss_n,
        "fleiss_raters": raters,
    }


def _kind(labels: Sequence[Label]) -> str:
    kinds = {x.kind for x in labels}
    return kinds.pop() if len(kinds) == 1 else "mixed"


def _label_table(labels: Sequence[Label], kind: str) -> dict[str, dict[str, float]]:
    """annotator → sample → the label as a number (a choice as its rank among the
    choices named)."""
    choices = sorted({str(x.value) for x in labels if x.kind == "choice"})
    table: dict[str, dict[str, float]] = {}
    for label in labels:
        number = label.number()
        if label.kind == "choice":
            number = float(choices.index(str(label.value)))
        if number is not None and (kind != "mixed" or label.kind != "choice"):
            table.setdefault(label.annotator, {})[label.request_id] = number
    return table


def _pair(table: Mapping[str, Mapping[str, float]], a: str, b: str, kind: str) -> PairKappa:
    common = sorted(set(table[a]) & set(table[b]))
    first = [table[a][s] for s in common]
    second = [table[b][s] for s in common]
    if not common:
        return PairKappa(a, b, 0, None)
    weighted = weighted_kappa(first, second, "quadratic") if kind == "scale" else None
    return PairKappa(a, b, len(common), weighted_kappa(first, second, "none"), weighted)


def _fleiss(
    table: Mapping[str, Mapping[str, float]], people: Sequence[str]
) -> tuple[float | None, int, int]:
    """Fleiss' kappa over the samples labelled by the same number of people (the
    commonest number, three or more: every person when all labelled every sample), the
    number of those samples and of people on each."""
    ratings: dict[str, list[float]] = {}
    for person in people:
        for sample, value in table[person].items():
            ratings.setdefault(sample, []).append(value)
    sizes = Counter(len(values) for values in ratings.values() if len(values) >= 3)
    if not sizes:
        return None, 0, 0
    raters = max(sizes, key=lambda size: (sizes[size], size))
    kept = [values for values in ratings.values() if len(values) == raters]
    levels = sorted({v for values in kept for v in values})
    counts = [[values.count(level) for level in levels] for values in kept]
    return fleiss_kappa_of_counts(counts), len(kept), raters


def _alpha(
    table: Mapping[str, Mapping[str, float]],
    people: Sequence[str],
    kind: str,
    settings: _Settings,
) -> ReliabilityAlpha | None:
    if len(people) < 2:
        return None
    samples = sorted({s for p in people for s in table[p]})
    rows = [[table[p].get(s) for p in people] for s in samples]
    found = reliability_alpha(
        rows,
        _ALPHA_LEVELS.get(kind, "interval"),
        confidence=settings.confidence,
        n_resamples=settings.n_resamples,
        seed=settings.seed,
    )
    return found if found.units else None


def _judge_scores(metric: str, meanings: Mapping[str, ScoreMeaning]) -> list[str]:
    """The run's scores a label of ``metric`` speaks of: the score itself and the same
    metric under each judge."""
    if not metric:
        return []
    return sorted(n for n in meanings if n == metric or n.split("@", 1)[0] == metric)


def _combined(table: Mapping[str, Mapping[str, float]], kind: str) -> dict[str, float]:
    """Each sample's combined label: the mean, or for yes/no the majority (ties left out)."""
    values: dict[str, list[float]] = {}
    for person_labels in table.values():
        for sample, value in person_labels.items():
            values.setdefault(sample, []).append(value)
    combined = {s: statistics.fmean(v) for s, v in values.items()}
    if kind == "yesno":
        return {s: float(m > 0.5) for s, m in combined.items() if m != 0.5}
    return combined


def _judge_rows(
    score: str,
    values: Mapping[str, float],
    table: Mapping[str, Mapping[str, float]],
    kind: str,
    meaning: ScoreMeaning | None,
    settings: _Settings,
) -> list[JudgeAgreement]:
    if kind not in ("yesno", "scale", "rubric"):
        return []
    humans = {person: dict(table[person]) for person in sorted(table)}
    if len(humans) > 1:
        humans[COMBINED] = _combined(table, kind)
    rows = []
    for human, labels in humans.items():
        common = sorted(set(labels) & set(values))
        judge = [values[s] for s in common]
        people = [labels[s] for s in common]
        rows.append(_judge_row(score, human, judge, people, kind, meaning, settings))
    return rows


def _judge_row(
    score: str,
    human: str,
    judge: Sequence[float],
    people: Sequence[float],
    kind: str,
    meaning: ScoreMeaning | None,
    settings: _Settings,
) -> JudgeAgreement:
    n = len(people)
    if n < 2:
        return JudgeAgreement(score, human, n)
    if kind == "yesno":
        threshold = _threshold(score, meaning)
        found = binary_agreement(
            judge,
            people,
            threshold=threshold,
            higher_is_better=meaning is None or not meaning.lower_is_better,
            confidence=settings.confidence,
            n_resamples=settings.n_resamples,
            seed=settings.seed,
        )
        return JudgeAgreement(score, human, n, threshold, found.accuracy, found.kappa)
    found_r = correlations(
        judge,
        people,
        n_resamples=settings.n_resamples,
        seed=settings.seed,
        confidence=settings.confidence,
    )
    return JudgeAgreement(
        score, human, n, spearman=found_r.get("spearman"), kendall=found_r.get("kendall")
    )


def _threshold(score: str, meaning: ScoreMeaning | None) -> float | None:
    if meaning is not None and meaning.threshold is not None:
        return meaning.threshold
    return metric_threshold(score, meaning, {})

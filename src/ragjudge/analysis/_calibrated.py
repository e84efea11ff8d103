"""A score's mean calibrated to people's labels: prediction-powered estimates from the
labels stored for a run (:mod:`ragjudge.store._labels`) and the judge's value on every
sample (:func:`ragjudge.stats.ppi_estimate`).

Which labels a score takes: those of its name (``faithfulness@big``) and those of its
metric without the judge (``faithfulness``). Only labels drawn at random (``random``,
``imported``) enter the estimate: the estimate is unbiased only for a random draw, so the
labels the queue put first because they looked informative (``targeted``) are counted
and left out. Several people's labels of one sample are averaged.

What is estimated: for a score with a pass (a yes/no score, or one with a threshold)
labelled yes/no, the share of samples people accept, with the judge's pass as the
prediction; otherwise the mean of the labels' numbers (a scale's value, the share of
rubric items met), with the judge's value as the prediction. PPI stays unbiased when the
two scales differ; only its interval widens. The intervals take the few-labels
correction of :mod:`ragjudge.stats._ppi` (the labels' range is 0–1 for yes/no and rubric
labels, else the range people used).
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from ragjudge.schema import ScoreMeaning
from ragjudge.stats import PPIEstimate, ppi_estimate
from ragjudge.stats._ppi import MeanEstimate
from ragjudge.store import Label, Store

TUNED_FROM = 100
"""The random labels from which the power-tuned estimate is the headline one. Its weight
of the judge is tuned on the same labels, which the interval does not allow for: with
fewer labels it covers the truth too rarely (simulated on real human labels: 90% at 25
labels, 92.5% at 50, 93.4% at 100, where classic PPI's stays at 94–95%)."""

__all__ = ["CalibratedEstimate", "calibrated_estimate", "calibrated_estimates", "labels_of"]


@dataclass(frozen=True)
class CalibratedEstimate:
    """A score's estimate calibrated to people's labels.

    ``target`` is ``rate`` (the share people accept) or ``mean`` (the labels' mean);
    ``estimate`` holds the judge-only, humans-only, PPI and power-tuned PPI figures;
    ``used`` labelled samples entered it, ``targeted`` labelled samples were left out
    (not a random draw), ``unjudged`` labelled samples have no value of the score."""

    score: str
    target: Literal["rate", "mean"]
    estimate: PPIEstimate
    used: int
    targeted: int
    unjudged: int
    annotators: int

    @property
    def _tuned_counts(self) -> bool:
        return self.estimate.tuned.value is not None and self.used >= TUNED_FROM

    @property
    def best(self) -> MeanEstimate:
        """The power-tuned estimate from :data:`TUNED_FROM` random labels on, else
        classic PPI."""
        return self.estimate.tuned if self._tuned_counts else self.estimate.ppi

    @property
    def worth(self) -> float | None:
        """How many labels alone would give an interval as narrow as :attr:`best`'s."""
        human, best = self.estimate.human.width, self.best.width
        if not human or not best:
            return None
        return self.used * (human / best) ** 2

    @property
    def method(self) -> str:
        """Which estimate :attr:`best` is: ``PPI++`` (power-tuned) or ``PPI``."""
        return "PPI++" if self._tuned_counts else "PPI"

    def to_dict(self) -> dict[str, Any]:
        """JSON-able form: the best estimate with its interval, the judge-only and
        humans-only figures, the labels used and left out, and what they are worth."""
        best, judge, human = self.best, self.estimate.judge, self.estimate.human
        return {
            "score": self.score,
            "target": self.target,
            "method": self.method,
            "value": best.value,
            "ci_low": None if best.ci is None else best.ci.low,
            "ci_high": None if best.ci is None else best.ci.high,
            "std_error": best.std_error,
            "judge_mean": judge.value,
            "humans_only": human.value,
            "labels_used": self.used,
            "targeted_left_out": self.targeted,
            "unjudged": self.unjudged,
            "annotators": self.annotators,
            "samples": self.estimate.total,
            "worth_labels": self.worth,
            "tuned_lambda": self.estimate.tuned_lam,
        }


def labels_of(labels: Iterable[Label], score: str, meaning: ScoreMeaning | None) -> list[Label]:
    """The labels that judge ``score``: of its name or of its metric without the judge."""
    names = {score}
    if meaning is not None and meaning.metric:
        names.add(meaning.metric)
    return [label for label in labels if label.metric in names and label.number() is not None]


def _target(labels: list[Label], meaning: ScoreMeaning | None) -> Literal["rate", "mean"]:
    yes_no = all(label.kind == "yesno" for label in labels)
    return "rate" if yes_no and meaning is not None and meaning.has_pass else "mean"


def _prediction(value: float, target: str, meaning: ScoreMeaning | None) -> float:
    if target == "rate" and meaning is not None:
        return 1.0 if meaning.passed(value) else 0.0
    return value


def _human_means(labels: Iterable[Label]) -> dict[str, float]:
    numbers: dict[str, list[float]] = defaultdict(list)
    for label in labels:
        number = label.number()
        if number is not None and math.isfinite(number):
            numbers[label.request_id].append(number)
    return {request_id: sum(values) / len(values) for request_id, values in numbers.items()}


def _label_range(labels: list[Label]) -> tuple[float, float]:
    """The labels' possible range: 0–1 for yes/no and rubric labels, else the range
    the people used (every label of the score, targeted ones included)."""
    if all(label.kind in ("yesno", "rubric") for label in labels):
        return (0.0, 1.0)
    numbers = [n for n in (label.number() for label in labels) if n is not None]
    return (min(numbers), max(numbers))


def _judge_range(target: str, meaning: ScoreMeaning | None) -> tuple[float, float] | None:
    if target == "rate":
        return (0.0, 1.0)
    if meaning is not None and meaning.low is not None and meaning.high is not None:
        return (meaning.low, meaning.high)
    return None


def calibrated_estimate(
    judged: Mapping[str, float],
    labels: list[Label],
    score: str,
    meaning: ScoreMeaning | None,
    *,
    confidence: float = 0.95,
) -> CalibratedEstimate | None:
    """The calibrated estimate of ``score`` from its per-sample values ``judged``
    (request id → value) and the run's ``labels`` (any score's; those of ``score`` are
    picked); None when no label judges it."""
    mine = labels_of(labels, score, meaning)
    if not mine or not judged:
        return None
    target = _target(mine, meaning)
    random_draw = [label for label in mine if label.drawn != "targeted"]
    humans = _human_means(random_draw)
    targeted = {label.request_id for label in mine} - set(humans)
    ids = list(judged)
    f = np.array([_prediction(judged[i], target, meaning) for i in ids], dtype=np.float64)
    y = np.array([humans.get(i, math.nan) for i in ids], dtype=np.float64)
    return CalibratedEstimate(
        score=score,
        target=target,
        estimate=ppi_estimate(
            f,
            y,
            confidence=confidence,
            label_range=_label_range(mine),
            judge_range=_judge_range(target, meaning),
        ),
        used=int(np.isfinite(y).sum()),
        targeted=len(targeted),
        unjudged=len(set(humans) - set(judged)),
        annotators=len({label.annotator for label in mine}),
    )


def calibrated_estimates(
    store: Store,
    run_id: str,
    meanings: Mapping[str, ScoreMeaning],
    *,
    confidence: float = 0.95,
) -> dict[str, CalibratedEstimate]:
    """Every score of run ``run_id`` that people labelled, with its calibrated estimate."""
    labels = store.labels(run_id)
    if not labels:
        return {}
    found = {}
    for score, meaning in meanings.items():
        if not labels_of(labels, score, meaning):
            continue
        estimate = calibrated_estimate(
            store.sample_means(run_id, score), labels, score, meaning, confidence=confidence
        )
        if estimate is not None:
            found[score] = estimate
    return found

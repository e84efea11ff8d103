"""Whether each sample passed each score's threshold, and the pass rate per score.

A score passes where its meaning says so (:meth:`ScoreMeaning.passed`): at or beyond
its ``threshold`` in the better direction, or at its better value for a yes/no score
without one. With several trials a sample passes on the mean of its scored trials. A
sample whose score errored, did not apply or is a value the mean leaves out has no pass
(None): it is counted as unscored, never as a fail, and the pass rate is the share of
passes among the samples that passed or failed.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from statistics import fmean
from typing import Any

from ragjudge.analysis._run_values import NO_PASS, metric_values
from ragjudge.schema import Score, ScoreMeaning
from ragjudge.stats._bootstrap import Interval, bootstrap_ci
from ragjudge.store._store import Store

__all__ = [
    "PassRate",
    "SamplePasses",
    "pass_condition",
    "pass_rates",
    "run_passes",
    "sample_passes",
]

SamplePasses = dict[str, dict[str, bool | None]]
"""Score name → request id → whether that sample passed (None: no pass)."""


def pass_condition(threshold: float | None, direction: str) -> str:
    """When a sample passes, in words: ``≥ 0.8``, ``≤ 2``, or ``yes`` (a yes/no score
    without a threshold)."""
    if threshold is None:
        return "yes"
    return f"{'≤' if direction == 'lower' else '≥'} {threshold:g}"


@dataclass(frozen=True)
class PassRate:
    """How many samples passed one score's threshold, failed it or were not scored."""

    metric: str
    threshold: float | None
    """The declared threshold (None: a yes/no score passing at its better value)."""
    direction: str
    passed: int
    failed: int
    unscored: int
    """Samples whose score errored, did not apply or was left out of the mean."""
    ci: Interval | None
    """The 95% bootstrap interval of the pass rate (None with fewer than two samples)."""

    @property
    def condition(self) -> str:
        """When a sample passes, in words (see :func:`pass_condition`)."""
        return pass_condition(self.threshold, self.direction)

    @property
    def rate(self) -> float | None:
        """The share of passes among the samples that passed or failed."""
        judged = self.passed + self.failed
        return self.passed / judged if judged else None

    def to_dict(self) -> dict[str, Any]:
        """JSON-able form."""
        return {
            "metric": self.metric,
            "threshold": self.threshold,
            "direction": self.direction,
            "passed": self.passed,
            "failed": self.failed,
            "unscored": self.unscored,
            "rate": self.rate,
            "ci95": None if self.ci is None else [self.ci.low, self.ci.high],
        }


def sample_passes(
    scores: Iterable[tuple[str, int, Score]], meanings: Mapping[str, ScoreMeaning]
) -> SamplePasses:
    """Per score that has a pass, whether each sample passed, in sample order."""
    values: dict[str, dict[str, list[float]]] = {}
    for request_id, _trial, score in scores:
        meaning = meanings.get(score.metric)
        if meaning is None or not meaning.has_pass:
            continue
        kept = values.setdefault(score.metric, {}).setdefault(request_id, [])
        if score.value is not None and score.value not in meaning.excluded:
            kept.append(score.value)
    return {
        metric: {
            request_id: meanings[metric].passed(fmean(found)) if found else None
            for request_id, found in by_sample.items()
        }
        for metric, by_sample in values.items()
    }


def pass_rates(
    passes: Mapping[str, Mapping[str, bool | None]],
    meanings: Mapping[str, ScoreMeaning],
    *,
    seed: int = 0,
) -> list[PassRate]:
    """The pass rate of every score in ``passes``, with its bootstrap interval."""
    rates = []
    for metric, by_sample in passes.items():
        meaning = meanings[metric]
        outcomes = [1.0 if p else 0.0 for p in by_sample.values() if p is not None]
        rates.append(
            PassRate(
                metric=metric,
                threshold=meaning.threshold,
                direction=meaning.direction,
                passed=sum(1 for p in by_sample.values() if p is True),
                failed=sum(1 for p in by_sample.values() if p is False),
                unscored=sum(1 for p in by_sample.values() if p is None),
                ci=bootstrap_ci(outcomes, seed=seed),
            )
        )
    return rates


def run_passes(store: Store, run_id: str, meanings: Mapping[str, ScoreMeaning]) -> SamplePasses:
    """:func:`sample_passes` of a stored run (nothing is read when no score has a pass)."""
    if not any(m.has_pass for m in meanings.values()):
        return {}
    # Compact columns, not a Score per row: the same passes at a fraction of the memory.
    found = metric_values(store.score_columns(run_id, skipped=True), {}, meanings)
    ids = store.request_ids(run_id)
    return {
        metric: {
            str(ids[sample]): None if passed == NO_PASS else bool(passed)
            for sample, passed in zip(values.samples.tolist(), values.passes.tolist(), strict=True)
        }
        for metric, values in found.items()
        if values.passes is not None
    }

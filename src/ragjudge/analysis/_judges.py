"""Several judges' results in one run, grouped by the metric they judged.

A run with several named judges stores one score per metric and judge
(``faithfulness@mini``, ``faithfulness@big``: the meaning names the judge and the
metric) and, for an ensemble, a score under the metric's own name that combines them
(its details hold each judge's verdict). Per metric this gives each judge's mean with
its interval (from the run's summary) and how well the judges agree:

- **Krippendorff's alpha** over units (one unit: a sample's output in one trial, which
  every judge saw), at the level the score's meaning implies: nominal for yes/no
  scores, interval for every other scale. Values a mean leaves out (a "not sure") are
  left out here too. 1 is perfect agreement, 0 what chance gives.
- **Cohen's kappa** of every pair of judges, for yes/no scores.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

import numpy as np

from ragjudge.analysis._judge_names import (
    expand_to_judges,
    grouped_names,
    judge_labels,
    run_has_judges,
)
from ragjudge.schema import ScoreMeaning
from ragjudge.stats import (
    AlphaLevel,
    MetricSummary,
    ReliabilityAlpha,
    cohen_kappa,
    reliability_alpha,
)
from ragjudge.store._store import Store

__all__ = [
    "JudgeAgreement",
    "JudgeGroup",
    "JudgeScore",
    "PairKappa",
    "expand_to_judges",
    "grouped_names",
    "judge_groups",
    "judge_labels",
    "run_has_judges",
]

_Verdicts = dict[str, dict[tuple[str, int], float]]
"""Per judge, its value for each (sample, trial)."""


@dataclass(frozen=True)
class JudgeScore:
    """One judge's score of a metric: the stored score name and its summary."""

    judge: str
    score: str
    summary: MetricSummary | None

    def to_dict(self) -> dict[str, Any]:
        """The score's name, mean, 95% interval and n (``ragjudge show --json``)."""
        s = self.summary
        return {
            "score": self.score,
            "mean": None if s is None else s.mean,
            "ci95": None if s is None or s.ci is None else [s.ci.low, s.ci.high],
            "n": 0 if s is None else s.n,
        }


@dataclass(frozen=True)
class PairKappa:
    """Cohen's kappa of two judges' yes/no verdicts over ``n`` units both judged."""

    judge_a: str
    judge_b: str
    kappa: float | None
    n: int


@dataclass(frozen=True)
class JudgeAgreement:
    """How well a metric's judges agree: alpha (with interval, units and values) and,
    for yes/no scores, Cohen's kappa of every pair."""

    judges: tuple[str, ...]
    alpha: ReliabilityAlpha
    pairs: tuple[PairKappa, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """The JSON form (``ragjudge show --json``)."""
        return {
            "judges": list(self.judges),
            "level": self.alpha.level,
            "alpha": self.alpha.alpha.to_dict(),
            "units": self.alpha.units,
            "values": self.alpha.values,
            "pairs": [
                {"judges": [p.judge_a, p.judge_b], "kappa": p.kappa, "n": p.n} for p in self.pairs
            ],
        }


@dataclass(frozen=True)
class JudgeGroup:
    """A metric judged by several judges: each judge's score, the ensemble score
    combining them (if the run stored one) and the judges' agreement (None with fewer
    than two judges)."""

    metric: str
    judges: tuple[JudgeScore, ...]
    ensemble: str | None = None
    agreement: JudgeAgreement | None = None
    ensemble_summary: MetricSummary | None = field(default=None, compare=False)

    def to_dict(self) -> dict[str, Any]:
        """The JSON form (``ragjudge show --json``)."""
        return {
            "metric": self.metric,
            "judges": {j.judge: j.to_dict() for j in self.judges},
            "ensemble": self.ensemble,
            "agreement": None if self.agreement is None else self.agreement.to_dict(),
        }


def judge_groups(
    store: Store,
    run_id: str,
    meanings: Mapping[str, ScoreMeaning],
    summaries: Sequence[MetricSummary],
    *,
    seed: int = 0,
    n_resamples: int = 2000,
) -> list[JudgeGroup]:
    """One group per metric with a judge or an ensemble, in the order the run's
    summary lists their scores."""
    by_name = {s.metric: s for s in summaries}
    members = _members(meanings, order=[s.metric for s in summaries])
    if not members:
        return []
    frame = store.score_frame(run_id)
    details = _ensemble_verdicts(store, run_id, meanings, members)
    groups = []
    for metric, (scores, ensemble) in members.items():
        judges = tuple(
            JudgeScore(judge=str(meanings[name].judge), score=name, summary=by_name.get(name))
            for name in scores
        )
        verdicts = _stored_verdicts(frame, scores, meanings) if len(scores) >= 2 else {}
        if len(verdicts) < 2 and ensemble is not None:
            verdicts = details.get(ensemble, {})
        meaning = meanings[scores[0] if scores else str(ensemble)]
        agreement = (
            _agreement(verdicts, meaning, seed=seed, n_resamples=n_resamples)
            if len(verdicts) >= 2
            else None
        )
        ensemble_summary = None if ensemble is None else by_name.get(ensemble)
        groups.append(JudgeGroup(metric, judges, ensemble, agreement, ensemble_summary))
    return groups


def _members(
    meanings: Mapping[str, ScoreMeaning], *, order: Sequence[str]
) -> dict[str, tuple[list[str], str | None]]:
    """Per metric: its judges' score names and its ensemble score (if any)."""
    rank = {name: i for i, name in enumerate(order)}
    members: dict[str, tuple[list[str], str | None]] = {}
    for name in sorted(meanings, key=lambda n: (rank.get(n, len(rank)), n)):
        meaning = meanings[name]
        metric = meaning.metric or name
        if meaning.judge is not None and not meaning.ensemble:
            members.setdefault(metric, ([], None))[0].append(name)
        elif meaning.ensemble:
            scores, _ = members.get(metric, ([], None))
            members[metric] = (scores, name)
    return members


def _stored_verdicts(
    frame: Any, scores: Sequence[str], meanings: Mapping[str, ScoreMeaning]
) -> _Verdicts:
    """Each judge's values per (sample, trial), read from its own scores."""
    verdicts: _Verdicts = {}
    if not len(frame):
        return verdicts
    for name in scores:
        rows = frame[frame["metric"] == name]
        values = rows["value"].to_numpy(dtype=np.float64)
        kept = np.isfinite(values) & ~np.isin(values, meanings[name].excluded)
        keys = zip(rows["sample_id"][kept], rows["trial"][kept], strict=True)
        verdicts[str(meanings[name].judge)] = dict(
            zip(((str(s), int(t)) for s, t in keys), values[kept].tolist(), strict=True)
        )
    return verdicts


def _ensemble_verdicts(
    store: Store,
    run_id: str,
    meanings: Mapping[str, ScoreMeaning],
    members: Mapping[str, tuple[list[str], str | None]],
) -> dict[str, _Verdicts]:
    """Per ensemble score whose judges have no scores of their own: each judge's
    verdicts as the ensemble's details hold them (``details["verdicts"]``)."""
    wanted = {e for scores, e in members.values() if e is not None and len(scores) < 2}
    if not wanted:
        return {}
    found: dict[str, _Verdicts] = {name: {} for name in wanted}
    for request_id, trial, score in store.scores(run_id):
        if score.metric not in wanted or score.skipped:
            continue
        excluded = meanings[score.metric].excluded
        for judge, raw in (score.details or {}).get("verdicts", {}).items():
            value = _number(raw)
            if value is not None and value not in excluded:
                found[score.metric].setdefault(str(judge), {})[(request_id, trial)] = value
    return found


def _number(raw: Any) -> float | None:
    """A stored verdict as a number (yes/no as 1/0); None for anything else."""
    if isinstance(raw, (bool, int, float)) and np.isfinite(float(raw)):
        return float(raw)
    return None


def level_of(meaning: ScoreMeaning) -> AlphaLevel:
    """The level of measurement of a score: nominal for yes/no, interval otherwise."""
    return "nominal" if meaning.binary else "interval"


def _agreement(
    verdicts: _Verdicts, meaning: ScoreMeaning, *, seed: int, n_resamples: int
) -> JudgeAgreement:
    judges = tuple(verdicts)
    units = sorted({key for values in verdicts.values() for key in values})
    matrix = np.array(
        [[verdicts[j].get(unit, np.nan) for j in judges] for unit in units], dtype=np.float64
    ).reshape(len(units), len(judges))
    level = level_of(meaning)
    alpha = reliability_alpha(matrix, level, n_resamples=n_resamples, seed=seed)
    pairs = _pair_kappas(judges, matrix) if meaning.binary else ()
    return JudgeAgreement(judges=judges, alpha=alpha, pairs=pairs)


def _pair_kappas(judges: tuple[str, ...], matrix: np.ndarray[Any, Any]) -> tuple[PairKappa, ...]:
    found = []
    for (i, a), (j, b) in combinations(enumerate(judges), 2):
        both = np.isfinite(matrix[:, i]) & np.isfinite(matrix[:, j])
        n = int(both.sum())
        kappa = cohen_kappa(matrix[both, i], matrix[both, j]) if n else None
        found.append(PairKappa(a, b, kappa, n))
    return tuple(found)

"""The reproducibility of a stored run over its trials, sample by sample: per sample and
score, the distribution of the values over the trials (``5: 50/50``, the value 5 in 50
of 50 trials), the share of trials equal to the commonest value and the standard deviation;
for rubric scores, per item, the share of trials that agree with the majority
``criteria_met`` ("all agree" at 100%)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ragjudge.errors import AnalysisError
from ragjudge.schema import Score
from ragjudge.stats import TrialValues, VerdictAgreement, trial_values, verdict_agreement
from ragjudge.store._store import Store

__all__ = ["ItemRepro", "ReproTable", "SampleRepro", "repro_for_run", "repro_of"]


@dataclass(frozen=True)
class ItemRepro:
    """One rubric item of one sample over the trials."""

    criterion: str
    points: float
    agreement: VerdictAgreement

    def to_dict(self) -> dict[str, Any]:
        """JSON-able form."""
        a = self.agreement
        return {
            "criterion": self.criterion,
            "points": self.points,
            "trials": a.n,
            "met": a.yes,
            "majority": a.majority,
            "agreement": a.agreement,
            "all_agree": a.all_agree,
        }


@dataclass(frozen=True)
class SampleRepro:
    """One score of one sample over the trials; ``values`` is None when no trial gave
    a value (every trial failed or did not apply)."""

    request_id: str
    metric: str
    values: TrialValues | None
    errors: int
    items: list[ItemRepro] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """JSON-able form (the distribution as ``[[value, count], ...]``)."""
        v = self.values
        return {
            "request_id": self.request_id,
            "metric": self.metric,
            "trials": 0 if v is None else v.n,
            "errors": self.errors,
            "distribution": [] if v is None else [[k, c] for k, c in v.distribution.items()],
            "mean": None if v is None else v.mean,
            "mode": None if v is None else v.mode,
            "mode_share": None if v is None else v.mode_share,
            "sd": None if v is None else v.sd,
            "items": [i.to_dict() for i in self.items],
            "items_all_agree": None
            if not self.items
            else all(i.agreement.all_agree for i in self.items),
        }


@dataclass(frozen=True)
class ReproTable:
    """Every sample's reproducibility in a run."""

    run_id: str
    trials: int
    rows: list[SampleRepro]

    def to_dict(self) -> dict[str, Any]:
        """JSON-able form."""
        return {
            "run_id": self.run_id,
            "trials": self.trials,
            "rows": [r.to_dict() for r in self.rows],
        }


def repro_for_run(store: Store, run_id: str, *, metrics: Sequence[str] | None = None) -> ReproTable:
    """The reproducibility table of a stored run (``metrics``: only these scores)."""
    run = store.run(run_id)
    scores = [(rid, s) for rid, _, s in store.scores(run.run_id)]
    if metrics:
        unknown = sorted(set(metrics) - {s.metric for _, s in scores})
        if unknown:
            raise AnalysisError(f"run {run.run_id} has no score named {', '.join(unknown)}")
        scores = [(rid, s) for rid, s in scores if s.metric in metrics]
    return ReproTable(run.run_id, run.trials, repro_of(scores))


def repro_of(scores: Iterable[tuple[str, Score]]) -> list[SampleRepro]:
    """Per (sample, score name), in the order first seen, over all the trials given."""
    grouped: dict[tuple[str, str], list[Score]] = defaultdict(list)
    for request_id, score in scores:
        grouped[(request_id, score.metric)].append(score)
    return [_sample_repro(rid, name, found) for (rid, name), found in grouped.items()]


def _sample_repro(request_id: str, metric: str, scores: list[Score]) -> SampleRepro:
    values = [s.value for s in scores if s.value is not None]
    errors = sum(s.error is not None for s in scores)
    return SampleRepro(
        request_id=request_id,
        metric=metric,
        values=trial_values(values) if values else None,
        errors=errors,
        items=_items(scores),
    )


def _items(scores: list[Score]) -> list[ItemRepro]:
    """Per rubric item (matched by position and criterion), the trials' agreement."""
    verdicts: dict[tuple[int, str], list[bool]] = defaultdict(list)
    points: dict[tuple[int, str], float] = {}
    for score in scores:
        if score.value is None:
            continue
        for index, item in enumerate(score.details.get("result_by_rubrics") or []):
            key = (index, str(item.get("criterion")))
            verdicts[key].append(bool(item.get("criteria_met")))
            points[key] = float(item.get("points") or 0.0)
    return [
        ItemRepro(criterion, points[(i, criterion)], verdict_agreement(found))
        for (i, criterion), found in sorted(verdicts.items())
    ]

"""The stability of a stored run's metrics over its trials (the RAGAS-style stability
rating calls each RAGAS metric's stability low / medium / high from experience; this
measures it): per metric
the within-sample spread, the share of samples whose value flips, ICC(1,1) with a
bootstrap interval, and the correlation of a sample's spread with its size."""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from typing import Any

from ragjudge.errors import AnalysisError
from ragjudge.stats import Stability, stability_of
from ragjudge.store._store import Store

__all__ = ["SEED_RATINGS", "StabilityRow", "StabilityTable", "stability_for_run"]

SEED_RATINGS: dict[str, str] = {
    "faithfulness": "low",
    "answer_relevancy": "medium",
    "context_relevancy": "low",
    "context_recall": "low",
    "context_precision": "low",
    "context_utilization": "medium",
    "answer_similarity": "high",
    "answer_correctness": "medium",
}
"""The RAGAS-style stability rating of each RAGAS metric: how stable it is from
experience, as the RAGAS article cited in ``docs/validation.md`` rates it."""


@dataclass(frozen=True)
class StabilityRow:
    """One score's measured stability, and the RAGAS-style stability rating of its
    metric (if any)."""

    stability: Stability
    kind: str | None
    seed_rating: str | None

    def to_dict(self) -> dict[str, Any]:
        """JSON-able form."""
        s = self.stability
        return {
            "metric": s.metric,
            "kind": self.kind,
            "seed_rating": self.seed_rating,
            "samples": s.samples,
            "trials": s.trials,
            "within_sd": s.within_sd,
            "within_var": s.within_var,
            "flips": s.flips,
            "icc": s.icc,
            "icc_ci": None if s.icc_ci is None else [s.icc_ci.low, s.icc_ci.high],
            "size_spearman": s.size_spearman,
            "size_n": s.size_n,
        }


@dataclass(frozen=True)
class StabilityTable:
    """The stability of every score of a run."""

    run_id: str
    trials: int
    rows: list[StabilityRow]

    def to_dict(self) -> dict[str, Any]:
        """JSON-able form."""
        return {
            "run_id": self.run_id,
            "trials": self.trials,
            "metrics": [r.to_dict() for r in self.rows],
        }


def stability_for_run(store: Store, run_id: str, *, seed: int | None = None) -> StabilityTable:
    """The stability table of a stored run (a unique prefix of its id will do). Sizes
    come from each score's ``details["size"]`` (statements, chunks, sentences)."""
    run = store.run(run_id)
    frame = store.score_frame(run.run_id)
    if frame.empty:
        raise AnalysisError(f"run {run.run_id} has no scores")
    seed = int(run.config.get("seed", 0)) if seed is None else seed
    kinds = _kinds(run.config.get("metrics"))
    found = stability_of(frame, _sizes(store, run.run_id), seed=seed)
    rows = [
        StabilityRow(s, kinds.get(s.metric), SEED_RATINGS.get(kinds.get(s.metric) or ""))
        for s in found
    ]
    return StabilityTable(run.run_id, run.trials, rows)


def _kinds(specs: Any) -> dict[str, str]:
    """Score name → the registered metric it comes from, from the run's config."""
    kinds: dict[str, str] = {}
    for spec in specs if isinstance(specs, list) else []:
        if isinstance(spec, str):
            kinds[spec] = spec
        elif isinstance(spec, dict) and isinstance(spec.get("metric"), str):
            kinds[str(spec.get("name") or spec["metric"])] = spec["metric"]
    return kinds


def _sizes(store: Store, run_id: str) -> dict[tuple[str, str], float]:
    """Per (score, sample), the median ``size`` over the sample's trials."""
    found: dict[tuple[str, str], list[float]] = {}
    for request_id, _, score in store.scores(run_id):
        size = score.details.get("size")
        if isinstance(size, int | float) and not isinstance(size, bool):
            found.setdefault((score.metric, request_id), []).append(float(size))
    return {key: statistics.median(values) for key, values in found.items()}

"""The rank metrics' formulas, on the gains of the ranked positions, and the base class
that reads a row's documents for them.

A gain is the grade of the document at a position (0 for one not expected and for a
repeat of a document already ranked higher); a position is relevant when its gain is
above 0. Every formula sees the first ``k`` positions of the retrieved list (all of
them when ``k`` is None).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, ClassVar

from pydantic import Field

from ragjudge.metrics._base import Metric, MetricContext, MetricOptions, Result
from ragjudge.metrics.retrieval._documents import CONTEXTS, RankInputs, rank_inputs
from ragjudge.schema import Output, Sample

__all__ = [
    "CutoffOptions",
    "RankMetric",
    "hit_rate",
    "ndcg",
    "precision",
    "recall",
    "reciprocal_rank",
]


class CutoffOptions(MetricOptions):
    """The options of a rank metric cut off at ``k``."""

    k: int = Field(default=5, ge=1)
    """How many retrieved chunks (from the top) are looked at."""


def hit_rate(gains: Sequence[float]) -> float:
    """1 when some position is relevant, else 0."""
    return float(any(g > 0 for g in gains))


def recall(gains: Sequence[float], relevant: int) -> float:
    """Relevant documents among the positions / all ``relevant`` documents."""
    return sum(1 for g in gains if g > 0) / relevant


def precision(gains: Sequence[float], k: int) -> float:
    """Relevant documents among the positions / ``k`` (a list shorter than ``k`` is
    not given credit for its missing places)."""
    return sum(1 for g in gains if g > 0) / k


def reciprocal_rank(gains: Sequence[float]) -> float:
    """1 / the rank of the first relevant position, 0 when none is."""
    return next((1 / rank for rank, g in enumerate(gains, 1) if g > 0), 0.0)


def discounted_gain(gains: Sequence[float]) -> float:
    """Σ gain / log2(rank + 1)."""
    return sum(g / math.log2(rank + 1) for rank, g in enumerate(gains, 1))


def ndcg(gains: Sequence[float], grades: Sequence[float], k: int) -> float:
    """The discounted gain of the positions over that of the ideal ranking: the
    ``grades`` of the relevant documents, highest first, cut at ``k``."""
    ideal = discounted_gain(sorted(grades, reverse=True)[:k])
    return discounted_gain(gains) / ideal


class RankMetric(Metric):
    """A rank metric over document ids: it reads the retrieved documents in rank order
    and the expected ones with their grades, and :meth:`value` computes its formula."""

    pipeline_parts = ("retrieval",)
    requires: tuple[str, ...] = (CONTEXTS, "expected_retrieved_context")
    inline = True
    Options: ClassVar[type[MetricOptions]] = CutoffOptions

    @property
    def cutoff(self) -> int | None:
        """The ``k`` option: how many positions are looked at (None: all)."""
        k: int | None = getattr(self.options, "k", None)
        return k

    def value(self, inputs: RankInputs) -> float:
        """The metric's formula on a row's documents."""
        raise NotImplementedError

    def compute_now(self, sample: Sample, output: Output, ctx: MetricContext) -> Result:
        """The value, with the relevant documents found and missed in the details."""
        inputs = rank_inputs(sample, output)
        looked_at = inputs.ranked[: self.cutoff]
        found = [doc for doc in looked_at if doc is not None and doc in inputs.relevant]
        missing = [doc for doc in inputs.relevant if doc not in found]
        details: dict[str, Any] = {
            "k": self.cutoff,
            "retrieved": len(inputs.ranked),
            "found": found,
            "missing": missing,
        }
        rationale = f"{len(found)} of {len(inputs.relevant)} relevant documents in the top"
        rationale += f" {self.cutoff}" if self.cutoff else f" {len(looked_at)} (all) retrieved"
        return Result(self.value(inputs), rationale=rationale, details=details)

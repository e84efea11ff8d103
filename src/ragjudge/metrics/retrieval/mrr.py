"""``mrr``: the reciprocal rank of the first relevant expected document retrieved; its
mean over the rows is the mean reciprocal rank."""

from __future__ import annotations

from pydantic import Field

from ragjudge.metrics._base import MetricOptions
from ragjudge.metrics._registry import register_metric
from ragjudge.metrics.retrieval._documents import RankInputs
from ragjudge.metrics.retrieval._ranks import RankMetric, reciprocal_rank
from ragjudge.schema import ScoreMeaning


class ReciprocalRankOptions(MetricOptions):
    """The options of ``mrr``."""

    k: int | None = Field(default=None, ge=1)
    """Look at the top ``k`` retrieved chunks only (none: the whole list)."""


@register_metric("mrr")
class MeanReciprocalRank(RankMetric):
    """1 / the rank of the first retrieved chunk that belongs to an expected document
    (grade above 0), 0 when none does; the mean over the rows is the MRR."""

    Options = ReciprocalRankOptions
    meaning = ScoreMeaning(
        description="1 / rank of the first expected document retrieved (mean: MRR)"
    )

    def value(self, inputs: RankInputs) -> float:
        """The reciprocal rank."""
        return reciprocal_rank(inputs.gains(self.cutoff))

"""Judges ranked by their agreement with a human label, with their cost: for one metric
and context mode, the judges from the most to the least agreeing by the label's primary
figure (Kendall's tau-b for a scale, Cohen's kappa for yes/no), and the cheapest judge
whose figure is within a margin of the best one's.

Two judges are told apart only when neither's figure lies inside the other's
confidence interval: otherwise the gap between them is within the sampling noise of
these samples, and the output says so.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ragjudge.stats import Estimate

__all__ = ["JudgeRanking", "RankedJudge", "rank_group"]


@dataclass(frozen=True)
class RankedJudge:
    """One judge's primary figure against the label (``agreement``, as the metric's
    direction reads it: a lower-is-better metric's correlation is turned round), over
    ``n`` samples, and its cost per 1,000 samples (None when unpriced)."""

    judge: str
    model: str | None
    agreement: Estimate
    n: int
    calls: int
    cost_per_thousand: float | None


@dataclass(frozen=True)
class JudgeRanking:
    """The judges of one metric and context mode against one human label, best first
    (a judge whose figure is undefined last). ``cheapest`` is the cheapest priced judge
    whose figure is at most ``within`` below the best one's; ``distinguishable`` says
    whether it is told apart from the best (None when it is the best or missing)."""

    human: str
    metric: str
    contexts: str | None
    figure: str
    within: float
    judges: list[RankedJudge]
    cheapest: RankedJudge | None
    distinguishable: bool | None

    @property
    def best(self) -> RankedJudge | None:
        """The most agreeing judge, or None when no judge's figure is defined."""
        first = self.judges[0] if self.judges else None
        return first if first is not None and first.agreement.value is not None else None

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready form."""
        return {
            "human": self.human,
            "metric": self.metric,
            "contexts": self.contexts,
            "ranked_by": self.figure,
            "within": self.within,
            "judges": [_judge_dict(j, rank) for rank, j in enumerate(self.judges, start=1)],
            "best": self.best.judge if self.best else None,
            "cheapest_within": self.cheapest.judge if self.cheapest else None,
            "distinguishable": self.distinguishable,
        }


def _judge_dict(judge: RankedJudge, rank: int) -> dict[str, Any]:
    return {
        "rank": rank,
        "judge": judge.judge,
        "model": judge.model,
        **judge.agreement.to_dict(),
        "n": judge.n,
        "calls": judge.calls,
        "cost_per_1000": judge.cost_per_thousand,
    }


def rank_group(
    human: str,
    metric: str,
    contexts: str | None,
    figure: str,
    judges: Sequence[RankedJudge],
    within: float,
) -> JudgeRanking:
    """Rank ``judges`` (of one metric and context mode) by their figure and find the
    cheapest one within ``within`` of the best."""
    ranked = sorted(judges, key=_agreement_key)
    best = ranked[0] if ranked and ranked[0].agreement.value is not None else None
    cheapest = _cheapest_within(ranked, best, within)
    distinguishable = None
    if best is not None and cheapest is not None and cheapest is not best:
        distinguishable = told_apart(best.agreement, cheapest.agreement)
    return JudgeRanking(
        human=human,
        metric=metric,
        contexts=contexts,
        figure=figure,
        within=within,
        judges=ranked,
        cheapest=cheapest,
        distinguishable=distinguishable,
    )


def _agreement_key(judge: RankedJudge) -> tuple[bool, float]:
    value = judge.agreement.value
    return (value is None, -(value if value is not None else 0.0))


def _cheapest_within(
    ranked: Sequence[RankedJudge], best: RankedJudge | None, within: float
) -> RankedJudge | None:
    if best is None or best.agreement.value is None:
        return None
    floor = best.agreement.value - within
    # A hair of slack so that a figure exactly at the margin counts despite rounding.
    close = [
        j
        for j in ranked
        if j.agreement.value is not None
        and j.agreement.value >= floor - 1e-12
        and j.cost_per_thousand is not None
    ]
    if not close:
        return None
    return min(close, key=lambda j: (j.cost_per_thousand, -(j.agreement.value or 0.0)))


def told_apart(first: Estimate, second: Estimate) -> bool:
    """Whether neither figure lies inside the other's interval (False when an interval
    is missing: without one nothing is told apart)."""
    if first.value is None or second.value is None or first.ci is None or second.ci is None:
        return False
    inside_first = first.ci.low <= second.value <= first.ci.high
    inside_second = second.ci.low <= first.value <= second.ci.high
    return not (inside_first or inside_second)

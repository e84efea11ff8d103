"""``generate --dry-run``: every prompt the first candidates of each kind would send,
built and counted against a stand-in model that calls nothing, then priced as a
generation prices its calls. The estimate has two ends: every candidate kept (the
fewest calls) and every kind using all its attempts (the most)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from ragjudge.config import JudgeConfig
from ragjudge.knowledge import KnowledgeBase
from ragjudge.models import GenerateConfig, JudgeCallRecord
from ragjudge.run._dryrun import StandInJudge
from ragjudge.run._dryrun_plan import DryRunPlan as _PriceNotes
from ragjudge.run._dryrun_plan import PurposeEstimate, purpose_estimates, tell_prices
from ragjudge.testsets._candidate import check_candidate
from ragjudge.testsets._settings import GenerationSettings, kind_quotas, sources_for
from ragjudge.testsets._types import Kind

__all__ = ["GenerationPlan", "plan_generation"]


@dataclass
class GenerationPlan:
    """What a generation would call and cost."""

    wanted: dict[str, int]
    candidates_low: int
    """Candidates checked when every one is kept."""
    candidates_high: int
    """Candidates checked when every kind uses all its attempts."""
    purposes: list[PurposeEstimate]
    """Calls, tokens and cost per kind of call, for the low end."""
    generator: str
    price_source: str | None = None
    price_note: str | None = None
    unavailable: dict[str, str] = field(default_factory=dict)
    """Kinds the knowledge base cannot give, with the reason."""

    @property
    def calls_low(self) -> int:
        """Model calls at the low end."""
        return sum(p.calls for p in self.purposes)

    @property
    def scale(self) -> float:
        """High end over low end."""
        return self.candidates_high / self.candidates_low if self.candidates_low else 0.0

    @property
    def cost_low(self) -> float | None:
        """Dollars at the low end (None: no price)."""
        costs = [p.cost for p in self.purposes if p.cost is not None]
        return sum(costs) if costs else None

    def to_dict(self) -> dict[str, Any]:
        """The plan as JSON-able data (``generate --dry-run --json``)."""
        cost = self.cost_low
        tokens_in = sum(p.input_tokens for p in self.purposes)
        tokens_out = sum(p.output_tokens for p in self.purposes)
        return {
            "dry_run": True,
            "generator": self.generator,
            "wanted": self.wanted,
            "candidates": {"low": self.candidates_low, "high": self.candidates_high},
            "calls": {"low": self.calls_low, "high": math.ceil(self.calls_low * self.scale)},
            "input_tokens": {"low": tokens_in, "high": math.ceil(tokens_in * self.scale)},
            "output_tokens": {"low": tokens_out, "high": math.ceil(tokens_out * self.scale)},
            "cost": {
                "low": cost,
                "high": None if cost is None else cost * self.scale,
            },
            "price_source": self.price_source,
            "price_note": self.price_note,
            "by_purpose": [
                {k: v for k, v in vars(p).items() if k != "example_prompt"} for p in self.purposes
            ],
            "unavailable": self.unavailable,
        }


async def plan_generation(
    kb: KnowledgeBase, settings: GenerationSettings, judge: JudgeConfig
) -> GenerationPlan:
    """The dry run of a generation of ``settings`` from ``kb`` with ``judge`` as the
    generator: calls nothing."""
    sources = sources_for(kb, settings)
    quotas = kind_quotas(settings.n, settings.mix)
    records: list[JudgeCallRecord] = []
    stand_in = StandInJudge(records)
    low = high = 0
    unavailable: dict[str, str] = {}
    for kind, quota in quotas.items():
        plans = [p for p in (sources.plan(kind, i) for i in range(quota)) if p is not None]
        if not plans:
            unavailable[kind] = _why_unavailable(kind)
            continue
        for plan in plans:
            await check_candidate(
                plan, stand_in, GenerateConfig(), sources.related, lambda _: None, "dry-run"
            )
        low += len(plans)
        high += max(math.ceil(quota * settings.attempts), len(plans))
    notes = _PriceNotes(0, 0, 0, judge.model, [], 0)
    tell_prices(notes, {"": judge})
    return GenerationPlan(
        {str(kind): count for kind, count in quotas.items()},
        low,
        high,
        purpose_estimates(judge, records),
        judge.model,
        notes.price_source,
        notes.price_note,
        unavailable,
    )


def _why_unavailable(kind: Kind) -> str:
    if kind in ("multi", "comparative"):
        return "needs two related chunks (comparative: of two documents)"
    return "no chunk long enough to write from"

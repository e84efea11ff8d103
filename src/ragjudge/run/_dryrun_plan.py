"""What a dry run reports (:class:`DryRunPlan`): the judge calls, tokens and cost it
estimates per purpose and per named judge, each judge's calls priced as the run prices
them (:func:`~ragjudge.run._judging.prices_of`), and where the prices come from."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ragjudge.config import JudgeConfig
from ragjudge.models import JudgeCallRecord, ModelSettings, estimate_messages_tokens
from ragjudge.run._judging import prices_of
from ragjudge.schema import Usage


@dataclass
class PurposeEstimate:
    """Estimated judge calls, tokens and cost of one purpose (one kind of judge call
    of a metric, e.g. ``multiturn.judge``)."""

    purpose: str
    calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost: float | None = None
    example_prompt: list[dict[str, Any]] = field(default_factory=list)
    judge: str | None = None
    """The named judge that would make these calls (a judge matrix), else None."""


@dataclass
class DryRunPlan:
    """What a run would cost: target calls, judge calls and tokens per metric."""

    samples: int
    trials: int
    target_calls: int
    judge_model: str | None
    purposes: list[PurposeEstimate]
    output_tokens_per_call: int
    errors: list[str] = field(default_factory=list)
    price_source: str | None = None
    """Where the prices come from: ``the config`` or the published list and its date."""
    price_note: str | None = None
    """Why there is no cost, and how to give prices."""
    target_rows: int = 0
    """Rows (spread over the set) the target answered for real during the dry run."""
    lower_bound: str | None = None
    """Why the estimate may fall short of the run (``None``: it does not)."""
    max_cost: float | None = None
    """The run's cost ceiling, if it has one."""
    judge_models: dict[str, str] = field(default_factory=dict)
    """The model of each named judge of a judge matrix."""

    @property
    def total_calls(self) -> int:
        """Judge calls over every purpose."""
        return sum(p.calls for p in self.purposes)

    @property
    def total_cost(self) -> float | None:
        """Dollars over the priced purposes; ``None`` when none has a price."""
        costs = [p.cost for p in self.purposes if p.cost is not None]
        return sum(costs) if costs else None

    def by_judge(self) -> dict[str, dict[str, Any]]:
        """Per named judge of a judge matrix, its calls and dollars (None: unpriced);
        empty for a run with one judge."""
        found: dict[str, dict[str, Any]] = {}
        for p in self.purposes:
            if p.judge is None:
                continue
            entry = found.setdefault(p.judge, {"calls": 0, "cost": None})
            entry["calls"] += p.calls
            if p.cost is not None:
                entry["cost"] = (entry["cost"] or 0.0) + p.cost
        return found

    def to_dict(self) -> dict[str, Any]:
        """The plan as JSON-able data (``ragjudge run --dry-run --json``)."""
        return {
            "dry_run": True,
            "samples": self.samples,
            "trials": self.trials,
            "target_calls": self.target_calls,
            "judge_model": self.judge_model,
            "judge_calls": self.total_calls,
            "input_tokens": sum(p.input_tokens for p in self.purposes),
            "output_tokens": sum(p.output_tokens for p in self.purposes),
            "output_tokens_per_call": self.output_tokens_per_call,
            "cost": self.total_cost,
            "price_source": self.price_source,
            "price_note": self.price_note,
            "target_rows": self.target_rows,
            "lower_bound": self.lower_bound,
            "max_cost": self.max_cost,
            "by_metric": [vars(p) for p in self.purposes],
            "by_judge": self.by_judge(),
            "errors": self.errors,
        }


def tell_prices(plan: DryRunPlan, judges: dict[str, JudgeConfig]) -> None:
    """Say where the plan's prices come from (by judge, for several), or why a judge
    has none."""
    if not judges:
        plan.price_note = "no judge model: no judge calls are paid for"
        return
    sources, missing = [], []
    for name, judge in judges.items():
        prices = prices_of(judge)
        source = prices.source(judge.model)
        if source is None:
            missing.append(_named(name, prices.missing_reason(judge.model)))
        else:
            sources.append(_named(name, source))
    plan.price_source = "; ".join(dict.fromkeys(sources)) or None
    plan.price_note = "; ".join(missing) or None


def _named(judge: str, text: str) -> str:
    return f"judge {judge}: {text}" if judge else text


def output_tokens_per_call(judge: JudgeConfig | None) -> int:
    """What the judge layer assumes for pacing: ``max_tokens``, else its expected output."""
    if judge is None:
        return ModelSettings().expected_output_tokens
    return judge.max_tokens or judge.expected_output_tokens


def purpose_estimates(
    judge: JudgeConfig | None, records: list[JudgeCallRecord], name: str | None = None
) -> list[PurposeEstimate]:
    """Calls, tokens and cost per purpose of the recorded stand-in calls (of the named
    judge ``name`` of a judge matrix)."""
    per_call = output_tokens_per_call(judge)
    prices = prices_of(judge)
    by_purpose: dict[str, list[JudgeCallRecord]] = {}
    for call in records:
        by_purpose.setdefault(call.purpose or "(none)", []).append(call)
    estimates = []
    for purpose, calls in by_purpose.items():
        usage = Usage(
            input_tokens=sum(estimate_messages_tokens(c.messages) for c in calls),
            output_tokens=per_call * len(calls),
        )
        estimates.append(
            PurposeEstimate(
                purpose=purpose,
                calls=len(calls),
                input_tokens=usage.input_tokens,
                output_tokens=usage.output_tokens,
                cost=prices.cost(judge.model, usage) if judge is not None else None,
                example_prompt=calls[0].messages,
                judge=name,
            )
        )
    return estimates

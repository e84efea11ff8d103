"""``--dry-run``: build every judge prompt an evaluation would send, count the calls and
estimate tokens and cost — calling neither the system under test nor any model.

Each judge metric runs against a stand-in judge that answers with the metric's
``dry_run_reply``; prompts are collected instead of sent. The target is not called:
a sample's stored response is used when the data holds one, else its reference answer
stands in for the response (a length proxy for the token estimate), else the query.
Metrics whose number of calls depends on the judge's answers (multi-turn dialogues)
are walked along their longest path, so the estimate is an upper bound for them.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ragjudge.config import EvalConfig
from ragjudge.judging import dry_run_judge, generate_config
from ragjudge.metrics import Metric, MetricContext
from ragjudge.models import JudgeCallRecord, PriceTable, estimate_messages_tokens
from ragjudge.models.model import ModelSettings
from ragjudge.schema import Output, Sample, Usage


@dataclass
class PurposeEstimate:
    """Estimated judge calls and tokens of one metric."""

    purpose: str
    calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost: float | None = None
    example_prompt: list[dict[str, Any]] = field(default_factory=list)


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

    @property
    def total_calls(self) -> int:
        return sum(p.calls for p in self.purposes)

    @property
    def total_cost(self) -> float | None:
        costs = [p.cost for p in self.purposes if p.cost is not None]
        return sum(costs) if costs else None

    def to_dict(self) -> dict[str, Any]:
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
            "by_metric": [vars(p) for p in self.purposes],
            "errors": self.errors,
        }


def _stand_in_output(sample: Sample, supplies_response: bool) -> Output:
    if not supplies_response and sample.response is not None:
        return Output(response=sample.response, retrieved_context=sample.retrieved_context)
    stand_in = sample.references[0] if sample.references else sample.request.query
    return Output(response=stand_in, retrieved_context=sample.retrieved_context)


async def plan_evaluation(
    config: EvalConfig,
    samples: Sequence[Sample],
    metrics: Sequence[Metric],
    *,
    supplies_response: bool,
    retriever: Any = None,
) -> DryRunPlan:
    """Walk every sample, trial and metric with stand-in judges and count the prompts."""
    records: dict[str, list[JudgeCallRecord]] = {m.name: [] for m in metrics}
    judges = {m.name: dry_run_judge(m, records[m.name]) for m in metrics if m.needs_judge}
    sampling = generate_config(config.judge)
    errors: list[str] = []
    semaphore = asyncio.Semaphore(max(config.concurrency, 8))

    dialogue_calls = 0

    async def stand_in_target(sample: Sample) -> Output:
        nonlocal dialogue_calls
        dialogue_calls += 1
        return _stand_in_output(sample, supplies_response)

    async def walk(sample: Sample, trial: int, metric: Metric) -> None:
        judge = judges.get(metric.name)
        ctx = MetricContext(
            trial=trial,
            retriever=retriever,
            judge=judge,
            generate_config=sampling,
            target=stand_in_target,
            models={role: judge for role in metric.agent_models},
        )
        async with semaphore:
            try:
                await metric.score(sample, _stand_in_output(sample, supplies_response), ctx)
            except Exception as exc:  # reported, the plan goes on
                errors.append(f"{metric.name} on {sample.request_id}: {type(exc).__name__}: {exc}")

    await asyncio.gather(
        *(
            walk(sample, trial, metric)
            for sample in samples
            for trial in range(config.trials)
            for metric in metrics
            if metric.needs_judge
        )
    )
    for judge in judges.values():
        await judge.aclose()
    plan = _tally(config, samples, records, supplies_response, errors)
    plan.target_calls += dialogue_calls
    return plan


def _tally(
    config: EvalConfig,
    samples: Sequence[Sample],
    records: dict[str, list[JudgeCallRecord]],
    supplies_response: bool,
    errors: list[str],
) -> DryRunPlan:
    judge = config.judge
    per_call = (judge.max_tokens if judge and judge.max_tokens else None) or (
        ModelSettings().expected_output_tokens
    )
    prices = PriceTable.from_dict(judge.prices) if judge and judge.prices else None
    model_name = judge.model.split("/", 1)[-1] if judge else None
    by_purpose: dict[str, list[JudgeCallRecord]] = {}
    for metric_calls in records.values():
        for call in metric_calls:
            by_purpose.setdefault(call.purpose or "(none)", []).append(call)
    purposes = []
    for purpose, calls in by_purpose.items():
        estimate = PurposeEstimate(purpose=purpose, calls=len(calls))
        estimate.input_tokens = sum(estimate_messages_tokens(c.messages) for c in calls)
        estimate.output_tokens = per_call * len(calls)
        estimate.example_prompt = calls[0].messages
        if prices is not None and model_name is not None:
            usage = Usage(input_tokens=estimate.input_tokens, output_tokens=estimate.output_tokens)
            estimate.cost = prices.cost(model_name, usage)
        purposes.append(estimate)
    return DryRunPlan(
        samples=len(samples),
        trials=config.trials,
        target_calls=len(samples) if supplies_response else 0,
        judge_model=judge.model if judge else None,
        purposes=purposes,
        output_tokens_per_call=per_call,
        errors=errors,
    )

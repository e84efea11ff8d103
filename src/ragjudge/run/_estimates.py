"""What the run does with the dry run's count before it starts: the judge calls its
progress expects (:func:`expected_calls`) and the estimate held against its cost
ceiling (:func:`check_estimate`; see :mod:`ragjudge.run._ceiling`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ragjudge.config import ConfigError, EvalConfig
from ragjudge.metrics import Metric
from ragjudge.run._dryrun import DryRunPlan, plan_evaluation
from ragjudge.schema import Sample

PLANNED_FOR_PROGRESS = 5_000
"""Most (sample, trial, judged metric) walks the run plans only to show how many judge
calls to expect; beyond it the progress shows the calls done."""


async def expected_calls(
    config: EvalConfig,
    samples: Sequence[Sample],
    metrics: Sequence[Metric],
    *,
    supplies_response: bool,
    retriever: Any,
    planned: DryRunPlan | None = None,
) -> int | None:
    """The judge calls a run is expected to make, for its progress: those of
    ``planned`` (the plan its cost ceiling was checked with), else counted as the dry
    run counts them when the run is small enough and its evaluation contexts are not
    searched on a live service (a walk would query it); else ``None``."""
    if planned is not None:
        return planned.total_calls
    judged = sum(1 for m in metrics if m.needs_judge)
    walks = len(samples) * config.trials * judged
    if not judged or walks > PLANNED_FOR_PROGRESS or config.retriever is not None:
        return None
    plan = await plan_evaluation(
        config, samples, metrics, supplies_response=supplies_response, retriever=retriever
    )
    return plan.total_calls


async def check_estimate(
    config: EvalConfig,
    samples: Sequence[Sample],
    metrics: Sequence[Metric],
    *,
    supplies_response: bool,
    retriever: Any,
) -> DryRunPlan | None:
    """Refuse to start a run whose estimated cost passes ``max_cost``, or whose judge
    has no price to hold it to; the plan checked (``None`` without a ceiling), which
    the run's progress reuses."""
    ceiling = config.max_cost
    if ceiling is None or not any(m.needs_judge for m in metrics):
        return None
    plan = await plan_evaluation(
        config, samples, metrics, supplies_response=supplies_response, retriever=retriever
    )
    if plan.total_calls and plan.total_cost is None:
        raise ConfigError(f"max_cost: {plan.price_note}; without a price a ceiling cannot hold")
    if plan.total_cost is not None and plan.total_cost > ceiling:
        raise ConfigError(
            f"max_cost: the run is estimated at ${plan.total_cost:.4f} or more "
            f"({plan.total_calls} judge calls), above the ceiling of ${ceiling:.4f}; nothing "
            "was run. Raise max_cost (--max-cost), or evaluate fewer rows (--limit, --sample)"
        )
    return plan

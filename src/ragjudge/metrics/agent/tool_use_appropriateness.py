"""``tool_use_appropriateness``: was each tool the agent called the right one, with the
right arguments, for that step? The judge reads the request and the whole trajectory
and gives one verdict per step in a single reply; the score is the share of steps it
found appropriate, with every step's verdict and reason in the details.

A trajectory without calls has no step to judge: the metric does not apply to it,
unless the row's ``expected_tool_calls`` is an empty list (no tool was needed), where
calling none is right and scores 1.
"""

from __future__ import annotations

from typing import Any

from ragjudge.metrics._base import NotApplicable, Produced, Result
from ragjudge.metrics._judged import JudgedMetric, Judging, conversation
from ragjudge.metrics._registry import register_metric
from ragjudge.metrics.agent._steps import StepsReply, StepVerdict
from ragjudge.metrics.agent._trajectory import (
    AgentJudgeOptions,
    require_tool_calls,
    trajectory_steps,
)
from ragjudge.schema import Output, Sample, ScoreMeaning

__all__ = ["ToolUseAppropriateness", "share_appropriate"]


def share_appropriate(verdicts: list[StepVerdict]) -> Result:
    """The share of appropriate steps, each step's verdict and reason in the details."""
    good = sum(v.appropriate == "yes" for v in verdicts)
    steps = [{"step": v.step, "appropriate": v.appropriate, "reason": v.reason} for v in verdicts]
    wrong = [v for v in verdicts if v.appropriate == "no"]
    rationale = "; ".join(f"step {v.step}: {v.reason}" for v in wrong) or None
    return Result(good / len(verdicts), rationale=rationale, details={"steps": steps})


@register_metric("tool_use_appropriateness")
class ToolUseAppropriateness(JudgedMetric):
    """The share of the agent's tool calls that were the right tool, with fitting
    arguments, for their step (one judge call, one verdict per step)."""

    Options = AgentJudgeOptions
    options: AgentJudgeOptions
    pipeline_parts = ("agent",)
    requires: tuple[str, ...] = ()
    meaning = ScoreMeaning(description="share of the agent's tool calls that fit their step")
    template = "tool_use_appropriateness.jinja"
    reply = StepsReply(1)
    calls_per_sample = "1 (none for a trajectory without calls)"

    async def judge(self, sample: Sample, output: Output, j: Judging) -> Produced:
        """One call over every step; no calls → 1 when none were expected, else not
        applicable."""
        calls = require_tool_calls(output)
        if not calls:
            if sample.expected_tool_calls == []:
                return Result(1.0, rationale="no tool was needed and none was called")
            raise NotApplicable("the agent called no tools: there is no step to judge")
        values: dict[str, Any] = {
            **conversation(sample),
            "steps": trajectory_steps(calls, self.options.max_output_chars),
            "response": output.response,
        }
        verdict = await j.ask(StepsReply(len(calls)), self.template, **values)
        return share_appropriate(verdict.value)

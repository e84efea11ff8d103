"""``goal_accomplished``: did the agent accomplish what the user wanted? A yes/no judge
of the user's goal against everything the agent did (its tool calls in order, with
their outputs) and its final response; the mean is the share of goals accomplished.

The goal is the request with the conversation before it; a row whose ``metadata`` has
a ``goal`` (text) adds it, as the goal the request serves: the judge then decides on
that goal, and the conversation shows what the user asked.
"""

from __future__ import annotations

from typing import Any

from ragjudge.metrics._base import MetricContext, require_response
from ragjudge.metrics._failures import MetricFailure
from ragjudge.metrics._judged import conversation
from ragjudge.metrics._registry import register_metric
from ragjudge.metrics._yesno import YesNoMetric, yes_no_meaning
from ragjudge.metrics.agent._trajectory import (
    AgentYesNoOptions,
    require_tool_calls,
    trajectory_steps,
)
from ragjudge.schema import Output, Sample

__all__ = ["GoalAccomplished", "goal_of"]

GOAL_KEY = "goal"


def goal_of(sample: Sample) -> str | None:
    """The goal a row states in ``metadata.goal``, or None (the request is the goal);
    :class:`MetricFailure` for a goal that is not text."""
    goal = sample.metadata.get(GOAL_KEY)
    if goal is None:
        return None
    if not isinstance(goal, str) or not goal.strip():
        raise MetricFailure(f"metadata.{GOAL_KEY} must be non-empty text, got {goal!r}")
    return goal


@register_metric("goal_accomplished")
class GoalAccomplished(YesNoMetric):
    """Yes when the agent accomplished the user's goal (``metadata.goal`` when the row
    gives one, else the request), judged from its tool calls, their outputs and its
    final response."""

    Options = AgentYesNoOptions
    options: AgentYesNoOptions
    pipeline_parts = ("end to end", "agent")
    requires: tuple[str, ...] = ("response|trace",)
    meaning = yes_no_meaning("share of samples where the agent accomplished the user's goal")
    template = "goal_accomplished.jinja"

    async def prompt_values(
        self, sample: Sample, output: Output, ctx: MetricContext
    ) -> dict[str, Any]:
        """The conversation and request, the stated goal (or None), the steps and the
        response."""
        calls = require_tool_calls(output)
        return {
            **conversation(sample),
            "goal": goal_of(sample),
            "steps": trajectory_steps(calls, self.options.max_output_chars),
            "response": require_response(output),
        }

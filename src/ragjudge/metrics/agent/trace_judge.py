"""``trace_judge``: criteria of your own, judged over everything the system did. The
judge is shown the request and the whole trace — every span (name, type, inputs and
outputs, in the order they started) when the output carries an MLflow trace, else the
tool calls in order — and the final response, and answers yes/no (default) or 1–5.

Give each one a ``name``, the name its score is stored under::

    metrics:
      - {metric: trace_judge, name: no_writes, criteria: "The agent only reads data; it never changes or deletes anything."}
      - {metric: trace_judge, name: efficiency, scale: "1-5", criteria: "The agent reaches the answer without needless or repeated calls."}
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar, Literal

from pydantic import Field

from ragjudge.metrics._base import MetricContext, Produced, Result, require_response
from ragjudge.metrics._failures import MetricFailure
from ragjudge.metrics._judged import JudgedMetric, Judging, conversation
from ragjudge.metrics._prompts import Instruction
from ragjudge.metrics._registry import register_metric
from ragjudge.metrics.agent._spans import trace_spans
from ragjudge.metrics.agent._trajectory import AgentJudgeOptions, trajectory_steps
from ragjudge.metrics.replies import Reply, ResultScore, ResultVerdict, YesNo, YesNoVerdict
from ragjudge.schema import Output, Sample, ScoreMeaning

__all__ = ["TraceJudge", "TraceJudgeOptions"]

YES_NO_SCALE = "yes/no"
FIVE_POINT_SCALE = "1-5"


class TraceJudgeOptions(AgentJudgeOptions):
    """``criteria`` (required) and the ``scale`` the judge answers on."""

    criteria: str = Field(min_length=1)
    """What the judge checks in the trace, in your words (shown to the judge as an
    instruction, never as data)."""
    scale: Literal["yes/no", "1-5"] = "yes/no"
    """``yes/no`` (stored as 1 or 0) or ``1-5`` (whole numbers, 5 the best)."""


@register_metric("trace_judge")
class TraceJudge(JudgedMetric):
    """Your criteria judged over the whole trace (its spans, else the tool calls) and
    the final response, yes/no or 1–5; give it a ``name`` and ``criteria``."""

    Options = TraceJudgeOptions
    options: TraceJudgeOptions
    pipeline_parts = ("end to end", "agent")
    requires: tuple[str, ...] = ("response|trace",)
    meaning = ScoreMeaning(binary=True, description="your criteria, over the trace")
    template = "trace_judge.jinja"
    reply: ClassVar[Reply[Any]] = YesNo()
    calls_per_sample = "1"
    example_options: ClassVar[Mapping[str, Any]] = {
        "criteria": "The agent checks the stock before it places an order."
    }

    def meanings(self) -> dict[str, ScoreMeaning]:
        """One score: yes/no (1/0) or 1–5, as the scale says."""
        description = f"trace meets: {self.options.criteria[:80]}"
        if self.options.scale == FIVE_POINT_SCALE:
            return {self.name: ScoreMeaning(low=1.0, high=5.0, description=description)}
        return {self.name: ScoreMeaning(binary=True, description=description)}

    def verdict_reader(self) -> Reply[Any]:
        """The reader of this judge's scale."""
        if self.options.scale == FIVE_POINT_SCALE:
            return ResultScore(1, 5)
        return YesNo()

    async def judge(self, sample: Sample, output: Output, j: Judging) -> Produced:
        """One call with the scale's reader."""
        values = await self.prompt_values(sample, output, j.ctx)
        verdict = await j.ask(self.verdict_reader(), self.template, **values)
        return self.value(verdict.value)

    async def prompt_values(
        self, sample: Sample, output: Output, ctx: MetricContext
    ) -> dict[str, Any]:
        """The conversation, the trace's spans (or the tool calls), the response, the
        criteria and the scale."""
        limit = self.options.max_output_chars
        spans = trace_spans(output.trace, limit) if output.trace is not None else None
        if spans is None and output.tool_calls is None:
            raise MetricFailure(
                "no trace to judge: the output has neither an MLflow trace nor tool calls"
            )
        # a trace can show what was done without a final response; tool calls alone cannot
        response = output.response if spans is not None else require_response(output)
        steps = trajectory_steps(list(output.tool_calls or []), limit)
        return {
            **conversation(sample),
            "spans": spans,
            "steps": steps,
            "response": response,
            "criteria": Instruction(self.options.criteria),
            "five_point": self.options.scale == FIVE_POINT_SCALE,
        }

    def value(self, reply: YesNoVerdict | ResultVerdict) -> Result:
        """The verdict as the score, with the judge's reasoning."""
        if isinstance(reply, ResultVerdict):
            return Result(float(reply.score), rationale=reply.feedback)
        return Result(float(reply.yes), rationale=reply.rationale, details={"label": reply.label})

"""``agent/total_token_count``, ``agent/total_input_token_count``,
``agent/total_output_token_count`` and ``agent/latency_seconds`` of Databricks Agent
Evaluation: what one request cost the system under test. Runs an older version stored
name the input and output counts ``agent/input_token_count`` and
``agent/output_token_count``.

Read from the output's MLflow trace when it has one (token usage summed over its LLM and
CHAT_MODEL spans, latency of its root span; see :mod:`ragjudge.targets._traces`), else from what
the target reported (``usage``) and how long its call took. A figure nobody reported is
not applicable — not 0, and not an error of the system under test.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

from ragjudge.metrics._base import Metric, MetricContext, Produced
from ragjudge.metrics._registry import register_metric
from ragjudge.schema import Output, Sample, Score, ScoreMeaning, Usage
from ragjudge.targets._traces import read_trace

TOTAL = "agent/total_token_count"
INPUT = "agent/total_input_token_count"
OUTPUT = "agent/total_output_token_count"
LATENCY = "agent/latency_seconds"


def _count(what: str) -> ScoreMeaning:
    return ScoreMeaning(direction="lower", low=0, high=None, description=what)


@register_metric("agent_usage")
class AgentUsage(Metric):
    """Tokens and latency of the system under test for each request."""

    pipeline_parts = ("agent",)

    requires: tuple[str, ...] = ()
    scores: ClassVar[Mapping[str, ScoreMeaning]] = {
        TOTAL: _count("tokens the system used for the request (input and output)"),
        INPUT: _count("input tokens the system's models read for the request"),
        OUTPUT: _count("output tokens the system's models wrote for the request"),
        LATENCY: _count("seconds the system took to answer (the trace's root span)"),
    }

    async def compute(self, sample: Sample, output: Output, ctx: MetricContext) -> Produced:
        """The four figures; each one nobody reported is not applicable."""
        reading = read_trace(output.trace)
        usage = reading.usage if reading is not None and reading.usage is not None else None
        if usage is None and output.usage.total_tokens > 0:
            usage = output.usage
        latency = reading.latency if reading is not None else None
        if latency is None:
            latency = output.latency
        return [*self._tokens(usage), self._latency(latency)]

    def _tokens(self, usage: Usage | None) -> list[Score]:
        names = [self.score_name(n) for n in (TOTAL, INPUT, OUTPUT)]
        if usage is None:
            reason = "no token usage reported (no usage from the target, no model span in a trace)"
            return [Score.not_applicable(n, reason) for n in names]
        counts = (usage.total_tokens, usage.input_tokens, usage.output_tokens)
        return [Score(metric=n, value=float(c)) for n, c in zip(names, counts, strict=True)]

    def _latency(self, latency: float | None) -> Score:
        name = self.score_name(LATENCY)
        if latency is None:
            return Score.not_applicable(
                name, "no latency measured (responses from the data, no trace)"
            )
        return Score(metric=name, value=latency)

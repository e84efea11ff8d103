"""Scoring one row with a metric and a scripted judge, keeping every prompt."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ragjudge.metrics import Metric, MetricContext, create_metric
from ragjudge.models import JudgeCallRecord, JudgeModel, ModelSettings
from ragjudge.models.scripted import ReplyScript, ScriptedProvider
from ragjudge.schema import Output, Sample, Score
from ragjudge.targets._targets import output_of_row


@dataclass
class Scored:
    """A metric's scores for one row, by name, and the prompts it sent."""

    scores: dict[str, Score]
    calls: list[JudgeCallRecord] = field(default_factory=list)

    @property
    def prompts(self) -> list[str]:
        return [str(m["content"]) for c in self.calls for m in c.messages]

    def __getitem__(self, name: str) -> Score:
        return self.scores[name]


async def score_row(
    spec: str | dict[str, Any] | Metric,
    row: dict[str, Any],
    *,
    script: ReplyScript | None = None,
    output: Output | None = None,
) -> Scored:
    """``spec``'s scores for ``row`` (its output as the data target gives it, unless
    ``output`` is given), judged by ``script`` (default: yes to everything)."""
    calls: list[JudgeCallRecord] = []

    async def record(call: JudgeCallRecord) -> int:
        calls.append(call)
        return len(calls)

    judge = JudgeModel(
        ScriptedProvider(script or ReplyScript(default="Rationale: fine.\nAnswer: yes")),
        settings=ModelSettings(cache=False, reask_limit=1),
        recorder=record,
    )
    metric = create_metric(spec)
    sample = Sample.model_validate({"request_id": "r", **row})
    scores = await metric.score(sample, output or output_of_row(sample), MetricContext(judge=judge))
    return Scored({s.metric: s for s in scores}, calls)

"""``databricks``: every metric of Databricks Agent Evaluation's table that a
row's inputs allow, under Databricks' names, plus ``response/overall_assessment/rating``.

Each judge runs with ``if_missing: skip``: a row without a judge's input (no retrieved
context, no expected facts or response, no guidelines, no expected documents) gets that
judge's scores as not applicable, not as errors; token counts and latency are not
applicable when nothing reported them. A judge whose call fails gives errors for its own
scores only.

The overall assessment is no when any applicable yes/no rating of the row is no (the
rationale names those judges and what they said), yes when every one is yes, and an
error when none says no but one could not be computed. The chunk precision and the
document recall are shares without a pass mark, so they do not enter it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any, ClassVar

from ragjudge.metrics._base import Metric, MetricOptions, Produced, require_response
from ragjudge.metrics._judged import JudgedMetric, Judging
from ragjudge.metrics._registry import register_metric
from ragjudge.metrics._yesno import yes_no_meaning
from ragjudge.metrics.databricks._shared import RESPONSE
from ragjudge.metrics.databricks.agent_usage import AgentUsage
from ragjudge.metrics.databricks.chunk_relevance_precision import ChunkRelevancePrecision
from ragjudge.metrics.databricks.context_sufficiency import ContextSufficiency
from ragjudge.metrics.databricks.correctness import Correctness
from ragjudge.metrics.databricks.document_recall import DocumentRecall
from ragjudge.metrics.databricks.groundedness import Groundedness
from ragjudge.metrics.databricks.guideline_adherence import GuidelineAdherence, Guidelines
from ragjudge.metrics.databricks.relevance_to_query import RelevanceToQuery
from ragjudge.metrics.databricks.safety import Safety
from ragjudge.schema import Output, Sample, Score, ScoreMeaning

OVERALL = "response/overall_assessment/rating"
OVERALL_MEANING = yes_no_meaning("share of responses that every applicable yes/no judge passed")


class AgentEvaluationOptions(MetricOptions):
    """The evaluator's options: the guidelines every row is held to."""

    global_guidelines: Guidelines | None = None


@register_metric("databricks")
class AgentEvaluation(JudgedMetric):
    """Every Databricks Agent Evaluation metric whose inputs the row holds."""

    pipeline_parts = ("retrieval", "generation", "end to end", "agent")

    calls_per_sample = "1 per applicable judge, 1 per chunk, 1 per fact or guideline set"

    Options: ClassVar[type[MetricOptions]] = AgentEvaluationOptions
    options: AgentEvaluationOptions
    requires: tuple[str, ...] = (RESPONSE,)

    def __init__(self, *, name: str | None = None, **options: Any) -> None:
        super().__init__(name=name, **options)
        skip = "skip"
        self.parts: list[Metric] = [
            RelevanceToQuery(if_missing=skip),
            Safety(if_missing=skip),
            Groundedness(if_missing=skip),
            Correctness(if_missing=skip),
            GuidelineAdherence(if_missing=skip, global_guidelines=self.options.global_guidelines),
            ChunkRelevancePrecision(if_missing=skip),
            ContextSufficiency(if_missing=skip),
            DocumentRecall(if_missing=skip),
            AgentUsage(),
        ]

    # the scores ---------------------------------------------------------------------

    def _named(self, name: str) -> str:
        """A part's score name as this instance stores it (``NAME.`` when renamed)."""
        return self.score_name(name)

    def meanings(self) -> dict[str, ScoreMeaning]:
        """Every part's scores and the overall assessment."""
        found = {self._named(n): m for part in self.parts for n, m in part.meanings().items()}
        return {**found, self._named(OVERALL): OVERALL_MEANING}

    def score_names_for(self, sample: Sample) -> list[str]:
        """Every part's scores for the row (one per guideline set) and the overall one."""
        names = [n for part in self.parts for n in part.score_names_for(sample)]
        return [self._named(n) for n in [*names, OVERALL]]

    def meanings_for(self, samples: Sequence[Sample]) -> dict[str, ScoreMeaning]:
        """The meanings of every score any of ``samples`` gets."""
        found = {
            self._named(n): m for part in self.parts for n, m in part.meanings_for(samples).items()
        }
        return {**found, self._named(OVERALL): OVERALL_MEANING}

    # scoring -----------------------------------------------------------------------

    async def judge(self, sample: Sample, output: Output, j: Judging) -> Produced:
        """Every part at once (each with its own judge calls and purpose), then the
        overall assessment."""
        require_response(output)
        done = await asyncio.gather(*(self._part(p, sample, output, j) for p in self.parts))
        scores = [s.model_copy(update={"metric": self._named(s.metric)}) for g in done for s in g]
        meanings = self.meanings_for([sample])
        ratings = [s for s in scores if meanings[s.metric].binary]
        return [*scores, overall(self._named(OVERALL), ratings)]

    async def _part(self, part: Metric, sample: Sample, output: Output, j: Judging) -> list[Score]:
        try:
            return await part.score(sample, output, j.ctx)
        except Exception as exc:  # a bug in one part is the error of its scores only
            error = f"{type(exc).__name__}: {exc}"
            return [Score.failed(n, error) for n in part.score_names_for(sample)]


def overall(name: str, ratings: Sequence[Score]) -> Score:
    """No when an applicable rating is no, yes when all are yes, an error when none is
    no but one failed; not applicable when no yes/no judge applied."""
    calls = sorted({i for s in ratings for i in s.judge_call_ids})
    judges = {s.metric: _label(s) for s in ratings if not s.skipped}
    failing = [s for s in ratings if s.value == 0.0]
    if failing:
        said = "; ".join(f"{s.metric}: {s.rationale}" if s.rationale else s.metric for s in failing)
        return Score(
            metric=name,
            value=0.0,
            rationale=f"{len(failing)} judge(s) said no — {said}",
            details={"label": "no", "judges": judges},
            judge_call_ids=calls,
        )
    errored = [s.metric for s in ratings if s.error]
    if errored:
        return Score(
            metric=name,
            value=None,
            error=f"cannot assess: no judge said no, but {', '.join(errored)} failed",
            details={"judges": judges},
            judge_call_ids=calls,
        )
    if not judges:
        return Score.not_applicable(name, "no yes/no judge applied to this row")
    return Score(
        metric=name,
        value=1.0,
        rationale=f"all {len(judges)} applicable judges said yes",
        details={"label": "yes", "judges": judges},
        judge_call_ids=calls,
    )


def _label(score: Score) -> str:
    if score.error:
        return "error"
    return "yes" if score.value == 1.0 else "no"

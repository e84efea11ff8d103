"""``answer_relevancy`` (RAGAS): how well the response addresses the question.

The judge writes ``questions`` (default 3) questions the response answers, in one call,
and says whether the response is noncommittal; the score is the mean cosine similarity
of their embeddings to the question's, and 0 for a noncommittal response. Embeddings
come from ``embedding`` (``local``: the bundled all-MiniLM-L6-v2; or ``openai/<model>``
through the judge layer), cached per text.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from ragjudge.metrics._base import MetricOptions, Produced, Result, require_response
from ragjudge.metrics._judged import JudgedMetric, Judging
from ragjudge.metrics._registry import register_metric
from ragjudge.metrics.ragas._common import cosine
from ragjudge.metrics.replies import JsonReply
from ragjudge.schema import Output, Sample, ScoreMeaning


class GeneratedQuestions(BaseModel):
    questions: list[str] = Field(min_length=1)
    noncommittal: int = Field(ge=0, le=1)


class AnswerRelevancyOptions(MetricOptions):
    questions: int = Field(default=3, ge=1, le=10)
    """How many questions the judge writes."""
    embedding: str = "local"


@register_metric("answer_relevancy")
class AnswerRelevancy(JudgedMetric):
    """Mean cosine similarity between the question and questions the response answers;
    0 for a noncommittal response."""

    pipeline_parts = ("retrieval", "generation")

    calls_per_sample = "1, plus embeddings"

    Options = AnswerRelevancyOptions
    options: AnswerRelevancyOptions
    requires: tuple[str, ...] = ("response",)
    meaning = ScoreMeaning(
        low=-1, high=1, description="how well the response addresses the question"
    )

    def embedding_specs(self) -> list[str]:
        """The embedder of the questions."""
        return [self.options.embedding]

    async def judge(self, sample: Sample, output: Output, j: Judging) -> Produced:
        """One call for the questions, then one embedding batch."""
        reply: GeneratedQuestions = (
            await j.ask(
                JsonReply(GeneratedQuestions),
                "answer_relevancy.jinja",
                answer=require_response(output),
                count=self.options.questions,
            )
        ).value
        questions = [q.strip() for q in reply.questions if q.strip()][: self.options.questions]
        similarities = await cosine(j.ctx, self.options.embedding, sample.request.query, questions)
        details: dict[str, Any] = {
            "questions": [
                {"question": q, "similarity": s}
                for q, s in zip(questions, similarities, strict=True)
            ],
            "noncommittal": bool(reply.noncommittal),
            "size": len(questions),
        }
        if reply.noncommittal:
            return Result(0.0, rationale="the response is noncommittal", details=details)
        return Result(sum(similarities) / len(similarities), details=details)

"""``answer_correctness`` (RAGAS): factual agreement with the reference, plus similarity.

The statements of the response (shared with ``faithfulness``) and of the reference
answer are classified in one call: TP (an answer statement the reference supports), FP
(one it does not), FN (a reference statement the answer lacks), each with a reason.
``F1 = TP / (TP + 0.5·(FP + FN))``, 0 when TP is 0; the score is
``w₁·F1 + w₂·similarity`` with ``weights: [0.75, 0.25]`` by default (the similarity is
``answer_similarity``'s cosine). The TP/FP/FN lists are stored in the details.

Rules: a response with no statement has TP = 0, so F1 = 0 (it answers nothing); a
reference with no statement is an error; a classification that leaves an answer
statement unclassified or classifies it twice is re-asked, then an error.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, Field, model_validator

from ragjudge.metrics._base import (
    MetricFailure,
    MetricOptions,
    Produced,
    Result,
    references,
    require_response,
)
from ragjudge.metrics._judged import JudgedMetric, Judging
from ragjudge.metrics._registry import register_metric
from ragjudge.metrics.ragas._common import statements_of
from ragjudge.metrics.ragas.answer_similarity import best_similarity
from ragjudge.metrics.replies import JsonReply, ParseError, Reply
from ragjudge.schema import Output, Sample, ScoreMeaning


class AnswerItem(BaseModel):
    answer_statement: int = Field(ge=1)
    reason: str


class ReferenceItem(BaseModel):
    reference_statement: int = Field(ge=1)
    reason: str


class Classification(BaseModel):
    TP: list[AnswerItem] = Field(default_factory=list)
    FP: list[AnswerItem] = Field(default_factory=list)
    FN: list[ReferenceItem] = Field(default_factory=list)


class ClassificationReply(Reply[Classification]):
    """TP/FP/FN with every answer statement classified exactly once."""

    def __init__(self, answers: int, references: int) -> None:
        self.answers = answers
        self.references = references
        self._json = JsonReply(Classification)

    def parse(self, text: str, *, evaluated: Sequence[str] = ()) -> Classification:
        """The classification, checked against the statement counts."""
        found = self._json.parse(text, evaluated=evaluated)
        numbers = sorted(item.answer_statement for item in (*found.TP, *found.FP))
        if numbers != list(range(1, self.answers + 1)):
            raise ParseError(
                f"classify each of the {self.answers} answer statements exactly once as TP or FP"
            )
        if any(item.reference_statement > self.references for item in found.FN):
            raise ParseError(f"FN refers to a reference statement beyond {self.references}")
        return found

    def reply_schema(self) -> dict[str, Any]:
        """The classification's JSON schema."""
        return self._json.reply_schema()

    def stand_in(self) -> str:
        """Every answer statement a TP."""
        tp = ", ".join(
            f'{{"answer_statement": {i}, "reason": "(dry run)"}}'
            for i in range(1, self.answers + 1)
        )
        return f'{{"TP": [{tp}], "FP": [], "FN": []}}'


class CorrectnessOptions(MetricOptions):
    weights: list[float] = Field(default=[0.75, 0.25], min_length=2, max_length=2)
    """Weights of F1 and of the similarity (they are normalised to sum to 1)."""
    embedding: str = "local"

    @model_validator(mode="after")
    def _check_weights(self) -> CorrectnessOptions:
        if min(self.weights) < 0 or sum(self.weights) <= 0:
            raise ValueError("weights must be two non-negative numbers that are not both 0")
        return self


def f1(tp: int, fp: int, fn: int) -> float:
    """``TP / (TP + 0.5·(FP + FN))``; 0 when TP is 0."""
    return tp / (tp + 0.5 * (fp + fn)) if tp else 0.0


@register_metric("answer_correctness")
class AnswerCorrectness(JudgedMetric):
    """Weighted F1 of TP/FP/FN statements and semantic similarity to the reference."""

    pipeline_parts = ("end to end",)

    calls_per_sample = (
        "2 (reference statements, classification) + the response's statements "
        "(shared with faithfulness); plus embeddings"
    )

    Options = CorrectnessOptions
    options: CorrectnessOptions
    requires: tuple[str, ...] = ("response", "expected_response")
    meaning = ScoreMeaning(low=-0.25, high=1, description="factual agreement with the reference")

    def embedding_specs(self) -> list[str]:
        """The embedder of the similarity part."""
        return [self.options.embedding]

    async def judge(self, sample: Sample, output: Output, j: Judging) -> Produced:
        """Statements of both (the response's shared), one classification call, one
        embedding batch."""
        question, response = sample.request.query, require_response(output)
        reference = references(sample)[0][1]
        answer_statements = await statements_of(j, question, response)
        reference_statements = await statements_of(j, question, reference)
        if not reference_statements:
            raise MetricFailure("the reference makes no statement to compare with")
        similarity, _ = await best_similarity(j.ctx, self.options.embedding, response, sample)
        lists: dict[str, list[dict[str, Any]]] = {"TP": [], "FP": [], "FN": []}
        if answer_statements:
            found = (
                await j.ask(
                    ClassificationReply(len(answer_statements), len(reference_statements)),
                    "answer_correctness.jinja",
                    question=question,
                    answer_statements=answer_statements,
                    reference_statements=reference_statements,
                )
            ).value
            lists = _named(found, answer_statements, reference_statements)
        else:
            lists["FN"] = [
                {"statement": s, "reason": "the response makes no statement"}
                for s in reference_statements
            ]
        score_f1 = f1(len(lists["TP"]), len(lists["FP"]), len(lists["FN"]))
        w_f1, w_sim = self.options.weights
        value = (w_f1 * score_f1 + w_sim * similarity) / (w_f1 + w_sim)
        counts = {name: len(items) for name, items in lists.items()}
        return Result(
            value,
            rationale=f"TP {counts['TP']}, FP {counts['FP']}, FN {counts['FN']}; F1 {score_f1:.3f}, similarity {similarity:.3f}",
            details={
                **lists,
                "f1": score_f1,
                "similarity": similarity,
                "size": len(answer_statements) + len(reference_statements),
            },
        )


def _named(
    found: Classification, answers: list[str], references: list[str]
) -> dict[str, list[dict[str, Any]]]:
    """The classification with statement texts instead of numbers."""
    return {
        "TP": [
            {"statement": answers[i.answer_statement - 1], "reason": i.reason} for i in found.TP
        ],
        "FP": [
            {"statement": answers[i.answer_statement - 1], "reason": i.reason} for i in found.FP
        ],
        "FN": [
            {"statement": references[i.reference_statement - 1], "reason": i.reason}
            for i in found.FN
        ],
    }

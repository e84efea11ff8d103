"""Answer accuracy judged with contexts retrieved with the question AND the reference
answer (seed 000, method I; its Figure 5 prompt).

The judge sees the question, the response, the reference answer (score 5; the first
non-blank one when the row has several) and evaluation contexts, and gives a score on
a 0–5 scale with feedback. Which contexts:

- ``reference`` (E3, the default): retrieved with the question and the reference answer
  together, so an answer that merely agrees with the passages it was generated from is
  not rewarded;
- ``question`` (E2): retrieved with the question alone (what the system itself saw);
- ``retrieved``: the contexts the target returned;
- ``none``: no contexts.

0 means the response says it is not sure; the aggregate mean leaves 0 out (as in the
paper) and reports how many were left out beside it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from ragjudge.metrics._base import (
    Metric,
    MetricContext,
    positive_int,
    register_metric,
    response_and_references,
)
from ragjudge.models._types import ModelError
from ragjudge.models.parsing import parse_result_score
from ragjudge.prompts import user_message
from ragjudge.schema import ContextChunk, Output, Sample, Score

CONTEXT_SOURCES: tuple[str, ...] = ("reference", "question", "retrieved", "none")
SCORE_RANGE = range(0, 6)
TEMPLATES = "ragjudge.metrics.templates"


@dataclass
class Judgement:
    """One judge verdict: a score 0–5 with feedback, or an error; the call ids either way."""

    score: int | None
    feedback: str | None
    error: str | None
    call_ids: list[int] = field(default_factory=list)


def evaluation_query(question: str, reference: str | None) -> str:
    """The query that E3 retrieves with: the question and the reference answer together."""
    return question if not reference else f"{question}\n{reference}"


async def evaluation_contexts(
    source: str, sample: Sample, output: Output, reference: str, ctx: MetricContext, k: int
) -> list[ContextChunk]:
    """The at most ``k`` contexts the judge is shown: retrieved with the question and
    ``reference`` (``reference``, E3) or the question alone (``question``, E2), the
    target's own (``retrieved``), the row's ``expected_retrieved_context``
    (``expected``), or none (``none``)."""
    if source == "none":
        return []
    if source == "retrieved":
        return list(output.retrieved_context or [])[:k]
    if source == "expected":
        return list(sample.expected_retrieved_context or [])[:k]
    if ctx.retriever is None:
        raise ValueError(
            f"contexts '{source}' need a retriever: configure 'knowledge_base' (or a retriever)"
        )
    question = sample.request.query
    query = evaluation_query(question, reference) if source == "reference" else question
    found: list[ContextChunk] = await ctx.retriever.search(query, k)
    return found


async def judge_answer(
    ctx: MetricContext,
    *,
    question: str,
    response: str,
    reference: str,
    contexts: Sequence[ContextChunk],
    purpose: str,
) -> Judgement:
    """Ask the judge for a 0–5 score with feedback (Figure 5 prompt, ``[RESULT] n``).

    A reply without a readable result is re-asked by the model layer and then
    recorded as a parse error; a failed call is an error too — never a score."""
    if ctx.judge is None:
        return Judgement(None, None, "no judge model configured")
    messages = user_message(
        TEMPLATES,
        "answer_accuracy.jinja",
        question=question,
        response=response,
        reference=reference,
        contexts=list(contexts),
    )
    try:
        parsed = await ctx.judge.generate_parsed(
            messages,
            lambda text: parse_result_score(text, allowed=SCORE_RANGE),
            ctx.generate_config,
            trial=ctx.trial,
            purpose=purpose,
        )
    except ModelError as exc:
        return Judgement(
            None, None, f"judge call failed: {exc}", list(getattr(exc, "call_ids", []))
        )
    if parsed.value is None:
        return Judgement(None, None, parsed.error or "parse error", parsed.call_ids)
    score, feedback = parsed.value
    return Judgement(score, _strip_label(feedback), None, parsed.call_ids)


def _strip_label(feedback: str) -> str:
    text = feedback.strip()
    return text[len("Feedback:") :].strip() if text.lower().startswith("feedback:") else text


class AnswerAccuracy(Metric):
    """0–5 answer accuracy against the first non-blank reference answer, judged with
    ``k`` evaluation contexts chosen by ``contexts`` (see the module docstring)."""

    name = "answer_accuracy"
    requires: tuple[str, ...] = ("response", "expected_response")
    exclude_from_mean = (0.0,)
    needs_judge = True
    dry_run_reply = "Feedback: (dry run) [RESULT] 3"

    def __init__(self, *, contexts: str = "reference", k: int = 5) -> None:
        if contexts not in CONTEXT_SOURCES:
            raise ValueError(
                f"answer_accuracy: contexts must be one of {', '.join(CONTEXT_SOURCES)}, "
                f"not {contexts!r}"
            )
        self.contexts = contexts
        self.needs_retriever = contexts in ("reference", "question")
        self.k = positive_int("answer_accuracy", "k", k)
        if contexts == "retrieved":
            self.requires = ("response", "expected_response", "retrieved_context")

    async def score(self, sample: Sample, output: Output, ctx: MetricContext) -> Score:
        """Judge the response against the reference with the evaluation contexts."""
        found = response_and_references(self.name, sample, output)
        if isinstance(found, Score):
            return found
        response, references = found
        reference = references[0][1]
        contexts = await evaluation_contexts(self.contexts, sample, output, reference, ctx, self.k)
        verdict = await judge_answer(
            ctx,
            question=sample.request.query,
            response=response,
            reference=reference,
            contexts=contexts,
            purpose=self.name,
        )
        return Score(
            metric=self.name,
            value=None if verdict.score is None else float(verdict.score),
            error=verdict.error,
            rationale=verdict.feedback,
            details={"contexts": self.contexts, "context_doc_uris": [c.doc_uri for c in contexts]},
            judge_call_ids=verdict.call_ids,
        )


# The class is its own factory: its keyword arguments are the metric's options.
register_metric("answer_accuracy")(AnswerAccuracy)

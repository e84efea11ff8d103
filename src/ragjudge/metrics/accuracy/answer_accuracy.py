"""Answer accuracy with reference-retrieved contexts: the judge sees contexts retrieved
with the question AND the reference answer (the method and judge prompt of the paper
cited in ``docs/validation.md``).

The judge sees the question, the response, the reference answer (score 5) and
evaluation contexts chosen by ``contexts`` (:data:`~ragjudge.metrics.ContextSource`:
``reference``, reference-retrieved contexts, the default; ``retrieved``, the contexts
the system itself answered from; ``question``, question-retrieved contexts from the
evaluation retriever, the same as ``retrieved`` only when that retriever is the
system's own search; ``expected``; ``none``), and gives a score on a 0–5 scale with feedback. 0
means the response says it is not sure; the aggregate mean leaves 0 out (as in the
paper) and reports how many were left out beside it.

**Several references.** A row may carry several reference answers (QA sets with
several gold answers). All non-blank ones are shown to the judge together, each in
its own delimited block, as alternatives: each is a correct answer worth 5, and a
response that implies any one of them is correct. Reference-retrieved contexts are
retrieved once, with the question and every reference together
(:func:`~ragjudge.metrics.evaluation_query`). With one reference the prompt is the
paper's, unchanged.
"""

from __future__ import annotations

from collections.abc import Sequence

from ragjudge.metrics._base import (
    MetricFailure,
    Produced,
    Result,
    references,
    require_response,
)
from ragjudge.metrics._contexts import (
    JUDGE_CONTEXTS,
    ContextOptions,
    evaluation_contexts,
    searches,
    shown_contexts,
)
from ragjudge.metrics._judged import JudgedMetric, Judging, Verdict
from ragjudge.metrics._registry import register_metric
from ragjudge.metrics.replies import ResultScore, ResultVerdict
from ragjudge.schema import ContextChunk, Output, Sample, ScoreMeaning

ACCURACY_REPLY = ResultScore(0, 5)


async def ask_accuracy(
    j: Judging,
    *,
    question: str,
    response: str,
    references: Sequence[str],
    contexts: Sequence[ContextChunk],
    purpose: str | None = None,
) -> Verdict[ResultVerdict]:
    """The answer-accuracy judge: a 0–5 score with feedback for ``response`` against one or
    several ``references`` (also the judge of each turn of a multi-turn dialogue)."""
    return await j.ask(
        ACCURACY_REPLY,
        "answer_accuracy.jinja",
        purpose=purpose,
        question=question,
        response=response,
        references=list(references),
        contexts=list(contexts),
    )


@register_metric("answer_accuracy")
class AnswerAccuracy(JudgedMetric):
    """0–5 answer accuracy against the row's reference answers (all shown together),
    judged with ``k`` evaluation contexts chosen by ``contexts`` (see the module
    docstring)."""

    pipeline_parts = ("end to end",)

    calls_per_sample = "1"

    Options = ContextOptions
    options: ContextOptions
    meaning = ScoreMeaning(
        low=0,
        high=5,
        excluded=(0.0,),
        description="accuracy of the response against the reference, 0-5 (0: not sure)",
    )

    @property
    def requires(self) -> tuple[str, ...]:  # type: ignore[override]
        """The response and a reference; the target's contexts for ``retrieved``."""
        extra = ("retrieved_context",) if self.options.contexts == "retrieved" else ()
        return ("response", "expected_response", *extra)

    @property
    def needs_retriever(self) -> bool:
        """Whether ``contexts`` searches (``reference`` or ``question``)."""
        return searches(self.options.contexts)

    async def judge(self, sample: Sample, output: Output, j: Judging) -> Produced:
        """Judge the response against the reference with the evaluation contexts."""
        response = require_response(output)
        answers = [text for _, text in references(sample)]
        source, k = self.options.contexts, self.options.k
        try:
            contexts = await evaluation_contexts(source, sample, output, answers, j.ctx, k)
        except ValueError as exc:
            raise MetricFailure(str(exc)) from None
        details = {
            "contexts": source,
            "context_doc_uris": [c.doc_uri for c in contexts],
            "references": len(answers),
            JUDGE_CONTEXTS: shown_contexts(contexts),
        }
        try:
            verdict = await ask_accuracy(
                j,
                question=sample.request.query,
                response=response,
                references=answers,
                contexts=contexts,
            )
        except MetricFailure as exc:
            exc.details.update(details)
            raise
        return Result(float(verdict.value.score), rationale=verdict.value.feedback, details=details)

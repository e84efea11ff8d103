"""``context_relevancy`` (RAGAS): how much of the retrieved contexts the question needs.

The judge copies the context sentences absolutely required to answer the question
(or replies "Insufficient Information" → 0). Both the contexts and the extraction are
split into sentences language-aware (Japanese too); the score is the number of
extracted sentences that are sentences of the contexts over the number of context
sentences. An extracted sentence that is not in the contexts (the judge paraphrased)
does not count, so the judge cannot raise the score by inventing text.

Rules: no contexts (or contexts with no sentence) is an error: the share is undefined.
"""

from __future__ import annotations

from collections.abc import Sequence

from ragjudge.metrics._base import MetricFailure, Produced, Result
from ragjudge.metrics._judged import JudgedMetric, Judging
from ragjudge.metrics._registry import register_metric
from ragjudge.metrics.ragas._common import retrieved_contexts, sentences_of
from ragjudge.metrics.replies import ParseError, Reply
from ragjudge.schema import Output, Sample, ScoreMeaning
from ragjudge.text._normalise import normalize, split_sentences

INSUFFICIENT = "insufficient information"


class ExtractedSentences(Reply[list[str]]):
    """Sentences one per line, copied from the contexts, or ``Insufficient Information``
    (no sentence). A reply none of whose sentences is a context sentence did not follow
    the instruction: a parse error (the judge is asked again), never a silent 0."""

    def __init__(self, context_sentences: Sequence[str]) -> None:
        self.context_sentences = list(context_sentences)
        self._known = {sentence_key(s) for s in self.context_sentences}

    def parse(self, text: str, *, evaluated: Sequence[str] = ()) -> list[str]:
        """The extracted sentences that are context sentences (none for "Insufficient
        Information")."""
        lines = [line.strip().lstrip("-*•0123456789.) ").strip() for line in text.splitlines()]
        lines = [line.strip("\"'“”「」") for line in lines if line]
        if not lines:
            raise ParseError("empty reply: give the sentences, or 'Insufficient Information'")
        if len(lines) == 1 and normalize(lines[0]).strip(".。 ") == INSUFFICIENT:
            return []
        sentences = [s for line in lines for s in split_sentences(line) if s.strip()]
        found = [s for s in sentences if sentence_key(s) in self._known]
        if not found:
            raise ParseError(
                "none of the reply's sentences is a sentence of the context documents: copy "
                "the needed sentences exactly, one per line, or reply 'Insufficient Information'"
            )
        return found

    def stand_in(self) -> str:
        """The first context sentence."""
        return self.context_sentences[0] if self.context_sentences else "Insufficient Information"


def sentence_key(sentence: str) -> str:
    """A sentence compared ignoring case, width, spacing and final punctuation."""
    return " ".join(normalize(sentence).split()).rstrip(".。!！?？ ")


@register_metric("context_relevancy")
class ContextRelevancy(JudgedMetric):
    """Share of the context sentences the judge finds needed for the question."""

    calls_per_sample = "1"

    requires: tuple[str, ...] = ("retrieved_context",)
    meaning = ScoreMeaning(description="share of the context sentences the question needs")
    reply_copies_data = True  # only sentences of the contexts count

    async def judge(self, sample: Sample, output: Output, j: Judging) -> Produced:
        """One extraction call; counted against the context sentences."""
        contexts = retrieved_contexts(sample, output)
        sentences = sentences_of(contexts)
        if not sentences:
            raise MetricFailure("no context sentences to judge (context relevancy undefined)")
        extracted = (
            await j.ask(
                ExtractedSentences(sentences),
                "context_relevancy.jinja",
                question=sample.request.query,
                contexts=contexts,
            )
        ).value
        found = sorted({sentence_key(s) for s in extracted})
        details = {
            "extracted": extracted,
            "matched": len(found),
            "context_sentences": len(sentences),
            "size": len(sentences),
        }
        if not extracted:
            return Result(0.0, rationale="Insufficient Information", details=details)
        return Result(
            min(1.0, len(found) / len(sentences)),
            rationale=f"{len(found)} of {len(sentences)} context sentences needed",
            details=details,
        )

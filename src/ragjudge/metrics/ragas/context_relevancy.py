"""``context_relevancy`` (RAGAS): how much of the retrieved contexts the question needs.

The judge extracts the context sentences absolutely required to answer the question
(or replies "Insufficient Information" → 0). Both the contexts and the extraction are
split into sentences language-aware (Japanese too), and each extracted sentence is
matched to a context sentence: equal once normalised (Unicode NFKC, case, width,
whitespace, punctuation), else the most similar in words when the similarity reaches
``match_threshold`` — a judge that changed a copied sentence a little still counts it.
The score is the number of distinct context sentences matched over the number of
context sentences. An extracted sentence matching no context sentence (the judge's own
text) does not count and is listed in the details, so the judge cannot raise the score
by inventing text; several extracted sentences matching one context sentence count once.

Rules: no contexts (or contexts with no sentence) is an error: the share is undefined.
A reply none of whose sentences matches a context sentence is asked again, then an error.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import Field

from ragjudge.metrics._base import MetricFailure, MetricOptions, Produced, Result
from ragjudge.metrics._judged import JudgedMetric, Judging
from ragjudge.metrics._registry import register_metric
from ragjudge.metrics.ragas._common import retrieved_contexts, sentences_of
from ragjudge.metrics.ragas._matching import (
    DEFAULT_THRESHOLD,
    ContextSentences,
    SentenceMatch,
    sentence_key,
)
from ragjudge.metrics.replies import ParseError, Reply
from ragjudge.schema import Output, Sample, ScoreMeaning
from ragjudge.text._normalise import normalize, split_sentences

INSUFFICIENT = "insufficient information"


class ExtractedSentences(Reply[list[SentenceMatch]]):
    """Sentences one per line, copied from the contexts, or ``Insufficient Information``
    (no sentence), each matched to a context sentence. A reply none of whose sentences
    matches a context sentence did not follow the instruction: a parse error (the judge
    is asked again), never a silent 0."""

    def __init__(self, context_sentences: Sequence[str], threshold: float) -> None:
        self.context = ContextSentences(context_sentences)
        self.threshold = threshold

    def parse(self, text: str, *, evaluated: Sequence[str] = ()) -> list[SentenceMatch]:
        """Every extracted sentence with the context sentence it matches (none for
        "Insufficient Information")."""
        lines = [line.strip().lstrip("-*•0123456789.) ").strip() for line in text.splitlines()]
        lines = [line.strip("\"'“”「」") for line in lines if line]
        if not lines:
            raise ParseError("empty reply: give the sentences, or 'Insufficient Information'")
        if len(lines) == 1 and normalize(lines[0]).strip(".。 ") == INSUFFICIENT:
            return []
        sentences = [s for line in lines for s in split_sentences(line) if sentence_key(s)]
        matches = [self.context.match(s, self.threshold) for s in sentences]
        if not any(m.index is not None for m in matches):
            raise ParseError(
                "none of the reply's sentences is a sentence of the context documents: copy "
                "the needed sentences exactly, one per line, or reply 'Insufficient Information'"
            )
        return matches

    def stand_in(self) -> str:
        """The first context sentence."""
        return self.context.sentences[0] if self.context.sentences else "Insufficient Information"


class ContextRelevancyOptions(MetricOptions):
    match_threshold: float = Field(default=DEFAULT_THRESHOLD, gt=0.0, le=1.0)
    """How similar in words (0–1, the Dice coefficient) an extracted sentence must be to
    a context sentence to count as that sentence when the two are not equal; 1 counts
    only sentences copied exactly (up to case, width, whitespace and punctuation)."""


def match_details(matches: Sequence[SentenceMatch], context: Sequence[str]) -> dict[str, Any]:
    """Each extracted sentence with the context sentence it matched, and those that
    matched none."""
    return {
        "extracted": [m.sentence for m in matches],
        "matches": [
            {
                "sentence": m.sentence,
                "context_sentence": context[m.index],
                "similarity": m.similarity,
            }
            for m in matches
            if m.index is not None
        ],
        "unmatched": [m.sentence for m in matches if m.index is None],
    }


@register_metric("context_relevancy")
class ContextRelevancy(JudgedMetric):
    """Share of the context sentences the judge finds needed for the question."""

    pipeline_parts = ("retrieval",)

    calls_per_sample = "1"

    Options = ContextRelevancyOptions
    options: ContextRelevancyOptions
    requires: tuple[str, ...] = ("retrieved_context",)
    meaning = ScoreMeaning(description="share of the context sentences the question needs")
    reply_copies_data = True  # only sentences matching the contexts count

    async def judge(self, sample: Sample, output: Output, j: Judging) -> Produced:
        """One extraction call; its sentences matched to the context sentences."""
        contexts = retrieved_contexts(sample, output)
        sentences = sentences_of(contexts)
        if not sentences:
            raise MetricFailure("no context sentences to judge (context relevancy undefined)")
        matches = (
            await j.ask(
                ExtractedSentences(sentences, self.options.match_threshold),
                "context_relevancy.jinja",
                question=sample.request.query,
                contexts=contexts,
            )
        ).value
        matched = len({m.index for m in matches if m.index is not None})
        details = {
            **match_details(matches, sentences),
            "matched": matched,
            "context_sentences": len(sentences),
            "size": len(sentences),
        }
        if not matches:
            return Result(0.0, rationale="Insufficient Information", details=details)
        return Result(
            matched / len(sentences),
            rationale=f"{matched} of {len(sentences)} context sentences needed",
            details=details,
        )

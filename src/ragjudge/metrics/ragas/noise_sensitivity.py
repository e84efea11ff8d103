"""``noise_sensitivity`` (RAGAS): how often the response states something wrong that it
took from the retrieved chunks. Lower is better.

The claims of the response and of the reference are the statements ``faithfulness``
and ``answer_correctness`` extract (shared). A response claim is incorrect when the
reference answer does not support it (the check ``factual_correctness`` makes for its
precision, shared). A retrieved chunk is relevant when it supports at least one claim of
the reference. A claim is taken up from a relevant chunk when some relevant chunk
supports it, and from an irrelevant chunk when an irrelevant chunk supports it and no
relevant one does. ``focus: relevant`` (the default) scores the share of the response's
claims that are incorrect and taken up from a relevant chunk; ``focus: irrelevant`` the
share that are incorrect and taken up from an irrelevant chunk only.

Rules: a response with no claim is an error (the share is undefined), as is a reference
with no claim when a chunk must be judged; a response none of whose claims is incorrect,
or a target that retrieved nothing, scores 0 without judging chunks (nothing incorrect
was taken up); each chunk is judged in one call over the reference's claims and the
incorrect claims; a verdict count that differs from the claim count is re-asked, then an
error.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

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
from ragjudge.metrics.ragas._claims import CHUNK_PURPOSE, DOCUMENT, REFERENCE, supported
from ragjudge.metrics.ragas._common import retrieved_contexts, statements_of
from ragjudge.schema import ContextChunk, Output, Sample, ScoreMeaning


class NoiseOptions(MetricOptions):
    focus: Literal["relevant", "irrelevant"] = "relevant"
    """Which chunks' wrong claims are counted: those of relevant chunks (chunks that
    support the reference) or those of irrelevant ones."""


@dataclass(frozen=True)
class ChunkSupport:
    """What one chunk supports: whether it is relevant (it supports a reference claim)
    and, for each incorrect response claim, whether it supports that claim."""

    relevant: bool
    supports: list[bool]


@register_metric("noise_sensitivity")
class NoiseSensitivity(JudgedMetric):
    """Share of the response's claims that are incorrect and taken up from relevant (or
    irrelevant) retrieved chunks; lower is better."""

    pipeline_parts = ("generation",)

    calls_per_sample = (
        "1 (the response's claims against the reference, shared with factual_correctness) "
        "+ the claims of both (shared with faithfulness and answer_correctness) "
        "+ 1 per retrieved chunk when a response claim is incorrect"
    )

    Options = NoiseOptions
    options: NoiseOptions
    requires: tuple[str, ...] = ("response", "expected_response", "retrieved_context")
    meaning = ScoreMeaning(
        direction="lower",
        description="share of the response's claims that are wrong and taken from the chunks",
    )

    async def judge(self, sample: Sample, output: Output, j: Judging) -> Produced:
        """Response claims, their check against the reference, then one call per chunk
        over the reference's claims and the incorrect response claims."""
        question, response = sample.request.query, require_response(output)
        reference = references(sample)[0][1]
        claims = await statements_of(j, question, response)
        if not claims:
            raise MetricFailure("the response makes no claim (noise sensitivity undefined)")
        correct = await supported(j, claims, reference, REFERENCE)
        incorrect = [c for c, ok in zip(claims, correct, strict=True) if not ok]
        chunks = retrieved_contexts(sample, output)
        details: dict[str, Any] = {"focus": self.options.focus, "size": len(claims)}
        if not incorrect or not chunks:
            why = "no incorrect claim" if not incorrect else "no retrieved chunks"
            details["claims"] = _claim_details(claims, correct, [])
            return Result(0.0, rationale=f"{why}: nothing wrong was taken up", details=details)
        reference_claims = await statements_of(j, question, reference)
        if not reference_claims:
            raise MetricFailure("the reference makes no claim to tell relevant chunks by")
        support = await asyncio.gather(
            *(_chunk_support(j, chunk, reference_claims, incorrect) for chunk in chunks)
        )
        counted = _counted_claims(support, len(incorrect), focus=self.options.focus)
        details["claims"] = _claim_details(claims, correct, counted)
        details["chunks"] = [
            {"doc_uri": chunk.doc_uri, "rank": rank, "relevant": s.relevant}
            for rank, (chunk, s) in enumerate(zip(chunks, support, strict=True), start=1)
        ]
        taken = sum(counted)
        rationale = (
            f"{taken} of {len(claims)} claims incorrect and taken from "
            f"{self.options.focus} chunks ({len(incorrect)} incorrect in all)"
        )
        return Result(taken / len(claims), rationale=rationale, details=details)


async def _chunk_support(
    j: Judging, chunk: ContextChunk, reference_claims: list[str], incorrect: list[str]
) -> ChunkSupport:
    """One call: which reference claims and which incorrect claims the chunk supports."""
    claims = [*reference_claims, *incorrect]
    verdicts = await supported(j, claims, chunk.content or "", DOCUMENT, CHUNK_PURPOSE)
    split = len(reference_claims)
    return ChunkSupport(relevant=any(verdicts[:split]), supports=verdicts[split:])


def _counted_claims(
    support: Sequence[ChunkSupport], claims: int, *, focus: Literal["relevant", "irrelevant"]
) -> list[bool]:
    """For each incorrect claim, whether it counts: supported by a relevant chunk (focus
    relevant), or by an irrelevant chunk and by no relevant one (focus irrelevant)."""
    from_relevant = [any(s.relevant and s.supports[i] for s in support) for i in range(claims)]
    if focus == "relevant":
        return from_relevant
    from_irrelevant = [
        any(not s.relevant and s.supports[i] for s in support) for i in range(claims)
    ]
    return [irr and not rel for irr, rel in zip(from_irrelevant, from_relevant, strict=True)]


def _claim_details(
    claims: list[str], correct: list[bool], counted: list[bool]
) -> list[dict[str, Any]]:
    """Each response claim: correct or not and, when incorrect and chunks were judged,
    whether it counted (``counted`` holds one flag per incorrect claim, in order)."""
    flags = iter(counted)
    listed: list[dict[str, Any]] = []
    for claim, ok in zip(claims, correct, strict=True):
        entry: dict[str, Any] = {"claim": claim, "correct": ok}
        if not ok and counted:
            entry["counted"] = next(flags)
        listed.append(entry)
    return listed

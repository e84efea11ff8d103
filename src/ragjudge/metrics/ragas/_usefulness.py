"""Chunk usefulness, shared by ``context_precision`` and ``context_utilization``: each
retrieved chunk judged useful or not for arriving at an answer (the reference for
precision, the response for utilization). All chunks in one call by default; with
``per_chunk`` one call per chunk, each chunk judged without the others in view (closer
to judging chunks independently, at the cost of one call per chunk). The verdicts are
computed once per sample and trial for the same question, answer and chunks, so
precision without a reference and utilization share them."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from pydantic import Field

from ragjudge.metrics._base import MetricOptions, Result
from ragjudge.metrics._judged import Judging
from ragjudge.metrics.ragas._common import CountedVerdicts, ItemVerdict, shared_ask
from ragjudge.schema import ContextChunk

PURPOSE = "ragas.chunk_usefulness"


class UsefulnessOptions(MetricOptions):
    per_chunk: bool = False
    """One judge call per chunk instead of one for all."""


class PrecisionOptions(UsefulnessOptions):
    ranked: bool = True
    """Rank-aware average precision; ``false`` gives the plain share of useful chunks."""
    max_chunks: int = Field(default=50, ge=1)


async def usefulness(
    j: Judging, question: str, answer: str, chunks: Sequence[ContextChunk], per_chunk: bool
) -> list[ItemVerdict]:
    """One verdict per chunk, in retrieval order."""
    if not per_chunk:
        return await _judge(j, question, answer, list(chunks))
    parts = await asyncio.gather(*(_judge(j, question, answer, [chunk]) for chunk in chunks))
    return [verdict for part in parts for verdict in part]


async def _judge(
    j: Judging, question: str, answer: str, chunks: list[ContextChunk]
) -> list[ItemVerdict]:
    key = ("usefulness", question, answer, tuple((c.doc_uri, c.content) for c in chunks))
    return await shared_ask(
        j,
        key,
        CountedVerdicts(len(chunks)),
        "chunk_usefulness.jinja",
        purpose=PURPOSE,
        question=question,
        answer=answer,
        contexts=chunks,
    )


def average_precision(useful: Sequence[bool]) -> float:
    """Mean of precision@k over the positions k of the useful chunks (0 without any)."""
    hits = 0
    total = 0.0
    for position, is_useful in enumerate(useful, start=1):
        if is_useful:
            hits += 1
            total += hits / position
    return total / hits if hits else 0.0


def usefulness_result(
    chunks: Sequence[ContextChunk], verdicts: Sequence[ItemVerdict], *, ranked: bool
) -> Result:
    """The precision (rank-aware or plain share) of the verdicts, with per-chunk details."""
    useful = [v.verdict == "yes" for v in verdicts]
    value = average_precision(useful) if ranked else sum(useful) / len(useful)
    return Result(
        value,
        rationale=f"{sum(useful)} of {len(useful)} chunks useful",
        details={
            "chunks": [
                {"doc_uri": c.doc_uri, "rank": i, "useful": u, "reason": v.reason}
                for i, (c, u, v) in enumerate(zip(chunks, useful, verdicts, strict=True), start=1)
            ],
            "ranked": ranked,
            "size": len(chunks),
        },
    )

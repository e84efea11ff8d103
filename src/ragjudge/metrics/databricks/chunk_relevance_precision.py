"""``retrieval/llm_judged/chunk_relevance/precision``: the share of retrieved chunks
that are relevant to the request. A judge of Databricks Agent Evaluation:
one yes/no call per chunk; the details list every chunk's rating and rationale (the
``…/chunk_relevance/ratings`` and ``…/rationales`` columns of the Databricks table).
Runs an older version stored name it ``retrieval/llm_judged/chunk_relevance_precision``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ragjudge.metrics._base import Produced, Result
from ragjudge.metrics._judged import Judging, Verdict, ask_all, conversation
from ragjudge.metrics._registry import register_metric
from ragjudge.metrics._yesno import YES_NO
from ragjudge.metrics.databricks._shared import CONTEXTS, DatabricksJudge
from ragjudge.metrics.replies import YesNoVerdict
from ragjudge.schema import ContextChunk, Output, Sample, ScoreMeaning


@register_metric("chunk_relevance_precision")
class ChunkRelevancePrecision(DatabricksJudge):
    """Relevant chunks / retrieved chunks, each chunk judged on its own; needs the
    retrieved context (or a trace). No chunk at all leaves the precision undefined: a
    missing input."""

    pipeline_parts = ("retrieval",)

    calls_per_sample = "1 per retrieved chunk"

    requires: tuple[str, ...] = (CONTEXTS,)
    fixed_score_name = "retrieval/llm_judged/chunk_relevance/precision"
    meaning = ScoreMeaning(description="share of retrieved chunks relevant to the request")

    async def judge(self, sample: Sample, output: Output, j: Judging) -> Produced:
        """One call per retrieved chunk."""
        chunks = self.contexts(output)
        if not chunks:
            raise self.missing("the retriever returned no chunk: precision is undefined")
        values = conversation(sample)
        verdicts = await ask_all(
            [
                j.ask(YES_NO, "chunk_relevance.jinja", purpose=self.name, chunk=chunk, **values)
                for chunk in chunks
            ]
        )
        return precision(chunks, verdicts)


def precision(chunks: Sequence[ContextChunk], verdicts: Sequence[Verdict[YesNoVerdict]]) -> Result:
    """The share of relevant chunks, with each chunk's rating in the details."""
    rated: list[dict[str, Any]] = [
        {
            "position": i + 1,
            "doc_uri": chunk.doc_uri,
            "rating": v.value.label,
            "rationale": v.value.rationale,
        }
        for i, (chunk, v) in enumerate(zip(chunks, verdicts, strict=True))
    ]
    relevant = sum(v.value.yes for v in verdicts)
    return Result(
        relevant / len(chunks),
        rationale=f"{relevant} of {len(chunks)} retrieved chunks are relevant to the request",
        details={"relevant": relevant, "chunks": rated},
    )

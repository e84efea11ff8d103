"""Scoring one row with a retrieval metric, no judge."""

from __future__ import annotations

from typing import Any

from ragjudge.metrics import MetricContext, create_metric
from ragjudge.schema import ContextChunk, Output, Sample, Score


def expected(*items: str | tuple[str, Any]) -> list[dict[str, Any]]:
    """Expected documents: a doc_uri, or (doc_uri, grade)."""
    return [
        {"doc_uri": item} if isinstance(item, str) else {"doc_uri": item[0], "grade": item[1]}
        for item in items
    ]


def retrieved(*uris: str) -> list[ContextChunk]:
    return [ContextChunk(doc_uri=uri, content=f"text of {uri}") for uri in uris]


async def score_one(
    metric: str | dict[str, Any],
    found: list[ContextChunk] | None,
    wanted: list[dict[str, Any]] | None,
    ctx: MetricContext | None = None,
) -> Score:
    sample = Sample.model_validate(
        {"request_id": "r", "request": "q", "expected_retrieved_context": wanted}
    )
    output = Output(response="a", retrieved_context=found)
    (score,) = await create_metric(metric).score(sample, output, ctx or MetricContext())
    return score

"""Which contexts a judge is shown: one notion for every metric that shows contexts."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from pydantic import Field

from ragjudge.metrics._base import MetricContext, MetricOptions
from ragjudge.schema import ContextChunk, Output, Sample

__all__ = [
    "CONTEXT_SOURCES",
    "JUDGE_CONTEXTS",
    "ContextOptions",
    "ContextSource",
    "evaluation_contexts",
    "evaluation_query",
    "searches",
    "shown_contexts",
]

JUDGE_CONTEXTS = "judge_contexts"
"""The details key under which a metric lists the contexts its judge was shown, when
they are not the system's own retrieved ones (exports give them a column)."""

ContextSource = Literal["reference", "question", "retrieved", "expected", "none"]
"""``reference``: reference-retrieved contexts, retrieved with the question AND the
reference answer; ``retrieved``: the contexts the system under test returned with its
answer, the ones it answered from; ``question``: question-retrieved contexts, retrieved
with the question alone by the evaluation retriever — the contexts the system answered
from only when that retriever is the system's own search (``retriever: {kind: http}``),
an approximation of them with a separate knowledge base; ``expected``: the row's
``expected_retrieved_context``; ``none``: no contexts."""

CONTEXT_SOURCES: tuple[str, ...] = ("reference", "question", "retrieved", "expected", "none")
_SEARCHING = frozenset({"reference", "question"})


class ContextOptions(MetricOptions):
    """The options of a metric that shows the judge contexts."""

    contexts: ContextSource = "reference"
    k: int = Field(default=5, ge=1)
    """At most this many contexts."""


def searches(source: ContextSource) -> bool:
    """Whether ``source`` searches the evaluation retriever (a knowledge base or the
    system's own search endpoint)."""
    return source in _SEARCHING


def evaluation_query(question: str, reference: str | Sequence[str] | None) -> str:
    """The query of reference-retrieved contexts: the question and the reference answer together.
    With several references, one query holds the question and every reference, one per
    line (one search, not one per reference)."""
    found = [reference] if isinstance(reference, str) else list(reference or [])
    return "\n".join([question, *(r for r in found if r)])


async def evaluation_contexts(
    source: ContextSource,
    sample: Sample,
    output: Output,
    reference: str | Sequence[str],
    ctx: MetricContext,
    k: int,
) -> list[ContextChunk]:
    """The at most ``k`` contexts the judge is shown for ``source`` (see
    :data:`ContextSource`); ``reference`` is the reference answer, or all of them, that
    ``reference`` retrieves with. A searching source without a retriever is a
    ``ValueError``."""
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


def shown_contexts(contexts: list[ContextChunk]) -> list[dict[str, str | None]]:
    """The contexts a judge was shown, as stored in a score's details
    (:data:`JUDGE_CONTEXTS`)."""
    return [{"doc_uri": c.doc_uri, "content": c.content} for c in contexts]

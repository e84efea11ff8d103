"""Reading documents from context chunks: a chunk's document id (its ``doc_uri``,
spaces trimmed), whether that id was made up from a position (a context given as plain
text), the retrieved documents in rank order and the expected documents with their
grades. Shared by the rank metrics and ``document_recall``."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from ragjudge.metrics._base import MetricFailure, NotApplicable
from ragjudge.schema import ContextChunk, Output, Sample

__all__ = [
    "CONTEXTS",
    "GRADE_FIELD",
    "RankInputs",
    "derived_uri_problem",
    "document_id",
    "expected_grades",
    "has_derived_uri",
    "rank_inputs",
    "ranked_documents",
]

CONTEXTS = "retrieved_context|trace"
"""The retrieved context, or a trace whose last retriever span holds it."""

GRADE_FIELD = "grade"
"""The field of an expected chunk that holds its graded relevance (a number ≥ 0; 1
when absent, 0: not relevant)."""


def document_id(chunk: ContextChunk) -> str:
    """The document a chunk belongs to: its ``doc_uri``, spaces trimmed."""
    return chunk.doc_uri.strip()


def has_derived_uri(chunk: ContextChunk) -> bool:
    """Whether the chunk's ``doc_uri`` was made up from its position (plain text)."""
    return bool((chunk.model_extra or {}).get("doc_uri_derived"))


def derived_uri_problem(name: str, chunks: Sequence[ContextChunk]) -> str | None:
    """Why ``chunks`` (the input called ``name``) cannot be compared by document, or
    None when every chunk names its document."""
    if any(has_derived_uri(c) for c in chunks):
        return (
            f"the {name} is text without doc_uris (theirs are derived from positions); "
            "this metric compares document names"
        )
    return None


def ranked_documents(retrieved: Sequence[ContextChunk]) -> list[str | None]:
    """The document at each retrieved position; a later chunk of a document already
    seen is None: each document counts once, at its first position."""
    seen: set[str] = set()
    ranked: list[str | None] = []
    for chunk in retrieved:
        doc = document_id(chunk)
        ranked.append(None if doc in seen else doc)
        seen.add(doc)
    return ranked


def expected_grades(expected: Sequence[ContextChunk]) -> dict[str, float]:
    """Each expected document's grade (``grade``; 1 when absent; a document listed
    twice keeps its highest), in the order listed. A grade that is not a number ≥ 0 is
    a :class:`MetricFailure` naming the item."""
    grades: dict[str, float] = {}
    for position, chunk in enumerate(expected):
        doc = document_id(chunk)
        grade = _grade(chunk, position)
        grades[doc] = max(grade, grades.get(doc, grade))
    return grades


def _grade(chunk: ContextChunk, position: int) -> float:
    raw = (chunk.model_extra or {}).get(GRADE_FIELD, 1)
    if isinstance(raw, bool) or not isinstance(raw, int | float) or not math.isfinite(raw):
        raise MetricFailure(
            f"expected_retrieved_context[{position}].{GRADE_FIELD} ({chunk.doc_uri!r}) "
            f"must be a number of 0 or more, not {raw!r}"
        )
    if raw < 0:
        raise MetricFailure(
            f"expected_retrieved_context[{position}].{GRADE_FIELD} ({chunk.doc_uri!r}) "
            f"must be 0 or more, not {raw!r}"
        )
    return float(raw)


@dataclass(frozen=True)
class RankInputs:
    """What a rank metric reads from a row: the document at each retrieved position
    (None for a repeat) and the grade of each relevant expected document."""

    ranked: list[str | None]
    relevant: dict[str, float]

    def gains(self, k: int | None) -> list[float]:
        """The grade at each of the first ``k`` positions (all with None); 0 for a
        document not expected, or a repeat."""
        return [self.relevant.get(doc, 0.0) if doc else 0.0 for doc in self.ranked[:k]]


def rank_inputs(sample: Sample, output: Output) -> RankInputs:
    """The ranked retrieved documents and the relevant expected ones of a row. A
    missing input is a :class:`MetricFailure`; an empty expected list, or one whose
    every grade is 0, is :class:`NotApplicable`; an empty retrieval is a value."""
    if sample.expected_retrieved_context is None:
        raise MetricFailure("no expected_retrieved_context")
    if output.retrieved_context is None:
        raise MetricFailure("no retrieved context (nor a trace with a retriever span)")
    expected, retrieved = sample.expected_retrieved_context, output.retrieved_context
    for name, chunks in (
        ("expected_retrieved_context", expected),
        ("retrieved context", retrieved),
    ):
        if (problem := derived_uri_problem(name, chunks)) is not None:
            raise MetricFailure(problem)
    if not expected:
        raise NotApplicable("expected_retrieved_context is empty: no document to find")
    relevant = {doc: g for doc, g in expected_grades(expected).items() if g > 0}
    if not relevant:
        raise NotApplicable("every expected document has grade 0: no relevant document")
    return RankInputs(ranked_documents(retrieved), relevant)

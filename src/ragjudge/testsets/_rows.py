"""A kept candidate as a row of an evaluation set in ragjudge's own schema: the
question (or the dialogue ending in it), the reference answer, the expected facts, the
source chunks as ``expected_retrieved_context`` (verbatim chunks of the knowledge base),
and in ``metadata`` its kind, difficulty, persona, style, language and provenance."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from ragjudge.knowledge import Chunk
from ragjudge.schema import Sample
from ragjudge.store import StoredCandidate
from ragjudge.testsets._difficulty import difficulty_of
from ragjudge.testsets._types import Draft, Kind

__all__ = ["Provenance", "sample_row"]


@dataclass(frozen=True)
class Provenance:
    """Where every sample of a generation comes from."""

    generator: str
    """The generator model (``openai/gpt-4o-mini``)."""
    prompt_version: str
    seed: int
    generation_id: str


def sample_row(
    candidate: StoredCandidate,
    chunks: Mapping[str, Chunk],
    provenance: Provenance,
    reference: Literal["answer", "facts"] = "answer",
) -> dict[str, Any]:
    """The evaluation-set row of a kept candidate (validated as a :class:`Sample`).
    A row holds a reference answer or expected facts, not both (the schema's rule):
    ``reference`` says which one is ``expected_response`` / ``expected_facts``; the
    other is kept in ``metadata`` (``facts`` / ``reference_answer``)."""
    draft = Draft.model_validate(candidate.record["draft"])
    kind: Kind = candidate.kind  # type: ignore[assignment]
    sources = [chunks[chunk_id] for chunk_id in candidate.record["chunks"]]
    row: dict[str, Any] = {
        "request_id": candidate.candidate,
        "request": _request(draft),
    }
    if reference == "facts" and draft.facts:
        row["expected_facts"] = list(draft.facts)
    else:
        row["expected_response"] = draft.answer
    if kind != "unanswerable":
        row["expected_retrieved_context"] = [
            {"doc_uri": chunk.doc_uri, "content": chunk.content, "chunk_id": chunk.chunk_id}
            for chunk in sources
        ]
    row["metadata"] = _metadata(candidate, kind, sources, draft, provenance)
    if "expected_facts" in row:
        row["metadata"]["reference_answer"] = draft.answer
    elif draft.facts:
        row["metadata"]["facts"] = list(draft.facts)
    Sample.model_validate(row)
    return row


def _request(draft: Draft) -> str | dict[str, Any]:
    if not draft.turns:
        return draft.question
    messages: list[dict[str, str]] = []
    for turn in draft.turns:
        messages.append({"role": "user", "content": turn.user})
        messages.append({"role": "assistant", "content": turn.assistant})
    messages.append({"role": "user", "content": draft.question})
    return {"messages": messages}


def _metadata(
    candidate: StoredCandidate,
    kind: Kind,
    sources: list[Chunk],
    draft: Draft,
    provenance: Provenance,
) -> dict[str, Any]:
    difficulty = difficulty_of(kind, sources, draft.question, draft.turns)
    record = candidate.record
    return {
        "kind": kind,
        "difficulty": difficulty.level,
        "chunks_needed": difficulty.chunks_needed,
        "question_overlap": round(difficulty.overlap, 3),
        "language": record["language"],
        "persona": record["persona"],
        "style": record["style"],
        "provenance": {
            "generator": provenance.generator,
            "prompt_version": provenance.prompt_version,
            "seed": provenance.seed,
            "generation_id": provenance.generation_id,
            "candidate": candidate.candidate,
            "source_chunks": list(record["chunks"]),
            "checked_against": list(record["checked_against"]),
        },
    }

"""Documents of a knowledge base and the chunks cut from them."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from ragjudge.schema import ContextChunk


class Document(BaseModel):
    """One source document. ``doc_uri`` identifies it in retrieved contexts."""

    doc_uri: str
    content: str
    metadata: dict[str, Any] = Field(default_factory=dict)


class Chunk(BaseModel):
    """A contiguous piece of a document, the unit a retriever returns."""

    model_config = ConfigDict(frozen=True)

    chunk_id: str
    """``"{doc_uri}#{index}"``."""
    doc_uri: str
    content: str
    index: int
    """Position of the chunk within its document, from 0."""

    def to_context(self, score: float | None = None) -> ContextChunk:
        """This chunk as a context chunk (keeping ``chunk_id``), with a retrieval score."""
        return ContextChunk(
            doc_uri=self.doc_uri, content=self.content, score=score, chunk_id=self.chunk_id
        )

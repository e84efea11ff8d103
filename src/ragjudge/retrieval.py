"""Retrievers: ``search(query, k)`` over knowledge-base chunks.

:class:`BM25Retriever` is a sparse lexical retriever built on ``bm25s`` with the
toolkit's language-aware tokenizer, so Japanese queries match Japanese chunks word by
word.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

import bm25s
import numpy as np

from ragjudge.knowledge import Chunk, KnowledgeBase
from ragjudge.schema import ContextChunk
from ragjudge.text import tokenize

__all__ = ["BM25Retriever", "Retriever"]


@runtime_checkable
class Retriever(Protocol):
    """Anything that returns the ``k`` chunks most relevant to a query, best first."""

    async def search(self, query: str, k: int = 5) -> list[ContextChunk]:
        """The at most ``k`` best chunks for ``query``, each with its ``score``."""
        ...


class BM25Retriever:
    """Okapi BM25 (Lucene variant) over chunks.

    Only chunks sharing at least one token with the query are returned, so a search can
    give fewer than ``k`` results, or none when no query token occurs in the corpus.
    Repeated query tokens count once. Ties keep corpus order.
    """

    def __init__(self, chunks: Sequence[Chunk], *, k1: float = 1.5, b: float = 0.75) -> None:
        self.chunks: list[Chunk] = list(chunks)
        self.k1 = k1
        self.b = b
        self._index: Any = None
        corpus_tokens = [tokenize(chunk.content) for chunk in self.chunks]
        if any(corpus_tokens):
            self._index = bm25s.BM25(k1=k1, b=b)
            self._index.index(corpus_tokens, show_progress=False)

    @classmethod
    def from_knowledge_base(cls, kb: KnowledgeBase, **kw: Any) -> BM25Retriever:
        """Index every chunk of ``kb``; keyword arguments go to the constructor."""
        return cls(kb.chunks, **kw)

    async def search(self, query: str, k: int = 5) -> list[ContextChunk]:
        """The at most ``k`` chunks with the highest BM25 score for ``query``, best first."""
        if k < 0:
            raise ValueError(f"k must not be negative, got {k}")
        token_ids = self._query_token_ids(query)
        if k == 0 or not token_ids:
            return []
        scores = np.asarray(self._index.get_scores(token_ids), dtype=np.float64)
        # lexsort sorts by the last key first: score descending, then corpus position.
        order = np.lexsort((np.arange(scores.size), -scores))
        best = [int(i) for i in order[:k] if scores[i] > 0]
        return [self.chunks[i].to_context(score=float(scores[i])) for i in best]

    def _query_token_ids(self, query: str) -> list[int]:
        if self._index is None:
            return []
        vocab: dict[str, int] = self._index.vocab_dict
        tokens = dict.fromkeys(t for t in tokenize(query) if t in vocab)
        return [vocab[t] for t in tokens]

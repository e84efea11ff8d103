"""Retrievers: ``search(query, k)`` over knowledge-base chunks.

- :class:`BM25Retriever`: lexical, on ``bm25s`` with the language-aware tokenizer (so
  Japanese matches word by word); its ``rank`` is the same search without a loop.
- :class:`DenseRetriever` ranks chunks by the cosine similarity of their embeddings to
  the query's; the chunk embeddings can be cached on disk.
- :class:`HybridRetriever` fuses several retrievers' rankings by reciprocal rank fusion.

:func:`build_retriever` builds any of them for a knowledge base.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import threading
import warnings
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any, Literal, Protocol, get_args, runtime_checkable

import numpy as np
from numpy.typing import NDArray

from ragjudge.knowledge import Chunk, KnowledgeBase
from ragjudge.knowledge._bm25_index import ArrayBM25, token_ids_in_workers
from ragjudge.models._embeddings import Embedder, LocalEmbedder, get_embedder
from ragjudge.schema import ContextChunk
from ragjudge.text._normalise import tokenize

__all__ = [
    "BM25Retriever",
    "DenseRetriever",
    "HybridRetriever",
    "Retriever",
    "RetrieverKind",
    "build_retriever",
    "fuse_rankings",
]

RetrieverKind = Literal["bm25", "dense", "hybrid"]
RETRIEVER_KINDS: tuple[str, ...] = get_args(RetrieverKind)

# Bump when the layout of the cached index files changes.
_INDEX_FORMAT = 1


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
    Repeated query tokens count once. Ties keep corpus order. ``workers`` is how many
    processes tokenise the chunks (``None``: every usable CPU for chunks of at least 4 M
    characters in all); the default, 1, stays in the calling process, since handing the
    chunks to workers costs about what tokenising them on two cores saves. The index is
    the same either way.
    """

    def __init__(
        self,
        chunks: Sequence[Chunk],
        *,
        k1: float = 1.5,
        b: float = 0.75,
        workers: int | None = 1,
    ) -> None:
        self.chunks: list[Chunk] = list(chunks)
        self.k1 = k1
        self.b = b
        self._index: Any = None
        tokens = token_ids_in_workers([chunk.content for chunk in self.chunks], workers)
        if tokens.vocabulary:
            self._index = ArrayBM25(k1=k1, b=b)
            self._index.index_token_ids(tokens)

    @classmethod
    def from_knowledge_base(cls, kb: KnowledgeBase, **kw: Any) -> BM25Retriever:
        """Index every chunk of ``kb``; keyword arguments go to the constructor."""
        return cls(kb.chunks, **kw)

    async def search(self, query: str, k: int = 5) -> list[ContextChunk]:
        """The at most ``k`` chunks with the highest BM25 score for ``query``, best first."""
        return [self.chunks[i].to_context(score=value) for i, value in self.rank(query, k)]

    def rank(self, query: str, k: int = 5) -> list[tuple[int, float]]:
        """:meth:`search` without the event loop: the positions in :attr:`chunks` and
        the scores of the at most ``k`` best chunks for ``query``, best first."""
        _check_k(k)
        token_ids = self._query_token_ids(query)
        if k == 0 or not token_ids:
            return []
        scores = np.array(self._index.get_scores(token_ids))  # a copy to take the best from
        return _best_positive(scores, k)

    def _query_token_ids(self, query: str) -> list[int]:
        if self._index is None:
            return []
        vocab: dict[str, int] = self._index.vocab_dict
        tokens = dict.fromkeys(t for t in tokenize(query) if t in vocab)
        return [vocab[t] for t in tokens]


def _check_k(k: int) -> None:
    if k < 0:
        raise ValueError(f"k must not be negative, got {k}")


_PICKED_ONE_BY_ONE = 32
"""Up to this many results, the best are picked one by one (a pass over the scores
each), which for a handful beats any partial sort of ~100k scores."""


def _best_positive(scores: NDArray[Any], k: int) -> list[tuple[int, float]]:
    """Positions and values of the ``k`` highest positive scores, best first; ties keep
    corpus order (the same as :func:`_top_k` on the positive scores). ``scores`` is
    overwritten."""
    if k > _PICKED_ONE_BY_ONE:
        matching = np.flatnonzero(scores > 0)
        return [(int(i), float(scores[i])) for i in matching[_top_k(scores[matching], k)]]
    best: list[tuple[int, float]] = []
    for _ in range(min(k, scores.size)):
        position = int(scores.argmax())  # the first of equal highest scores
        value = float(scores[position])
        if value <= 0:
            break
        best.append((position, value))
        scores[position] = -1.0
    return best


def _top_k(scores: NDArray[Any], k: int) -> list[int]:
    """Positions of the ``k`` highest scores, best first; ties keep corpus order. Only
    the scores that can be among them are sorted: those at least as high as the
    ``k``-th highest, found by a partial selection (all of them, so a tie at the
    ``k``-th place goes to the earliest positions)."""
    if k <= 0 or scores.size == 0:
        return []
    candidates = np.arange(scores.size)
    if k < scores.size:
        threshold = np.partition(scores, scores.size - k)[scores.size - k]
        candidates = np.flatnonzero(scores >= threshold)
    # lexsort sorts by the last key first: score descending, then corpus position.
    order = candidates[np.lexsort((candidates, -scores[candidates]))]
    return [int(i) for i in order[:k]]


# --- dense ------------------------------------------------------------------------------


class DenseRetriever:
    """Cosine similarity between the query's embedding and each chunk's.

    The chunk embeddings are computed by :meth:`build`, which the first search calls
    when needed. With ``cache_dir`` they are stored there (a ``.npy`` matrix beside a
    small ``.json`` description), keyed by the chunks' content and the embedder's
    name: a later build over the same chunks with the same embedder reads them back
    instead of embedding again, and any change to the chunks makes a new entry. Stale
    entries are never read and can be deleted at any time.

    Every chunk is a candidate, so a search returns ``min(k, len(chunks))`` results;
    a blank query returns none.
    """

    def __init__(
        self,
        chunks: Sequence[Chunk],
        embedder: Embedder,
        *,
        cache_dir: str | Path | None = None,
    ) -> None:
        self.chunks: list[Chunk] = list(chunks)
        self.embedder = embedder
        self.cache_dir = Path(cache_dir) if cache_dir is not None else None
        self.loaded_from_cache = False
        """Whether the last :meth:`build` read the embeddings from the cache."""
        self._matrix: NDArray[np.float32] | None = None
        self._build_lock = asyncio.Lock()
        self._lock_loop: asyncio.AbstractEventLoop | None = None

    @classmethod
    def from_knowledge_base(
        cls, kb: KnowledgeBase, embedder: Embedder, *, cache_dir: str | Path | None = None
    ) -> DenseRetriever:
        """A dense retriever over every chunk of ``kb``."""
        return cls(kb.chunks, embedder, cache_dir=cache_dir)

    @property
    def is_built(self) -> bool:
        """Whether the chunk embeddings are ready."""
        return self._matrix is not None

    @property
    def cache_files(self) -> tuple[Path, Path] | None:
        """The ``.npy`` and ``.json`` files of this index in the cache (None: no cache)."""
        if self.cache_dir is None:
            return None
        stem = f"dense-{self._cache_key()[:32]}"
        return self.cache_dir / f"{stem}.npy", self.cache_dir / f"{stem}.json"

    async def build(self) -> None:
        """Embed the chunks, or read their embeddings from the cache; once."""
        async with self._lock():
            if self._matrix is not None:
                return
            matrix = await self._read_cache()
            self.loaded_from_cache = matrix is not None
            if matrix is None:
                matrix = await self._embed_chunks()
                await self._write_cache(matrix)
            self._matrix = matrix

    async def search(self, query: str, k: int = 5) -> list[ContextChunk]:
        """The at most ``k`` chunks most similar to ``query``, best first."""
        _check_k(k)
        if k == 0 or not self.chunks or not query.strip():
            return []
        await self.build()
        assert self._matrix is not None
        query_vectors = await self.embedder.embed([query])
        if query_vectors.shape != (1, self._matrix.shape[1]):
            raise ValueError(
                f"{self.embedder.name}: query vector of shape {query_vectors.shape} does not "
                f"match the index ({self._matrix.shape[1]} dimensions)"
            )
        scores = (self._matrix @ query_vectors[0]).astype(np.float64)
        return [self.chunks[i].to_context(score=float(scores[i])) for i in _top_k(scores, k)]

    def _lock(self) -> asyncio.Lock:
        # An asyncio.Lock belongs to one event loop, and a sync API may run each call
        # in a fresh loop: make a new lock whenever the loop changes.
        loop = asyncio.get_running_loop()
        if self._lock_loop is not loop:
            self._build_lock = asyncio.Lock()
            self._lock_loop = loop
        return self._build_lock

    async def _embed_chunks(self) -> NDArray[np.float32]:
        if not self.chunks:
            return np.zeros((0, 0), dtype=np.float32)
        matrix = await self.embedder.embed([chunk.content for chunk in self.chunks])
        if matrix.ndim != 2 or matrix.shape[0] != len(self.chunks):
            raise ValueError(
                f"{self.embedder.name}: embeddings of shape {matrix.shape} "
                f"for {len(self.chunks)} chunks"
            )
        return np.asarray(matrix, dtype=np.float32)

    @cached_property
    def _corpus_fingerprint(self) -> str:
        """SHA-256 over every chunk's id and content: what the embeddings depend on."""
        digest = hashlib.sha256()
        for chunk in self.chunks:
            for text in (chunk.chunk_id, chunk.content):
                data = text.encode("utf-8")
                digest.update(len(data).to_bytes(8, "big"))
                digest.update(data)
        return digest.hexdigest()

    def _cache_key(self) -> str:
        header = json.dumps(
            {"format": _INDEX_FORMAT, "embedder": self.embedder.name, "chunks": len(self.chunks)},
            sort_keys=True,
        )
        return hashlib.sha256(f"{header}\n{self._corpus_fingerprint}".encode()).hexdigest()

    def _description(self, matrix: NDArray[np.float32]) -> dict[str, Any]:
        return {
            "format": _INDEX_FORMAT,
            "embedder": self.embedder.name,
            "corpus_fingerprint": self._corpus_fingerprint,
            "chunks": len(self.chunks),
            "dimensions": int(matrix.shape[1]) if matrix.ndim == 2 else 0,
        }

    async def _read_cache(self) -> NDArray[np.float32] | None:
        files = self.cache_files
        if files is None:
            return None
        return await asyncio.to_thread(self._read_index_files, *files)

    def _read_index_files(
        self, matrix_file: Path, description_file: Path
    ) -> NDArray[np.float32] | None:
        """The cached matrix, or None when it is missing, unreadable or does not fit."""
        try:
            description = json.loads(description_file.read_text(encoding="utf-8"))
            matrix: NDArray[np.float32] = np.load(matrix_file, allow_pickle=False)
        except (OSError, ValueError):
            return None
        if description != self._description(matrix) or matrix.dtype != np.float32:
            return None
        if matrix.shape[0] != len(self.chunks):
            return None
        return matrix

    async def _write_cache(self, matrix: NDArray[np.float32]) -> None:
        files = self.cache_files
        if files is None:
            return
        try:
            await asyncio.to_thread(self._write_index_files, matrix, *files)
        except OSError as exc:
            # The index in memory is fine; only the next process pays for it again.
            warnings.warn(f"could not write the index cache {files[0]}: {exc}", stacklevel=2)

    def _write_index_files(
        self, matrix: NDArray[np.float32], matrix_file: Path, description_file: Path
    ) -> None:
        matrix_file.parent.mkdir(parents=True, exist_ok=True)
        # Write to temporary names and rename, matrix first: the description is the
        # commit marker, so a reader never sees a half-written index.
        with _replacing(matrix_file) as temporary, temporary.open("wb") as stream:
            np.save(stream, matrix, allow_pickle=False)
        with _replacing(description_file) as temporary:
            temporary.write_text(json.dumps(self._description(matrix), indent=2), "utf-8")


@contextmanager
def _replacing(target: Path) -> Iterator[Path]:
    """A temporary path beside ``target``, renamed onto it when the block succeeds."""
    temporary = target.with_name(f".{target.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    try:
        yield temporary
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    os.replace(temporary, target)


# --- hybrid -----------------------------------------------------------------------------


class HybridRetriever:
    """Reciprocal rank fusion (RRF) of several retrievers.

    Each retriever returns its best ``max(k, candidates)`` chunks; a chunk scores
    ``sum(1 / (k_rrf + rank))`` over the rankings it appears in (rank 1 is the best),
    and the ``k`` chunks with the highest fused score are returned with it as their
    ``score``. Chunks are the same when their ``chunk_id`` (else ``doc_uri`` and
    content) is; ties keep the order of first appearance, retriever by retriever.
    """

    def __init__(
        self, retrievers: Sequence[Retriever], *, k_rrf: int = 60, candidates: int = 50
    ) -> None:
        if not retrievers:
            raise ValueError("a hybrid retriever needs at least one retriever")
        if k_rrf < 0:
            raise ValueError(f"k_rrf must not be negative, got {k_rrf}")
        if candidates < 1:
            raise ValueError(f"candidates must be positive, got {candidates}")
        self.retrievers: list[Retriever] = list(retrievers)
        self.k_rrf = k_rrf
        self.candidates = candidates

    async def build(self) -> None:
        """Build every retriever that has a ``build`` step (dense indexes)."""
        await asyncio.gather(
            *(build() for r in self.retrievers if (build := getattr(r, "build", None)))
        )

    async def search(self, query: str, k: int = 5) -> list[ContextChunk]:
        """The ``k`` chunks with the highest fused score, best first."""
        _check_k(k)
        if k == 0:
            return []
        depth = max(k, self.candidates)
        rankings = await asyncio.gather(*(r.search(query, depth) for r in self.retrievers))
        return fuse_rankings(rankings, k=k, k_rrf=self.k_rrf)


@dataclass
class _Fused:
    chunk: ContextChunk
    score: float


def fuse_rankings(
    rankings: Sequence[Sequence[ContextChunk]], *, k: int, k_rrf: int = 60
) -> list[ContextChunk]:
    """Reciprocal rank fusion of ``rankings`` (each best first); the ``k`` best chunks
    with their fused score."""
    fused: dict[tuple[str, ...], _Fused] = {}
    for ranking in rankings:
        for rank, chunk in enumerate(ranking, start=1):
            entry = fused.setdefault(_chunk_key(chunk), _Fused(chunk, 0.0))
            entry.score += 1.0 / (k_rrf + rank)
    # sorted() is stable, so ties keep the order of first appearance.
    best = sorted(fused.values(), key=lambda entry: -entry.score)[:k]
    return [entry.chunk.model_copy(update={"score": entry.score}) for entry in best]


def _chunk_key(chunk: ContextChunk) -> tuple[str, ...]:
    chunk_id = (chunk.model_extra or {}).get("chunk_id")
    if isinstance(chunk_id, str):
        return ("id", chunk_id)
    return ("content", chunk.doc_uri, chunk.content or "")


# --- factory ----------------------------------------------------------------------------


def build_retriever(
    kb: KnowledgeBase,
    kind: RetrieverKind = "bm25",
    *,
    embedder: Embedder | str | None = None,
    cache_dir: str | Path | None = None,
    k_rrf: int = 60,
) -> BM25Retriever | DenseRetriever | HybridRetriever:
    """A retriever of ``kind`` over ``kb``'s chunks.

    ``bm25`` is lexical; ``dense`` uses ``embedder`` (an :class:`Embedder`, a spec for
    :func:`~ragjudge.models._embeddings.get_embedder`, or None for the bundled local model)
    with its index cached under ``cache_dir`` when given; ``hybrid`` fuses the two with
    reciprocal rank fusion (``k_rrf``). Dense indexes are built on first search.
    """
    if kind == "bm25":
        return BM25Retriever.from_knowledge_base(kb)
    if kind not in RETRIEVER_KINDS:
        raise ValueError(
            f"unknown retriever kind {kind!r}; known kinds: {', '.join(RETRIEVER_KINDS)}"
        )
    dense = DenseRetriever.from_knowledge_base(kb, _as_embedder(embedder), cache_dir=cache_dir)
    if kind == "dense":
        return dense
    return HybridRetriever([BM25Retriever.from_knowledge_base(kb), dense], k_rrf=k_rrf)


def _as_embedder(embedder: Embedder | str | None) -> Embedder:
    if embedder is None:
        return LocalEmbedder()
    if isinstance(embedder, str):
        return get_embedder(embedder)
    return embedder

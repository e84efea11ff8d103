"""The BM25 index of chunks: their tokens as ids, and ``bm25s``'s index built from them
with a few array operations instead of a pass over each document.

The index is ``bm25s.BM25``'s own (same class, same attributes, same search); only
its ``build_index_from_ids`` step is replaced, for Robertson's and Lucene's scores
(bm25s's default). It computes the same numbers in the same floating-point steps:
the term frequencies of every (token, document) pair come from a sparse matrix built
with a counting sort, the inverse document frequencies from ``bm25s``'s own function
(once per distinct document frequency), and the term-frequency component with
``bm25s``'s formula on arrays, in the precision its per-document call uses.
"""

from __future__ import annotations

from array import array
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import bm25s
import numpy as np
import scipy.sparse as sp
from bm25s.scoring import _select_idf_scorer
from numpy.typing import NDArray

from ragjudge._util.parallel import map_batches, worker_count
from ragjudge.text._normalise import tokenize

__all__ = ["ArrayBM25", "TokenIds", "merge_token_ids", "token_ids", "token_ids_in_workers"]

_ARRAY_METHODS = ("robertson", "lucene")


class TokenIds(NamedTuple):
    """Texts as token ids: every text's ids one after another."""

    vocabulary: list[str]
    """The tokens, in order of first appearance; a token's id is its position."""
    ids: NDArray[np.int32]
    lengths: NDArray[np.int64]
    """How many tokens each text has."""


def token_ids(texts: Iterable[str]) -> TokenIds:
    """The :func:`~ragjudge.text._normalise.tokenize` tokens of ``texts`` as ids.

    Each text's tokens are turned into ids right away (a new token takes the next id),
    so the tokens of one text at a time are held and looked up while still in cache.
    """
    id_of: defaultdict[str, int] = defaultdict()
    id_of.default_factory = id_of.__len__  # called before a new token is inserted
    id_of_token = id_of.__getitem__
    ids = array("i")
    lengths = array("q")
    for text in texts:
        tokens = tokenize(text)
        lengths.append(len(tokens))
        ids.extend(map(id_of_token, tokens))
    return TokenIds(
        list(id_of),
        np.frombuffer(ids, dtype=np.int32) if ids else np.zeros(0, dtype=np.int32),
        np.frombuffer(lengths, dtype=np.int64) if lengths else np.zeros(0, dtype=np.int64),
    )


def token_ids_in_workers(texts: Sequence[str], workers: int | None = None) -> TokenIds:
    """:func:`token_ids` of ``texts``, in ``workers`` processes (see
    :func:`ragjudge._util.parallel.worker_count`: ``None`` chooses by the total size)."""
    count = worker_count(workers, sum(map(len, texts)))
    return merge_token_ids(map_batches(token_ids, texts, count))


def merge_token_ids(parts: Sequence[TokenIds]) -> TokenIds:
    """The token ids of consecutive batches of texts as those of all the texts at once
    (the vocabulary still in order of first appearance)."""
    if len(parts) == 1:
        return parts[0]
    id_of: dict[str, int] = {}
    add = id_of.setdefault
    ids = []
    for part in parts:
        local = np.fromiter(
            (add(token, len(id_of)) for token in part.vocabulary),
            dtype=np.int32,
            count=len(part.vocabulary),
        )
        ids.append(local[part.ids])
    lengths = [part.lengths for part in parts]
    return TokenIds(
        list(id_of),
        np.concatenate(ids) if ids else np.zeros(0, np.int32),
        np.concatenate(lengths) if lengths else np.zeros(0, np.int64),
    )


@dataclass(frozen=True)
class _Corpus:
    """What ``bm25s.BM25.index`` takes as ids and vocabulary."""

    ids: TokenIds
    vocab: dict[str, int]


class ArrayBM25(bm25s.BM25):  # type: ignore[misc]  # bm25s is untyped
    """``bm25s.BM25`` that indexes :class:`TokenIds` with array operations."""

    def index_token_ids(self, tokens: TokenIds) -> None:
        """Index the texts of ``tokens`` (as ``index((ids, vocabulary))`` would)."""
        vocab = dict(zip(tokens.vocabulary, range(len(tokens.vocabulary)), strict=True))
        self.index(_Corpus(tokens, vocab), show_progress=False)

    def build_index_from_ids(
        self,
        unique_token_ids: list[int],
        corpus_token_ids: Any,
        show_progress: bool = True,
        leave_progress: bool = False,
    ) -> dict[str, Any]:
        if not isinstance(corpus_token_ids, TokenIds):
            return dict(super().build_index_from_ids(unique_token_ids, corpus_token_ids))
        if self.method not in _ARRAY_METHODS:
            return dict(super().build_index_from_ids(unique_token_ids, _lists(corpus_token_ids)))
        self.nonoccurrence_array = None
        return self._scores(corpus_token_ids, len(unique_token_ids))

    def _scores(self, tokens: TokenIds, n_vocab: int) -> dict[str, Any]:
        """The sparse score matrix (one column per token) of bm25s's build."""
        lengths = tokens.lengths
        n_docs = len(lengths)
        # bm25s takes the mean of the document lengths as an int64 array
        average_length = np.array(lengths, dtype=np.int64).mean()
        docs = np.repeat(np.arange(n_docs, dtype=np.int32), lengths)
        counts = sp.csc_matrix(
            (np.ones(len(tokens.ids), dtype=np.int32), (docs, tokens.ids)),
            shape=(n_docs, n_vocab),
        )  # duplicates summed: the term frequencies, by token then by document
        indptr = counts.indptr.astype(np.int64)
        doc_frequencies = np.diff(indptr)
        pair_docs = counts.indices.astype(self.int_dtype, copy=False)
        pair_tokens = np.repeat(np.arange(n_vocab, dtype=np.int32), doc_frequencies)
        idf = self._idf(doc_frequencies, n_docs)
        scores = self._tfc(counts.data, lengths, pair_docs, average_length)
        scores *= idf[pair_tokens]  # idf * tfc, as bm25s multiplies them
        data = scores.astype(self.dtype, copy=False)
        return {"data": data, "indices": pair_docs, "indptr": indptr, "num_docs": n_docs}

    def _idf(self, doc_frequencies: NDArray[np.int64], n_docs: int) -> NDArray[Any]:
        """bm25s's idf array: its function of each (non-zero) document frequency."""
        idf_of = _select_idf_scorer(self.idf_method)
        distinct, position = np.unique(doc_frequencies, return_inverse=True)
        values = [idf_of(df, N=n_docs) if df else 0.0 for df in distinct.tolist()]
        result: NDArray[Any] = np.array(values, dtype=self.dtype)[position]
        return result

    def _tfc(
        self,
        frequencies: NDArray[Any],
        doc_lengths: NDArray[np.int64],
        pair_docs: NDArray[Any],
        average: Any,
    ) -> NDArray[Any]:
        """bm25s's term-frequency component (Robertson's, which Lucene's is) of each
        (token, document) pair. bm25s computes it once per document with the length as
        a number, which makes the length term a float64 scalar; that scalar meets the
        frequency array in the precision NumPy gives a float64 scalar with an array of
        ``dtype`` (float64 since NumPy 2, ``dtype`` before), and so does each length
        term here. Computed in place: the arrays are as long as the corpus."""
        precision = np.result_type(np.float64(1.0), np.zeros(1, dtype=self.dtype))
        k1, b = self.k1, self.b
        length_terms = k1 * ((1 - b) + b * doc_lengths.astype(np.float64) / average)
        frequency = frequencies.astype(self.dtype).astype(precision, copy=False)
        denominator = length_terms.astype(precision, copy=False)[pair_docs]
        denominator += frequency
        frequency /= denominator
        return frequency


def _lists(tokens: TokenIds) -> list[list[int]]:
    """Each text's ids as a list (for bm25s's own build)."""
    ends = np.cumsum(tokens.lengths)
    return [part.tolist() for part in np.split(tokens.ids, ends[:-1])] if len(ends) else []

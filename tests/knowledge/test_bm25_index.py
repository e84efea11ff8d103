"""The BM25 index built with array operations holds bm25s's own numbers: same scores,
same document indices, same column pointers, same vocabulary."""

from __future__ import annotations

from itertools import pairwise
from pathlib import Path

import bm25s
import numpy as np
import pytest

from ragjudge.knowledge import KnowledgeBase
from ragjudge.knowledge._bm25_index import ArrayBM25, merge_token_ids, token_ids
from ragjudge.text._normalise import tokenize

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def example_chunks() -> list[str]:
    kb = KnowledgeBase.load(EXAMPLES / "quickstart" / "kb", chunk_size=300, chunk_overlap=60)
    return [chunk.content for chunk in kb.chunks]


def bm25s_index(texts: list[str], **settings: float) -> bm25s.BM25:
    """bm25s's own build from each text's ids, as the retriever built it before."""
    vocabulary: dict[str, int] = {}
    ids = [[vocabulary.setdefault(t, len(vocabulary)) for t in tokenize(text)] for text in texts]
    index = bm25s.BM25(**settings)
    index.index((ids, vocabulary), show_progress=False)
    return index


@pytest.mark.parametrize("settings", [{}, {"k1": 1.5, "b": 0.75}, {"k1": 0.9, "b": 0.3}])
def test_array_build_equals_bm25s_build(settings: dict[str, float]) -> None:
    texts = example_chunks()
    texts = [*texts, "", "Ｕｎｉｏｎ ALL and union all", texts[0]]  # empty, folded, repeated
    expected = bm25s_index(texts, **settings)
    ours = ArrayBM25(**settings)
    ours.index_token_ids(token_ids(texts))
    for key in ("data", "indices", "indptr"):
        assert ours.scores[key].dtype == expected.scores[key].dtype, key
        assert np.array_equal(ours.scores[key], expected.scores[key]), key
    assert ours.scores["num_docs"] == expected.scores["num_docs"] == len(texts)
    assert list(ours.vocab_dict.items()) == list(expected.vocab_dict.items())
    assert ours.unique_token_ids_set == expected.unique_token_ids_set


def test_other_methods_fall_back_to_bm25s() -> None:
    texts = example_chunks()
    expected = bm25s_index(texts, method="bm25+")
    ours = ArrayBM25(method="bm25+")
    ours.index_token_ids(token_ids(texts))
    assert np.array_equal(ours.scores["data"], expected.scores["data"])


def test_batches_merge_into_the_ids_of_the_whole() -> None:
    texts = example_chunks()
    whole = token_ids(texts)
    cuts = [0, 3, 3, len(texts) // 2, len(texts)]
    merged = merge_token_ids([token_ids(texts[a:b]) for a, b in pairwise(cuts)])
    assert merged.vocabulary == whole.vocabulary
    assert np.array_equal(merged.ids, whole.ids)
    assert np.array_equal(merged.lengths, whole.lengths)
    assert whole.ids.dtype == np.int32

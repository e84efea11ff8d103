"""Chunking and tokenising in worker processes give what one process gives."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from ragjudge._util import parallel as _parallel
from ragjudge.knowledge import KnowledgeBase
from ragjudge.knowledge._retrieval import BM25Retriever

QUICKSTART_KB = Path(__file__).resolve().parents[2] / "examples" / "quickstart" / "kb"


def test_workers_give_the_chunks_and_index_of_one_process() -> None:
    alone = KnowledgeBase.load(QUICKSTART_KB, chunk_size=200, chunk_overlap=40, workers=1)
    pooled = KnowledgeBase.load(QUICKSTART_KB, chunk_size=200, chunk_overlap=40, workers=2)
    assert [c.model_dump() for c in pooled.chunks] == [c.model_dump() for c in alone.chunks]
    one = BM25Retriever.from_knowledge_base(alone, workers=1)._index
    two = BM25Retriever.from_knowledge_base(pooled, workers=2)._index
    for key in ("data", "indices", "indptr"):
        assert np.array_equal(one.scores[key], two.scores[key]), key
    assert list(one.vocab_dict.items()) == list(two.vocab_dict.items())


def test_batches_are_consecutive_and_cover_the_input() -> None:
    items = list(range(10))
    batches = _parallel._batches(items, 4)
    assert [len(b) for b in batches] == [3, 3, 2, 2]
    assert [i for b in batches for i in b] == items
    assert _parallel._batches(items[:2], 8) == [[0], [1]]


def test_worker_count() -> None:
    assert _parallel.worker_count(3, 0) == 3
    assert _parallel.worker_count(None, 10) == 1
    assert 1 <= _parallel.worker_count(None, 10**9) <= _parallel.usable_cpus()
    with pytest.raises(ValueError, match="workers must be at least 1"):
        _parallel.worker_count(0, 10)

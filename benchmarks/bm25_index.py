"""Building a BM25 index over about 100,000 knowledge-base chunks, and searching it.

Documents of paragraphs (about 67 M characters of chunks, every fifth document in
Japanese; see ``_corpus.document_texts``) are turned into a
:class:`~ragjudge.knowledge.KnowledgeBase` (sentence chunking, 800 characters with 100
of overlap) and a :class:`~ragjudge.knowledge._retrieval.BM25Retriever` (the toolkit's tokenizer,
MeCab for Japanese). The reference is ``bm25s``'s own pipeline on the very same chunk
texts: ``bm25s.tokenize`` with its defaults (lowercase, ``\\w\\w+`` words, English stop
words) and ``bm25s.BM25().index``. Then 1,000 queries (the first words of sentences of
the corpus, every fifth one Japanese) go through ``BM25Retriever.search(query, k=5)``.

Bounds (from the issue): chunk + index at most 2 × bm25s's tokenise + index; 1,000
queries at most 0.6 s. Prints every repetition, the best and the median, and the split
of the build into chunking, tokenising and indexing. Exit status 1 when the best
repetition misses a bound. Run with::

    .venv/bin/python benchmarks/bm25_index.py [--documents N] [--repeat N]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import random
import statistics
import time
from typing import Any

import _corpus
import bm25s

from ragjudge.knowledge import Document, KnowledgeBase
from ragjudge.knowledge._retrieval import BM25Retriever

MAX_BUILD_RATIO = 2.0
MAX_QUERY_SECONDS = 0.6
QUERIES = 1000


def build(texts: list[str]) -> tuple[float, float, BM25Retriever]:
    """Chunk and index: (chunking seconds, indexing seconds, retriever)."""
    documents = [Document(doc_uri=f"doc-{i:05d}.md", content=t) for i, t in enumerate(texts)]
    started = time.perf_counter()
    kb = KnowledgeBase.from_documents(documents, chunk_size=800, chunk_overlap=100)
    chunked = time.perf_counter()
    retriever = BM25Retriever.from_knowledge_base(kb)
    return chunked - started, time.perf_counter() - chunked, retriever


def bm25s_build(chunks: list[str]) -> tuple[float, float]:
    """bm25s's own tokenise and index on ``chunks``: (tokenise seconds, index seconds)."""
    started = time.perf_counter()
    tokens = bm25s.tokenize(chunks, show_progress=False)
    tokenized = time.perf_counter()
    bm25s.BM25().index(tokens, show_progress=False)
    return tokenized - started, time.perf_counter() - tokenized


def queries(count: int) -> list[str]:
    """Query strings: the first words of corpus sentences, every fifth one Japanese."""
    rng = random.Random(5)
    english, japanese = _corpus.english_sentences(), _corpus.japanese_sentences()
    found = []
    for index in range(count):
        if index % 5 == 4:
            sentence = rng.choice(japanese)
            found.append(sentence[: rng.randint(8, 20)])
        else:
            words = rng.choice(english).split()
            found.append(" ".join(words[: rng.randint(3, 9)]))
    return found


async def search_all(retriever: BM25Retriever, asked: list[str]) -> float:
    started = time.perf_counter()
    for query in asked:
        await retriever.search(query, k=5)
    return time.perf_counter() - started


def describe(seconds: list[float]) -> str:
    best, median = min(seconds), statistics.median(seconds)
    return f"best {best:.2f} s, median {median:.2f} s"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--documents", type=int, default=10_300, help="documents to chunk")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print(f"load average before: {_corpus.load_average()}")
    texts = _corpus.document_texts(args.documents, seed=3)
    ours: list[float] = []
    parts: list[tuple[float, float]] = []
    theirs: list[float] = []
    query_times: list[float] = []
    asked = queries(QUERIES)
    retriever: Any = None
    for repetition in range(args.repeat):
        retriever = None
        gc.collect()
        chunk_s, index_s, retriever = build(texts)
        contents = [chunk.content for chunk in retriever.chunks]
        gc.collect()
        tokenize_s, bm25s_index_s = bm25s_build(contents)
        query_s = asyncio.run(search_all(retriever, asked))
        ours.append(chunk_s + index_s)
        parts.append((chunk_s, index_s))
        theirs.append(tokenize_s + bm25s_index_s)
        query_times.append(query_s)
        print(
            f"  run {repetition + 1}: {len(contents)} chunks, {sum(map(len, contents)) / 1e6:.1f} M"
            f" characters; ragjudge chunk {chunk_s:.2f} s + tokenise/index {index_s:.2f} s ="
            f" {chunk_s + index_s:.2f} s; bm25s tokenise {tokenize_s:.2f} s + index"
            f" {bm25s_index_s:.2f} s = {tokenize_s + bm25s_index_s:.2f} s; {QUERIES} queries"
            f" {query_s:.3f} s"
        )
    print(f"load average after: {_corpus.load_average()}")
    print(f"ragjudge chunk + index: {describe(ours)}")
    print(f"bm25s tokenise + index: {describe(theirs)}")
    print(f"{QUERIES} queries: {describe(query_times)}")
    ratios = [mine / reference for mine, reference in zip(ours, theirs, strict=True)]
    best_ratio = min(ratios)
    build_ok = best_ratio <= MAX_BUILD_RATIO
    print(
        f"chunk + index vs bm25s: ratio best {best_ratio:.2f}, median "
        f"{statistics.median(ratios):.2f} (bound <= {MAX_BUILD_RATIO:g}) "
        f"{'PASS' if build_ok else 'FAIL'}"
    )
    query_line = _corpus.ratio_line(
        f"{QUERIES} queries (best)", min(query_times), MAX_QUERY_SECONDS
    )
    print(query_line)
    return 0 if build_ok and "FAIL" not in query_line else 1


if __name__ == "__main__":
    raise SystemExit(main())

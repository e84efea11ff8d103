from __future__ import annotations

import pytest

from ragjudge.knowledge import Chunk, Document, KnowledgeBase
from ragjudge.retrieval import BM25Retriever, Retriever

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

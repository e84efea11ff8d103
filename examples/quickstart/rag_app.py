"""A tiny retrieval-augmented QA system to evaluate: BM25 search plus an extractive answer.

There is no LLM here. For a question, the app retrieves the three best chunks of the
``kb/`` folder beside this file, splits them into sentences and answers with the two or
three sentences that share the most words with the question, in their original order.
When no sentence shares a word with the question, it says it does not know.

This is the single-turn variant: only the latest question is used, ``history`` is ignored.
ragjudge calls it as the target ``rag_app:answer`` (see ``eval.yaml``).
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

from ragjudge.knowledge import BM25Retriever, KnowledgeBase
from ragjudge.schema import ContextChunk
from ragjudge.text import contains_cjk, split_sentences, tokenize

KB_DIR = Path(__file__).resolve().parent / "kb"
TOP_CHUNKS = 3
MAX_SENTENCES = 3

DONT_KNOW_EN = "I don't know: the knowledge base has nothing on this question."
DONT_KNOW_JA = "わかりません。知識ベースにこの質問に関する情報が見つかりませんでした。"

# Question words, particles and other function words: they match almost any sentence,
# so they must not decide which sentences answer the question.
ENGLISH_STOPWORDS = """
    a an the is are was were be been being am of to in on at for from by with and or
    what which who whom whose how why when where does do did can could should would will
    it its this that these those there their they them i you we my your me us our
    about as into than then so if between vs versus please tell explain describe
    mean means meaning
"""
JAPANESE_STOPWORDS = """
    は が の を に へ と で も か や な だ です ます 何 なに どう
    どの どれ どこ どんな する し すれ ば ある いる れる られる こと もの よい ため
"""
STOPWORDS = frozenset(ENGLISH_STOPWORDS.split() + JAPANESE_STOPWORDS.split())


@cache
def knowledge_base() -> KnowledgeBase:
    """The documents of ``kb/``, loaded and chunked once."""
    return KnowledgeBase.load(KB_DIR, chunk_size=800, chunk_overlap=100)


@cache
def retriever() -> BM25Retriever:
    """A BM25 index over the knowledge base, built once."""
    return BM25Retriever.from_knowledge_base(knowledge_base())


async def answer(query: str, history: list[dict[str, str]]) -> dict[str, Any]:
    """Answer ``query`` from the knowledge base; ``history`` is not used.

    Returns ``{"response": str, "retrieved_context": [{"doc_uri", "content"}, ...]}``.
    """
    return await answer_from_search(query, query)


async def answer_from_search(query: str, search_text: str) -> dict[str, Any]:
    """Answer ``query`` from the chunks found for ``search_text``, in the query's
    language: the sentences that best match ``query`` or, when none shares a word with
    it, ``search_text``; the don't-know answer when neither does."""
    chunks = await retriever().search(search_text, k=TOP_CHUNKS)
    passages = [chunk.content or "" for chunk in reading_order(chunks)]
    japanese = contains_cjk(query)
    sentences = best_sentences(query, passages, japanese=japanese)
    if not sentences and search_text != query:
        sentences = best_sentences(search_text, passages, japanese=japanese)
    if not sentences:
        response = DONT_KNOW_JA if japanese else DONT_KNOW_EN
    else:
        response = ("" if japanese else " ").join(sentences)
    return {
        "response": response,
        "retrieved_context": [{"doc_uri": c.doc_uri, "content": c.content} for c in chunks],
    }


def reading_order(chunks: list[ContextChunk]) -> list[ContextChunk]:
    """The chunks grouped by document, best document first, each document's chunks in
    the order they appear in it (a knowledge-base chunk id ends in ``#<position>``)."""
    doc_rank = {uri: rank for rank, uri in enumerate(dict.fromkeys(c.doc_uri for c in chunks))}

    def position(chunk: ContextChunk) -> int:
        return int(str(getattr(chunk, "chunk_id", "#0")).rsplit("#", 1)[-1])

    return sorted(chunks, key=lambda c: (doc_rank[c.doc_uri], position(c)))


def best_sentences(query: str, passages: list[str], *, japanese: bool) -> list[str]:
    """The sentences of ``passages`` in the query's language (Japanese or not) that
    share the most words with ``query``.

    Keeps at most :data:`MAX_SENTENCES`, drops those scoring less than half the best
    score, and returns them in their original order. Empty when nothing overlaps.
    """
    candidates = [s for s in candidate_sentences(passages) if contains_cjk(s) == japanese]
    query_words = content_words(query)
    scores = [len(query_words & content_words(sentence)) for sentence in candidates]
    best = max(scores, default=0)
    if best == 0:
        return []
    # Highest score first; among equals, the earlier sentence (from the better chunk).
    ranked = sorted(range(len(candidates)), key=lambda i: (-scores[i], i))
    chosen = [i for i in ranked[:MAX_SENTENCES] if 2 * scores[i] >= best]
    return [candidates[i] for i in sorted(chosen)]


def candidate_sentences(passages: list[str]) -> list[str]:
    """Every sentence of the passages once, in order, without Markdown headings and
    list markers (neighbouring chunks overlap, so a sentence can occur twice)."""
    seen: dict[str, None] = {}
    for passage in passages:
        for sentence in split_sentences(passage):
            if sentence.startswith("#"):
                continue
            seen.setdefault(sentence.removeprefix("- "), None)
    return list(seen)


def content_words(text: str) -> set[str]:
    """The distinct lowercased word tokens of ``text`` that are not stopwords."""
    return {token for token in tokenize(text) if token not in STOPWORDS}

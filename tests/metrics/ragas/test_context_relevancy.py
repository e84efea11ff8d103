"""``context_relevancy``: extracted sentences counted by the context sentences they match
(normalised, then similar in words), once each; the judge's own text is not counted."""

from __future__ import annotations

import pytest
from ragas_helpers import Judge, score

from ragjudge.metrics import create_metric
from ragjudge.schema import ContextChunk, Output, Sample

CHUNKS = [
    ContextChunk(doc_uri="union.md", content="UNION removes duplicate rows. It sorts the result."),
    ContextChunk(doc_uri="joins.md", content="A join combines columns of two tables."),
]
ROW = Sample(request_id="u", request="What does UNION do?")
JAPANESE = [
    ContextChunk(
        doc_uri="ja.md",
        content="UNION は重複する行を取り除きます。結果は並べ替えられます。JOIN は二つの表の列を結合します。",
    )
]


async def relevancy(
    reply: str, chunks: list[ContextChunk], **options: object
) -> tuple[float | None, dict[str, object]]:
    metric = create_metric({"metric": "context_relevancy", **options})
    found = await score(metric, ROW, Output(retrieved_context=chunks), Judge(extract=reply).model())
    assert found.error is None, found.error
    return found.value, found.details


async def test_a_paraphrase_with_other_punctuation_counts() -> None:
    value, details = await relevancy('"UNION removes, duplicate rows!"', CHUNKS)
    assert value == pytest.approx(1 / 3)
    assert details["matches"] == [
        {
            "sentence": "UNION removes, duplicate rows!",
            "context_sentence": "UNION removes duplicate rows.",
            "similarity": 1.0,
        }
    ]


async def test_japanese_sentences_match_in_full_width_and_without_spaces() -> None:
    reply = "ＵＮＩＯＮは重複する行を取り除きます\n結果は並べ替えられます。"
    value, details = await relevancy(reply, JAPANESE)
    assert value == pytest.approx(2 / 3)
    assert details["unmatched"] == []


async def test_text_not_in_the_contexts_is_listed_and_not_counted() -> None:
    reply = "UNION removes duplicate rows.\nUNION was invented in 1970."
    value, details = await relevancy(reply, CHUNKS)
    assert value == pytest.approx(1 / 3)
    assert details["unmatched"] == ["UNION was invented in 1970."]


async def test_a_context_sentence_extracted_twice_counts_once() -> None:
    reply = "UNION removes duplicate rows.\nThe UNION operator removes duplicate rows."
    value, details = await relevancy(reply, CHUNKS)
    assert value == pytest.approx(1 / 3)
    assert details["matched"] == 1 and len(details["matches"]) == 2  # type: ignore[arg-type]


async def test_a_threshold_of_one_counts_only_copies() -> None:
    reply = "The UNION operator removes duplicate rows.\nIt sorts the result."
    loose, _ = await relevancy(reply, CHUNKS)
    strict, details = await relevancy(reply, CHUNKS, match_threshold=1.0)
    assert loose == pytest.approx(2 / 3)
    assert strict == pytest.approx(1 / 3)
    assert details["unmatched"] == ["The UNION operator removes duplicate rows."]

"""``retrieval/llm_judged/chunk_relevance/precision``: relevant chunks / chunks, one
yes/no call per chunk, the ratings in the details."""

from __future__ import annotations

import pytest
from databricks_helpers import score_row

from ragjudge.models.scripted import ReplyScript

PRECISION = "retrieval/llm_judged/chunk_relevance/precision"
ROW = {
    "request": "What does UNION ALL keep?",
    "response": "Duplicates.",
    "retrieved_context": [
        {"doc_uri": "kb/union.md", "content": "UNION ALL keeps all rows."},
        {"doc_uri": "kb/joins.md", "content": "A join combines columns."},
        {"doc_uri": "kb/union_ja.md", "content": "UNION ALL は重複を残す。"},
    ],
}


async def test_share_of_relevant_chunks_with_each_rating() -> None:
    script = ReplyScript(
        rules=[(r"CHUNK \(kb/joins.md\)", "No - it is about joins.")], default="Yes."
    )
    scored = await score_row("chunk_relevance_precision", ROW, script=script)
    score = scored[PRECISION]
    assert score.value == pytest.approx(2 / 3)
    assert score.rationale == "2 of 3 retrieved chunks are relevant to the request"
    assert [(c["position"], c["doc_uri"], c["rating"]) for c in score.details["chunks"]] == [
        (1, "kb/union.md", "yes"),
        (2, "kb/joins.md", "no"),
        (3, "kb/union_ja.md", "yes"),
    ]
    assert score.details["chunks"][1]["rationale"] == "it is about joins."
    assert len(scored.calls) == 3 and sorted(score.judge_call_ids) == [1, 2, 3]
    assert all(prompt.count("<<<BEGIN CHUNK") == 1 for prompt in scored.prompts)


async def test_no_chunk_leaves_the_precision_undefined() -> None:
    scored = await score_row(
        {"metric": "chunk_relevance_precision", "if_missing": "skip"},
        {**ROW, "retrieved_context": []},
    )
    assert scored[PRECISION].skipped == "the retriever returned no chunk: precision is undefined"
    assert scored.calls == []

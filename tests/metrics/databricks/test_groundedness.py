"""``response/llm_judged/groundedness/rating``: the response against the retrieved
context, which a row gives directly or through its trace."""

from __future__ import annotations

import pytest
from databricks_helpers import TRACE_ROW, score_row

from ragjudge.models.scripted import ReplyScript
from ragjudge.schema import Output

GROUNDED = "response/llm_judged/groundedness/rating"
ROW = {
    "request": "What does UNION ALL keep?",
    "response": "It keeps duplicate rows.",
    "retrieved_context": [
        {"doc_uri": "kb/union.md", "content": "UNION ALL keeps all rows, duplicates too."},
        {"doc_uri": "kb/joins.md", "content": "A join combines columns."},
    ],
}


async def test_every_chunk_is_shown_with_its_doc_uri() -> None:
    scored = await score_row("groundedness", ROW)
    assert scored[GROUNDED].value == 1.0
    (prompt,) = scored.prompts
    assert "<<<BEGIN CONTEXT 1 (kb/union.md)>>>\nUNION ALL keeps all rows" in prompt
    assert "<<<BEGIN CONTEXT 2 (kb/joins.md)>>>" in prompt
    assert prompt.index("CONTEXT 2") < prompt.index("<<<BEGIN RESPONSE>>>")


async def test_an_unsupported_claim_is_no() -> None:
    script = ReplyScript(default="The context says nothing of speed.\nAnswer: No")
    scored = await score_row("groundedness", ROW, script=script)
    assert scored[GROUNDED].value == 0.0
    assert scored[GROUNDED].rationale == "The context says nothing of speed."


async def test_the_trace_gives_the_last_retrievers_chunks() -> None:
    scored = await score_row("groundedness", TRACE_ROW)
    (prompt,) = scored.prompts
    assert "(spark/rdd-reduce-by-key.md)" in prompt and "(spark/rdd-group-by-key.md)" in prompt
    # the first retriever span's third document is not the last retriever's
    assert "spark/broadcast.md" not in prompt


async def test_an_empty_retrieval_is_judged_as_such() -> None:
    scored = await score_row("groundedness", {**ROW, "retrieved_context": []}, output=None)
    (prompt,) = scored.prompts
    assert "(the retriever returned nothing)" in prompt


@pytest.mark.parametrize(
    ("mode", "error", "skipped"), [("error", True, False), ("skip", False, True)]
)
async def test_no_context_is_an_error_or_not_applicable(
    mode: str, error: bool, skipped: bool
) -> None:
    row = {"request": "q", "response": "a"}
    output = Output(response="a")
    scored = await score_row({"metric": "groundedness", "if_missing": mode}, row, output=output)
    score = scored[GROUNDED]
    assert score.value is None and bool(score.error) is error and bool(score.skipped) is skipped
    assert "no retrieved context" in (score.error or score.skipped or "")
    assert scored.calls == []

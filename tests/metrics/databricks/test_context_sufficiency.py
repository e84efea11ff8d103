"""``retrieval/llm_judged/context_sufficiency/rating``: do the retrieved chunks hold
what the expected answer needs?"""

from __future__ import annotations

from databricks_helpers import score_row

from ragjudge.models.scripted import ReplyScript

SUFFICIENT = "retrieval/llm_judged/context_sufficiency/rating"
ROW = {
    "request": "What does UNION ALL keep?",
    "response": "Duplicates.",
    "retrieved_context": [{"doc_uri": "kb/union.md", "content": "UNION ALL keeps all rows."}],
}


async def test_facts_are_listed_one_per_block() -> None:
    row = {**ROW, "expected_facts": ["It keeps duplicates.", "It does not sort."]}
    scored = await score_row("context_sufficiency", row)
    assert scored[SUFFICIENT].value == 1.0
    (prompt,) = scored.prompts
    assert "<<<BEGIN FACT 2>>>\nIt does not sort.\n<<<END FACT 2>>>" in prompt
    assert "holds every one of these facts" in prompt
    # the response is not what this judge looks at
    assert "Duplicates." not in prompt


async def test_against_the_expected_response() -> None:
    script = ReplyScript(default="Rationale: sorting is not covered.\nVerdict: NO")
    row = {**ROW, "expected_response": "All rows, unsorted."}
    scored = await score_row("context_sufficiency", row, script=script)
    assert scored[SUFFICIENT].value == 0.0
    assert scored[SUFFICIENT].rationale == "sorting is not covered."
    assert "<<<BEGIN EXPECTED RESPONSE 1>>>\nAll rows, unsorted." in scored.prompts[0]


async def test_no_expected_answer_is_an_error_when_named_alone() -> None:
    scored = await score_row("context_sufficiency", ROW)
    assert scored[SUFFICIENT].error == "no expected_facts or expected_response"

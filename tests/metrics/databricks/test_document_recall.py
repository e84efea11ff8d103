"""``retrieval/ground_truth/document_recall``: deterministic, no judge."""

from __future__ import annotations

from pathlib import Path

import pytest
from databricks_helpers import score_row

from ragjudge.metrics.databricks.document_recall import document_recall
from ragjudge.schema import ContextChunk

RECALL = "retrieval/ground_truth/document_recall"


def chunks(*uris: str) -> list[ContextChunk]:
    return [ContextChunk(doc_uri=u, content="c") for u in uris]


@pytest.mark.parametrize(
    ("retrieved", "expected", "recall", "missing"),
    [
        (["a", "b"], ["a", "b"], 1.0, []),
        (["a", "x", "y"], ["a", "b", "c"], 1 / 3, ["b", "c"]),
        (["x"], ["a"], 0.0, ["a"]),
        ([], ["a", "b"], 0.0, ["a", "b"]),
        # several chunks of one document and an expected document listed twice count once
        (["a", "a", "b"], ["a", "a", "c"], 1 / 2, ["c"]),
        ([" a "], ["a"], 1.0, []),
        (["A"], ["a"], 0.0, ["a"]),
    ],
)
def test_known_cases(
    retrieved: list[str], expected: list[str], recall: float, missing: list[str]
) -> None:
    result = document_recall(chunks(*retrieved), chunks(*expected))
    assert result.value == pytest.approx(recall)
    assert result.details["missing"] == missing


async def test_from_a_row_with_the_rationale_and_no_judge_call() -> None:
    row = {
        "request": "q",
        "response": "a",
        "retrieved_context": [{"doc_uri": "a", "content": "x"}, {"doc_uri": "z", "content": "y"}],
        "expected_retrieved_context": [{"doc_uri": "a"}, {"doc_uri": "b"}],
    }
    scored = await score_row("document_recall", row)
    assert scored[RECALL].value == 0.5
    assert scored[RECALL].rationale == "1 of 2 expected documents retrieved; missing: b"
    assert scored.calls == []


def test_contexts_given_as_text_have_no_document_names(tmp_path: Path) -> None:
    import ragjudge as rj

    row = {"request": "q", "response": "r", "retrieved_context": ["a"]}
    result = rj.evaluate(
        [{**row, "expected_retrieved_context": ["a"]}],
        metrics=["document_recall"],
        store=tmp_path / "r.db",
        progress=False,
    )

    (summary,) = result.summaries
    assert summary.mean is None and summary.errors == 1
    assert "text without doc_uris" in result.errors[0].example

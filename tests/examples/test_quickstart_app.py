"""The quickstart example: its tiny RAG app answers from its knowledge base, and its
evaluation set is well formed."""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from conftest import import_quickstart

QUICKSTART = Path(__file__).resolve().parents[2] / "examples" / "quickstart"


@pytest.fixture(scope="module")
def app() -> ModuleType:
    return import_quickstart("rag_app")


def evalset_rows() -> list[dict[str, Any]]:
    lines = (QUICKSTART / "evalset.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def doc_uris(result: dict[str, Any]) -> list[str]:
    return [chunk["doc_uri"] for chunk in result["retrieved_context"]]


def test_knowledge_base_has_english_and_japanese_documents(app: ModuleType) -> None:
    kb = app.knowledge_base()
    uris = [doc.doc_uri for doc in kb.documents]
    assert len(uris) >= 25
    assert sum(uri.endswith("_ja.md") for uri in uris) >= 5
    assert len(kb.chunks) > len(uris)


async def test_union_all_question_is_answered_from_the_union_document(app: ModuleType) -> None:
    result = await app.answer("What is the difference between UNION and UNION ALL?", [])

    assert "duplicate" in result["response"].lower()
    assert "union_vs_union_all.md" in doc_uris(result)
    assert all(chunk["content"] for chunk in result["retrieved_context"])


async def test_japanese_deadlock_question_retrieves_the_japanese_document(
    app: ModuleType,
) -> None:
    result = await app.answer("デッドロックとは何か?", [])

    assert doc_uris(result)[0] == "deadlock_ja.md"
    assert "デッドロック" in result["response"]
    # Japanese sentences are joined without a space.
    assert result["response"].count("。") >= 2
    assert "。 " not in result["response"]


async def test_unrelated_question_gets_the_dont_know_answer(app: ModuleType) -> None:
    result = await app.answer("What is the capital of Peru?", [])

    assert result["response"] == app.DONT_KNOW_EN


async def test_unrelated_japanese_question_gets_the_japanese_dont_know_answer(
    app: ModuleType,
) -> None:
    result = await app.answer("ペルーの首都はどこですか?", [])

    assert result["response"] == app.DONT_KNOW_JA


async def test_history_does_not_change_the_answer(app: ModuleType) -> None:
    query = "What is a covering index?"
    history = [
        {"role": "user", "content": "What is a deadlock?"},
        {"role": "assistant", "content": "Two transactions wait for each other."},
    ]

    assert await app.answer(query, history) == await app.answer(query, [])


def test_best_sentences_keeps_original_order_and_drops_weak_matches(app: ModuleType) -> None:
    passages = [
        "# Left outer join\nAn outer join keeps unmatched rows.\nA cross join pairs every row.",
        "Hash tables are fast. A left outer join pads missing columns with NULL.",
    ]

    picked = app.best_sentences("left outer join null", passages, japanese=False)

    # Scores: heading skipped, outer join 2, cross join 1 (< half of 4), hash 0, left outer 4.
    assert picked == [
        "An outer join keeps unmatched rows.",
        "A left outer join pads missing columns with NULL.",
    ]


def test_best_sentences_is_empty_without_overlap(app: ModuleType) -> None:
    assert (
        app.best_sentences("capital of Peru", ["A view is a stored query."], japanese=False) == []
    )


def test_evalset_rows_have_the_databricks_fields_and_unique_ids() -> None:
    rows = evalset_rows()
    ids = [row["request_id"] for row in rows]

    assert 25 <= len(rows) <= 35
    assert len(set(ids)) == len(ids)
    for row in rows:
        assert set(row) == {"request_id", "request", "expected_response", "metadata"}
        assert isinstance(row["expected_response"], str) and row["expected_response"].strip()
        assert row["metadata"]["lang"] in {"en", "ja"}
        assert row["metadata"]["topic"]
        request = row["request"]
        assert isinstance(request, str) or "messages" in request or "query" in request


def test_evalset_shows_every_request_form_and_both_languages() -> None:
    rows = evalset_rows()
    requests = [row["request"] for row in rows]
    langs = [row["metadata"]["lang"] for row in rows]

    assert sum(isinstance(r, dict) and "messages" in r for r in requests) >= 2
    assert sum(isinstance(r, dict) and "history" in r for r in requests) == 1
    assert 6 <= langs.count("ja") <= 8


def test_evalset_loads_as_samples() -> None:
    from ragjudge.schema import Sample

    samples = [Sample.model_validate(row) for row in evalset_rows()]

    (follow_up,) = [
        s for s in samples if isinstance(s.request.original, dict) and "query" in s.request.original
    ]
    assert follow_up.request.query.startswith("What is write-ahead logging")
    assert [m.role for m in follow_up.request.history] == ["user", "assistant"]

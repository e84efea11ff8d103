import math

import pytest
from pydantic import ValidationError

from ragjudge.schema import ContextChunk, Output, Request, Sample, Score, Usage


def test_string_request_becomes_one_user_message() -> None:
    r = Request.parse("What is RAG?")
    assert r.query == "What is RAG?"
    assert [m.role for m in r.messages] == ["user"]
    assert r.history == []
    assert r.original == "What is RAG?"


def test_messages_request_splits_last_user_query_from_history() -> None:
    value = {
        "messages": [
            {"role": "user", "content": "What are broadcast variables?"},
            {"role": "assistant", "content": "Read-only values cached on each machine."},
            {"role": "user", "content": "How do they help?"},
        ]
    }
    r = Request.parse(value)
    assert r.query == "How do they help?"
    assert [m.content for m in r.history] == [
        "What are broadcast variables?",
        "Read-only values cached on each machine.",
    ]
    assert r.original == value


def test_query_and_history_request() -> None:
    r = Request.parse(
        {"query": "デッドロックとは?", "history": [{"role": "user", "content": "こんにちは"}]}
    )
    assert r.query == "デッドロックとは?"
    assert len(r.history) == 1
    assert r.messages[-1].content == "デッドロックとは?"


def test_arbitrary_dict_request_is_kept_and_serialised_as_query() -> None:
    value = {"last_user_request": "How to minimise shuffling?", "message_history": []}
    r = Request.parse(value)
    assert r.original == value
    assert "last_user_request" in r.query


@pytest.mark.parametrize(
    "bad", ["", "   ", 3, {"messages": [{"role": "assistant", "content": "x"}]}]
)
def test_bad_requests_are_rejected(bad: object) -> None:
    with pytest.raises(ValueError):
        Request.parse(bad)


def test_response_as_choices_dict() -> None:
    s = Sample(
        request_id="1",
        request="q",
        response={"choices": [{"message": {"content": "MLflow is a framework."}}]},
    )
    assert s.response == "MLflow is a framework."


def test_expected_facts_and_expected_response_together_are_an_error() -> None:
    with pytest.raises(ValidationError, match="expected_facts and expected_response"):
        Sample(request_id="1", request="q", expected_facts=["a"], expected_response="a")


def test_guidelines_list_and_named_dict() -> None:
    a = Sample(request_id="1", request="q", guidelines=["The response must be in English"])
    b = Sample(request_id="2", request="q", guidelines={"tone": ["Be polite"], "lang": ["English"]})
    assert a.all_guidelines == {"guidelines": ["The response must be in English"]}
    assert b.all_guidelines["tone"] == ["Be polite"]


def test_context_chunk_needs_doc_uri() -> None:
    with pytest.raises(ValidationError):
        ContextChunk.model_validate({"content": "text"})
    with pytest.raises(ValidationError):
        ContextChunk(doc_uri="", content="text")


def test_references_and_has_field() -> None:
    s = Sample(request_id="1", request="q", expected_response=["a", "b"], metadata={"k": 1})
    assert s.references == ["a", "b"]
    assert s.has_field("expected_response")
    assert not s.has_field("expected_facts")
    assert s.has_field("metadata.k")
    assert not s.has_field("metadata.other")
    assert not Sample(request_id="2", request="q", guidelines={}).has_field("guidelines")


def test_score_requires_value_or_error_and_rejects_nan() -> None:
    with pytest.raises(ValidationError):
        Score(metric="m", value=None)
    with pytest.raises(ValidationError):
        Score(metric="m", value=math.nan)
    with pytest.raises(ValidationError):
        Score(metric="m", value=1.0, error="boom")
    failed = Score.failed("m", "judge output did not parse")
    assert failed.value is None and failed.error


def test_output_usage_defaults_to_none_and_totals() -> None:
    assert Output(response="x").usage.total_tokens == 0
    assert Usage(input_tokens=12, output_tokens=3).total_tokens == 15


def test_empty_response_is_an_answer_but_null_is_missing() -> None:
    empty = Sample(request_id="1", request="q", response="")
    chat = Sample.model_validate(
        {"request_id": "2", "request": "q", "response": {"choices": [{"message": {"content": ""}}]}}
    )
    absent = Sample(request_id="3", request="q", response=None)

    assert empty.has_field("response") and empty.response == ""
    assert chat.has_field("response") and chat.response == ""
    assert not absent.has_field("response")
    # other fields keep their rule: empty is absent
    assert not Sample(request_id="4", request="q", expected_response="").has_field(
        "expected_response"
    )
    assert not Sample(request_id="5", request="q", expected_facts=[]).has_field("expected_facts")
    # an empty retrieved_context is a value too: the system retrieved nothing
    assert Sample(request_id="6", request="q", retrieved_context=[]).has_field("retrieved_context")
    assert not Sample(request_id="7", request="q").has_field("retrieved_context")
    with pytest.raises(ValidationError, match="expected_response is an empty list"):
        Sample(request_id="7", request="q", expected_response=[])

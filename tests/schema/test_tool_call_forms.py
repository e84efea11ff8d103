"""Tool calls read in OpenAI's nested form and the plain one; unreadable arguments say why."""

from __future__ import annotations

import pytest

from ragjudge.schema import ExpectedToolCall, Sample, ToolCall


def test_openai_form_reads_arguments_from_json_text() -> None:
    call = ToolCall.model_validate(
        {"id": "c1", "type": "function", "function": {"name": "search", "arguments": '{"q": "x"}'}}
    )
    assert (call.name, call.arguments, call.id, call.problem) == ("search", {"q": "x"}, "c1", None)


def test_plain_form_keeps_arguments() -> None:
    call = ToolCall.model_validate({"name": "add", "arguments": {"a": 1, "b": 2}})
    assert call.arguments == {"a": 1, "b": 2}
    assert call.problem is None


@pytest.mark.parametrize(
    ("text", "reason"),
    [("{not json", "not JSON"), ("[1, 2]", "not an object")],
)
def test_unreadable_arguments_keep_the_name_and_say_why(text: str, reason: str) -> None:
    call = ToolCall.model_validate({"function": {"name": "lookup", "arguments": text}})
    assert call.name == "lookup"
    assert call.arguments == {}
    assert call.problem is not None and reason in call.problem


def test_expected_call_refuses_unreadable_arguments() -> None:
    with pytest.raises(ValueError, match="not JSON"):
        ExpectedToolCall.model_validate({"function": {"name": "x", "arguments": "{"}})


def test_expected_call_without_arguments_accepts_any() -> None:
    expected = ExpectedToolCall.model_validate({"name": "search", "order": 1})
    assert expected.arguments is None
    assert expected.order == 1


def test_sample_reads_a_chat_whose_assistant_only_calls_a_tool() -> None:
    sample = Sample.model_validate(
        {
            "request_id": "r",
            "request": {
                "messages": [
                    {"role": "user", "content": "weather?"},
                    {
                        "role": "assistant",
                        "content": None,
                        "tool_calls": [
                            {"id": "c", "function": {"name": "weather", "arguments": "{}"}}
                        ],
                    },
                    {"role": "tool", "content": "sunny", "tool_call_id": "c"},
                    {"role": "user", "content": "and tomorrow?"},
                ]
            },
            "expected_tool_calls": [{"name": "weather"}],
        }
    )
    assert sample.request.query == "and tomorrow?"
    assert sample.request.history[1].content == ""
    assert sample.expected_tool_calls == [ExpectedToolCall(name="weather")]

"""Tool calls read from a trace's TOOL spans, from OpenAI messages and from a reply."""

from __future__ import annotations

import json
from typing import Any

from ragjudge.schema import Output
from ragjudge.targets._tool_calls import tool_calls_in_messages, tool_calls_in_reply
from ragjudge.targets._traces import read_trace, with_trace


def _span(span_id: str, name: str, kind: str, start: int, **attributes: Any) -> dict[str, Any]:
    attrs = {"mlflow.spanType": json.dumps(kind)}
    attrs.update({k: json.dumps(v) for k, v in attributes.items()})
    parent = None if span_id == "root" else "root"
    return {
        "span_id": span_id,
        "parent_span_id": parent,
        "name": name,
        "start_time_unix_nano": start,
        "end_time_unix_nano": start + 10,
        "attributes": attrs,
    }


def _trace(*spans: dict[str, Any]) -> dict[str, Any]:
    return {"info": {}, "data": {"spans": list(spans)}}


def test_tool_spans_in_start_order_with_inputs_and_outputs() -> None:
    trace = _trace(
        _span("root", "agent", "AGENT", 0, **{"mlflow.spanOutputs": "done"}),
        _span("b", "convert", "TOOL", 30, **{"mlflow.spanInputs": {"x": 2}}),
        _span(
            "a",
            "search",
            "TOOL",
            10,
            **{"mlflow.spanInputs": {"q": "a"}, "mlflow.spanOutputs": [1]},
        ),
    )
    reading = read_trace(trace)
    assert reading is not None and reading.tool_calls is not None
    assert [(c.name, c.arguments, c.output) for c in reading.tool_calls] == [
        ("search", {"q": "a"}, [1]),
        ("convert", {"x": 2}, None),
    ]
    assert with_trace(Output(trace=trace)).tool_calls == reading.tool_calls


def test_a_tool_span_whose_inputs_are_not_arguments_says_so() -> None:
    trace = _trace(
        _span("root", "agent", "AGENT", 0, **{"mlflow.spanOutputs": "done"}),
        _span("a", "search", "TOOL", 10, **{"mlflow.spanInputs": "free text"}),
    )
    reading = read_trace(trace)
    assert reading is not None and reading.tool_calls is not None
    assert reading.tool_calls[0].problem is not None


def test_messages_pair_each_call_with_its_tool_reply() -> None:
    messages = [
        {"role": "user", "content": "hi"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "1", "type": "function", "function": {"name": "f", "arguments": '{"a":1}'}},
                {"id": "2", "type": "function", "function": {"name": "g", "arguments": "{"}},
            ],
        },
        {"role": "tool", "tool_call_id": "1", "content": "one"},
    ]
    calls = tool_calls_in_messages(messages)
    assert calls is not None
    assert [(c.name, c.arguments, c.output) for c in calls] == [
        ("f", {"a": 1}, "one"),
        ("g", {}, None),
    ]
    assert calls[1].problem is not None
    assert tool_calls_in_messages([{"role": "user", "content": "x"}]) is None


def test_openai_reply_tool_calls() -> None:
    reply = {
        "choices": [
            {
                "message": {
                    "role": "assistant",
                    "tool_calls": [{"function": {"name": "f", "arguments": "{}"}}],
                }
            }
        ]
    }
    calls = tool_calls_in_reply(reply)
    assert calls is not None and calls[0].name == "f"
    assert (
        tool_calls_in_reply({"choices": [{"message": {"role": "assistant", "content": "x"}}]})
        is None
    )


def _called(reply: Any) -> Any:
    import asyncio

    from ragjudge.schema import Sample
    from ragjudge.targets import CallableTarget

    target = CallableTarget(lambda query: reply)
    sample = Sample.model_validate({"request_id": "r", "request": "weather?"})
    return asyncio.run(target(sample))


def test_a_target_returning_an_openai_reply_that_only_calls_a_tool() -> None:
    reply = {
        "choices": [
            {
                "message": {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {
                            "id": "1",
                            "type": "function",
                            "function": {"name": "f", "arguments": '{"a": 1}'},
                        }
                    ],
                }
            }
        ]
    }
    output = _called(reply)
    assert output.response == ""
    assert [(c.name, c.arguments) for c in output.tool_calls] == [("f", {"a": 1})]


def test_a_target_returning_a_dict_with_tool_calls_or_messages() -> None:
    plain = _called({"response": "ok", "tool_calls": [{"name": "g", "arguments": {"b": 2}}]})
    assert [(c.name, c.arguments) for c in plain.tool_calls] == [("g", {"b": 2})]
    chat = _called(
        {
            "response": "ok",
            "messages": [
                {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [{"function": {"name": "h", "arguments": "{}"}}],
                }
            ],
        }
    )
    assert [c.name for c in chat.tool_calls] == ["h"]
    assert _called({"response": "ok"}).tool_calls is None

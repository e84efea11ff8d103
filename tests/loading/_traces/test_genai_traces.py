"""A trace written to the OpenTelemetry GenAI semantic conventions (an agent span with
input and output messages, a retrieval, a tool execution and a chat call with its
token usage; hex ids, as OTLP/JSON writes them) read as an evaluation set."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import ragjudge as rj
from ragjudge.loading import read_evaluation_set
from ragjudge.targets import read_trace
from ragjudge.targets._targets import output_of_row

pytest.importorskip("opentelemetry.semconv")

TRACE = "5b8efff798038103d269b633813fc60c"


def _value(value: Any) -> dict[str, Any]:
    if isinstance(value, bool):
        return {"boolValue": value}
    if isinstance(value, int):
        return {"intValue": str(value)}  # int64 is text in the JSON mapping
    if isinstance(value, float):
        return {"doubleValue": value}
    return {"stringValue": value}


def _span(
    span_id: str, parent: str | None, name: str, start: int, end: int, **attrs: Any
) -> dict[str, Any]:
    span: dict[str, Any] = {
        "traceId": TRACE,
        "spanId": span_id,
        "name": name,
        "kind": 1,
        "startTimeUnixNano": str(start),
        "endTimeUnixNano": str(end),
        "attributes": [{"key": k, "value": _value(v)} for k, v in attrs.items()],
    }
    if parent is not None:
        span["parentSpanId"] = parent
    return span


def _messages(role: str, text: str) -> str:
    return json.dumps([{"role": role, "parts": [{"type": "text", "content": text}]}])


def genai_request() -> dict[str, Any]:
    root = "a1" * 8
    spans = [
        _span(
            root,
            None,
            "invoke_agent support",
            1_000_000_000,
            3_500_000_000,
            **{
                "gen_ai.operation.name": "invoke_agent",
                "gen_ai.input.messages": _messages("user", "How long is the warranty?"),
                "gen_ai.output.messages": _messages("assistant", "Two years from purchase."),
            },
        ),
        _span(
            "b2" * 8,
            root,
            "retrieval policies",
            1_100_000_000,
            1_300_000_000,
            **{
                "gen_ai.operation.name": "retrieval",
                "gen_ai.retrieval.query.text": "warranty length",
                "gen_ai.retrieval.documents": json.dumps(
                    [
                        {
                            "id": "policy/warranty.md",
                            "score": 0.92,
                            "content": "Warranty: two years.",
                        },
                        {"id": "policy/returns.md", "score": 0.41},
                    ]
                ),
            },
        ),
        _span(
            "c3" * 8,
            root,
            "execute_tool order_lookup",
            1_400_000_000,
            1_500_000_000,
            **{
                "gen_ai.operation.name": "execute_tool",
                "gen_ai.tool.name": "order_lookup",
                "gen_ai.tool.call.arguments": json.dumps({"order": "A-17"}),
                "gen_ai.tool.call.result": json.dumps({"bought": "2025-03-01"}),
            },
        ),
        _span(
            "d4" * 8,
            root,
            "chat gpt-4o-mini",
            1_600_000_000,
            3_400_000_000,
            **{
                "gen_ai.operation.name": "chat",
                "gen_ai.request.model": "gpt-4o-mini",
                "gen_ai.usage.input_tokens": 310,
                "gen_ai.usage.output_tokens": 12,
            },
        ),
    ]
    return {
        "resourceSpans": [
            {"resource": {}, "scopeSpans": [{"scope": {"name": "app"}, "spans": spans}]}
        ]
    }


def test_a_genai_trace_reads_as_one_sample(tmp_path: Path) -> None:
    path = tmp_path / "genai.json"
    path.write_text(json.dumps(genai_request()))
    [sample] = read_evaluation_set(path).samples
    assert sample.request_id == TRACE
    assert sample.request.messages[-1].content == "How long is the warranty?"
    assert sample.response == "Two years from purchase."
    assert [(c.doc_uri, c.content, c.score) for c in sample.retrieved_context or []] == [
        ("policy/warranty.md", "Warranty: two years.", 0.92),
        ("policy/returns.md", None, 0.41),
    ]
    assert sample.metadata["tool_calls"] == [
        {"name": "order_lookup", "arguments": {"order": "A-17"}, "result": {"bought": "2025-03-01"}}
    ]
    reading = read_trace(sample.trace)
    assert reading is not None and reading.usage is not None
    assert (reading.usage.input_tokens, reading.usage.output_tokens) == (310, 12)
    assert reading.latency == pytest.approx(2.5)


def test_prompt_and_completion_events_of_the_older_conventions(tmp_path: Path) -> None:
    span = _span("e5" * 8, None, "chat", 0, 1_000, **{"gen_ai.operation.name": "chat"})
    span["events"] = [
        {
            "name": "gen_ai.content.prompt",
            "timeUnixNano": "10",
            "attributes": [{"key": "gen_ai.prompt", "value": {"stringValue": "Say hi"}}],
        },
        {
            "name": "gen_ai.content.completion",
            "timeUnixNano": "900",
            "attributes": [{"key": "gen_ai.completion", "value": {"stringValue": "Hi"}}],
        },
    ]
    path = tmp_path / "events.json"
    path.write_text(json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": [span]}]}]}))
    [sample] = read_evaluation_set(path).samples
    assert (sample.request.query, sample.response) == ("Say hi", "Hi")


def test_a_genai_tool_span_becomes_the_outputs_tool_call(tmp_path: Path) -> None:
    path = tmp_path / "genai.json"
    path.write_text(json.dumps(genai_request()))
    [sample] = read_evaluation_set(path).samples
    output = output_of_row(sample)
    assert output.tool_calls is not None
    assert [(c.name, c.arguments, c.output, c.problem) for c in output.tool_calls] == [
        ("order_lookup", {"order": "A-17"}, {"bought": "2025-03-01"}, None)
    ]


def test_a_genai_trace_evaluates_its_tool_calls_end_to_end(tmp_path: Path) -> None:
    path = tmp_path / "genai.json"
    path.write_text(json.dumps(genai_request()))
    result = rj.evaluate(
        str(path),
        metrics=["tool_steps", "redundant_tool_calls"],
        store=tmp_path / "r.db",
        progress=False,
    )
    frame = result.to_pandas()
    assert (float(frame.loc[0, "tool_steps"]), float(frame.loc[0, "redundant_tool_calls"])) == (
        1.0,
        0.0,
    )

"""OpenTelemetry traces in OTLP JSON read as an evaluation set: one written by the real
LangChain instrumentation, the collector's JSON Lines with hex ids, and files that
cannot be read, named by file, trace and field."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from ragjudge.errors import DatasetError, MissingExtra
from ragjudge.loading import read_evaluation_set
from ragjudge.targets import read_trace

pytest.importorskip("openinference.instrumentation.langchain")
pytest.importorskip("opentelemetry.sdk")

from traced_chain import ANSWER, QUESTION, write_langchain_trace


def test_a_langchain_trace_gives_request_response_context_tools_tokens_and_latency(
    tmp_path: Path,
) -> None:
    loaded = read_evaluation_set(write_langchain_trace(tmp_path / "traces.json"))
    assert (loaded.report.format, loaded.report.guessed) == ("otlp", True)
    [sample] = loaded.samples
    assert sample.request.query == QUESTION and sample.response == ANSWER
    assert len(sample.request_id) == 32  # the trace id, base64 read back to hex
    chunks = [(c.doc_uri, c.content) for c in sample.retrieved_context or []]
    assert chunks == [
        ("atlas/france.md", "Paris is the capital of France."),
        ("doc-lyon", "Lyon is in France."),
    ]
    assert sample.metadata["tool_calls"] == [
        {"name": "population", "arguments": "Paris", "result": "2.1 million"}
    ]
    reading = read_trace(sample.trace)
    assert reading is not None and reading.response == ANSWER
    assert (reading.usage.input_tokens, reading.usage.output_tokens) == (42, 7)  # type: ignore[union-attr]
    assert reading.latency is not None and reading.latency > 0


def test_collector_json_lines_with_hex_ids_and_an_explicit_format(tmp_path: Path) -> None:
    path = write_langchain_trace(tmp_path / "export.jsonl", lines=True)
    request = json.loads(path.read_text())
    for span in request["resourceSpans"][0]["scopeSpans"][0]["spans"]:
        for key in ("traceId", "spanId", "parentSpanId"):
            if key in span:
                span[key] = _hex(span[key])
    second = json.loads(json.dumps(request).replace(QUESTION, "And Italy?"))
    for span in second["resourceSpans"][0]["scopeSpans"][0]["spans"]:
        span["traceId"] = "0" * 31 + "2"
    path.write_text(json.dumps(request) + "\n" + json.dumps(second) + "\n")
    loaded = read_evaluation_set(path, format="otlp")
    assert loaded.report.guessed is False
    assert [s.request.query for s in loaded.samples] == [QUESTION, "And Italy?"]
    assert loaded.samples[1].request_id == "0" * 31 + "2"


def _hex(value: str) -> str:
    import base64

    return base64.b64decode(value).hex()


def _request(spans: list[dict[str, Any]]) -> dict[str, Any]:
    return {"resourceSpans": [{"scopeSpans": [{"spans": spans}]}]}


def _root(trace_id: str = "ab" * 16, **attributes: str) -> dict[str, Any]:
    return {
        "traceId": trace_id,
        "spanId": "cd" * 8,
        "name": "agent",
        "startTimeUnixNano": "1000",
        "endTimeUnixNano": "2000",
        "attributes": [
            {"key": k.replace("_", "."), "value": {"stringValue": v}} for k, v in attributes.items()
        ],
    }


def test_a_trace_whose_root_has_no_output_is_named_with_its_id(tmp_path: Path) -> None:
    good = _root("ab" * 16, input_value="q", output_value="a")
    silent = _root("ef" * 16, input_value="q")
    path = tmp_path / "traces.json"
    path.write_text(json.dumps(_request([good, silent])))
    with pytest.raises(DatasetError) as caught:
        read_evaluation_set(path)
    [problem] = caught.value.problems
    assert problem.source == str(path)
    assert problem.field == f"trace {'ef' * 16}: agent.output"
    assert problem.reason == "the root span has no output"


def test_a_span_without_a_start_time_is_named_by_its_path(tmp_path: Path) -> None:
    span = _root(input_value="q", output_value="a")
    del span["startTimeUnixNano"]
    path = tmp_path / "traces.json"
    path.write_text(json.dumps(_request([span])))
    with pytest.raises(DatasetError) as caught:
        read_evaluation_set(path)
    [problem] = caught.value.problems
    assert problem.field == (
        f"trace {'ab' * 16}: resourceSpans[0].scopeSpans[0].spans[0].startTimeUnixNano"
    )
    assert "nanoseconds" in problem.reason


def test_attributes_that_are_not_a_list_are_refused(tmp_path: Path) -> None:
    span = _root(input_value="q", output_value="a")
    span["attributes"] = {"input.value": "q"}
    path = tmp_path / "traces.json"
    path.write_text(json.dumps(_request([span])))
    with pytest.raises(DatasetError, match="must be a list of"):
        read_evaluation_set(path)


def test_without_the_traces_extra_the_pip_command_is_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "traces.json"
    path.write_text(json.dumps(_request([_root(input_value="q", output_value="a")])))
    monkeypatch.setitem(sys.modules, "openinference.semconv", None)
    with pytest.raises(MissingExtra, match=r"pip install 'ragjudge\[traces\]'"):
        read_evaluation_set(path)

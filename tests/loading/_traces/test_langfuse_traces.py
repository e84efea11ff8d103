"""Langfuse traces as its API returns them (``GET /api/public/traces/{id}``: the trace
with its observations; the list endpoint's ``{"data": [...]}`` page; observations
alone) read as an evaluation set."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ragjudge.errors import DatasetError
from ragjudge.loading import read_evaluation_set
from ragjudge.targets import read_trace


def langfuse_trace(trace_id: str = "lf-trace-1") -> dict[str, Any]:
    return {
        "id": trace_id,
        "name": "support-bot",
        "timestamp": "2025-05-02T10:00:00.000Z",
        "input": {"question": "Can I return a used kettle?"},
        "output": {"answer": "Yes, within 30 days."},
        "latency": 1.75,
        "sessionId": None,
        "tags": [],
        "observations": [
            {
                "id": "obs-retrieve",
                "traceId": trace_id,
                "type": "RETRIEVER",
                "name": "search-policies",
                "parentObservationId": None,
                "startTime": "2025-05-02T10:00:00.100Z",
                "endTime": "2025-05-02T10:00:00.300Z",
                "input": "return used kettle",
                "output": [
                    {
                        "page_content": "Returns are accepted within 30 days.",
                        "metadata": {"source": "policies/returns.md", "score": 0.8},
                    }
                ],
            },
            {
                "id": "obs-tool",
                "traceId": trace_id,
                "type": "TOOL",
                "name": "order_status",
                "parentObservationId": None,
                "startTime": "2025-05-02T10:00:00.310Z",
                "endTime": "2025-05-02T10:00:00.400Z",
                "input": {"order": "K-9"},
                "output": {"status": "delivered"},
            },
            {
                "id": "obs-llm",
                "traceId": trace_id,
                "type": "GENERATION",
                "name": "answer",
                "parentObservationId": None,
                "startTime": "2025-05-02T10:00:00.400Z",
                "endTime": "2025-05-02T10:00:01.700Z",
                "model": "gpt-4o-mini",
                "input": [{"role": "user", "content": "Can I return a used kettle?"}],
                "output": {"role": "assistant", "content": "Yes, within 30 days."},
                "usage": {"input": 120, "output": 9, "total": 129, "unit": "TOKENS"},
                "usageDetails": {"input": 120, "output": 9, "total": 129},
            },
        ],
        "scores": [],
    }


def test_a_langfuse_trace_with_its_observations(tmp_path: Path) -> None:
    path = tmp_path / "langfuse.json"
    path.write_text(json.dumps([langfuse_trace()]))
    loaded = read_evaluation_set(path)
    assert loaded.report.format == "langfuse"
    [sample] = loaded.samples
    assert sample.request_id == "lf-trace-1"
    assert sample.request.query == "Can I return a used kettle?"
    assert sample.response == "Yes, within 30 days."
    [chunk] = sample.retrieved_context or []
    assert (chunk.doc_uri, chunk.content, chunk.score) == (
        "policies/returns.md",
        "Returns are accepted within 30 days.",
        0.8,
    )
    assert sample.metadata["tool_calls"] == [
        {"name": "order_status", "arguments": {"order": "K-9"}, "result": {"status": "delivered"}}
    ]
    reading = read_trace(sample.trace)
    assert reading is not None and reading.usage is not None
    assert (reading.usage.input_tokens, reading.usage.output_tokens) == (120, 9)
    assert reading.latency == pytest.approx(1.75)


def test_the_list_endpoint_page_and_loose_observations(tmp_path: Path) -> None:
    page = tmp_path / "page.json"
    page.write_text(json.dumps({"data": [langfuse_trace("t1"), langfuse_trace("t2")], "meta": {}}))
    assert [s.request_id for s in read_evaluation_set(page).samples] == ["t1", "t2"]
    observations = tmp_path / "observations.jsonl"
    generation = langfuse_trace("t3")["observations"][2]
    observations.write_text(json.dumps(generation) + "\n")
    [sample] = read_evaluation_set(observations, format="langfuse").samples
    assert (sample.request_id, sample.response) == ("t3", "Yes, within 30 days.")


def test_observations_listed_by_id_only_are_named(tmp_path: Path) -> None:
    trace = langfuse_trace()
    trace["observations"] = ["obs-retrieve"]
    path = tmp_path / "langfuse.json"
    path.write_text(json.dumps([trace]))
    with pytest.raises(DatasetError) as caught:
        read_evaluation_set(path)
    [problem] = caught.value.problems
    assert (problem.row, problem.field) == (1, "trace lf-trace-1: observations[0]")
    assert "export the traces with their observations" in problem.reason


def test_a_bad_start_time_is_named(tmp_path: Path) -> None:
    trace = langfuse_trace()
    trace["observations"][1]["startTime"] = "yesterday"
    path = tmp_path / "langfuse.json"
    path.write_text(json.dumps([trace]))
    with pytest.raises(DatasetError, match="startTime must be an ISO time"):
        read_evaluation_set(path)

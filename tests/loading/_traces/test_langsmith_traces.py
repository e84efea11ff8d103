"""LangSmith runs as its client exports them (``Client.list_runs``: flat runs of one
trace, JSON Lines; ``read_run(load_child_runs=True)``: a root run with its
``child_runs``) read as an evaluation set."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ragjudge.errors import DatasetError
from ragjudge.loading import read_evaluation_set
from ragjudge.targets import read_trace

ROOT = "1f0c8a2e-0000-4000-8000-000000000001"


def _run(
    run_id: str, parent: str | None, run_type: str, name: str, start: str, end: str, **extra: Any
) -> dict[str, Any]:
    return {
        "id": run_id,
        "trace_id": ROOT,
        "parent_run_id": parent,
        "name": name,
        "run_type": run_type,
        "start_time": start,
        "end_time": end,
        "dotted_order": "",
        "error": None,
        **extra,
    }


def langsmith_runs() -> list[dict[str, Any]]:
    return [
        _run(
            ROOT,
            None,
            "chain",
            "RunnableSequence",
            "2025-06-01T08:00:00.000000",
            "2025-06-01T08:00:02.250000",
            inputs={"question": "Which plan includes SSO?"},
            outputs={"output": "The Enterprise plan."},
        ),
        _run(
            "1f0c8a2e-0000-4000-8000-000000000002",
            ROOT,
            "retriever",
            "VectorStoreRetriever",
            "2025-06-01T08:00:00.100000",
            "2025-06-01T08:00:00.400000",
            inputs={"query": "plan SSO"},
            outputs={
                "documents": [
                    {
                        "page_content": "SSO is part of Enterprise.",
                        "metadata": {"source": "plans.md"},
                        "type": "Document",
                    },
                ]
            },
        ),
        _run(
            "1f0c8a2e-0000-4000-8000-000000000003",
            ROOT,
            "tool",
            "pricing_api",
            "2025-06-01T08:00:00.500000",
            "2025-06-01T08:00:00.600000",
            inputs={"input": "enterprise"},
            outputs={"output": "$40 per seat"},
        ),
        _run(
            "1f0c8a2e-0000-4000-8000-000000000004",
            ROOT,
            "llm",
            "ChatOpenAI",
            "2025-06-01T08:00:00.700000",
            "2025-06-01T08:00:02.200000",
            inputs={"messages": [[{"role": "user", "content": "Which plan includes SSO?"}]]},
            outputs={
                "generations": [[{"text": "The Enterprise plan."}]],
                "llm_output": {"token_usage": {"prompt_tokens": 88, "completion_tokens": 5}},
            },
        ),
    ]


def test_flat_runs_in_json_lines(tmp_path: Path) -> None:
    path = tmp_path / "runs.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in langsmith_runs()))
    loaded = read_evaluation_set(path)
    assert loaded.report.format == "langsmith"
    [sample] = loaded.samples
    assert (sample.request_id, sample.request.query) == (ROOT, "Which plan includes SSO?")
    assert sample.response == "The Enterprise plan."
    assert [(c.doc_uri, c.content) for c in sample.retrieved_context or []] == [
        ("plans.md", "SSO is part of Enterprise.")
    ]
    assert sample.metadata["tool_calls"] == [
        {"name": "pricing_api", "arguments": "enterprise", "result": "$40 per seat"}
    ]
    reading = read_trace(sample.trace)
    assert reading is not None and reading.usage is not None
    assert (reading.usage.input_tokens, reading.usage.output_tokens) == (88, 5)
    assert reading.latency == pytest.approx(2.25)


def test_a_root_run_with_nested_child_runs(tmp_path: Path) -> None:
    root, *children = langsmith_runs()
    for child in children:
        del child["parent_run_id"], child["trace_id"]
    del root["trace_id"]
    root["child_runs"] = children
    children[2]["prompt_tokens"], children[2]["completion_tokens"] = 90, 6
    path = tmp_path / "run.json"
    path.write_text(json.dumps([root]))
    [sample] = read_evaluation_set(path).samples
    assert sample.request_id == ROOT and sample.response == "The Enterprise plan."
    reading = read_trace(sample.trace)
    assert reading is not None and reading.usage is not None
    assert reading.usage.input_tokens == 90


def test_a_root_run_without_outputs_is_named(tmp_path: Path) -> None:
    runs = langsmith_runs()
    runs[0]["outputs"] = None
    path = tmp_path / "runs.json"
    path.write_text(json.dumps(runs))
    with pytest.raises(DatasetError) as caught:
        read_evaluation_set(path)
    [problem] = caught.value.problems
    assert problem.field == f"trace {ROOT}: RunnableSequence.output"
    assert problem.reason == "the root span has no output"


def test_a_set_with_a_run_type_column_is_not_taken_for_runs(tmp_path: Path) -> None:
    path = tmp_path / "set.jsonl"
    path.write_text(json.dumps({"id": 1, "request": "q", "response": "a", "run_type": "nightly"}))
    loaded = read_evaluation_set(path)
    assert loaded.report.format == "databricks"
    assert loaded.samples[0].metadata["run_type"] == "nightly"


def test_runs_that_cannot_be_read_are_skipped_when_asked(tmp_path: Path) -> None:
    runs = langsmith_runs()
    other = [dict(r, trace_id="other", id=f"{r['id']}-b") for r in langsmith_runs()]
    other[0]["parent_run_id"] = None
    for run in other[1:]:
        run["parent_run_id"] = other[0]["id"]
    other[0]["start_time"] = "soon"
    path = tmp_path / "runs.json"
    path.write_text(json.dumps(runs + other))
    loaded = read_evaluation_set(path, skip_invalid_rows=True)
    assert [s.request_id for s in loaded.samples] == [ROOT]
    [skipped] = loaded.report.skipped
    assert skipped.field == "trace other: <row>"
    assert "start_time must be an ISO time" in skipped.reason

"""Reading MLflow traces: the real trace of ``examples/databricks/trace.json`` (made by
MLflow's own tracing), the MLflow 2 span layout, and rows or targets that give only a
trace."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from ragjudge.loading import DatasetError, load_samples
from ragjudge.schema import Output, Sample
from ragjudge.targets._targets import CallableTarget, DataTarget, output_of_row
from ragjudge.targets._traces import is_mlflow_trace, read_trace, with_trace

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "databricks"
TRACE: dict[str, Any] = json.loads((EXAMPLE / "trace.json").read_text(encoding="utf-8"))
ANSWER = (
    "Because reduceByKey merges the values of each key on every partition before the "
    "shuffle, so much less data is shuffled than with groupByKey, which sends every pair "
    "over the network."
)


def spans() -> list[dict[str, Any]]:
    return list(TRACE["data"]["spans"])


def root_seconds() -> float:
    root = next(s for s in spans() if s["parent_span_id"] is None)
    return (root["end_time_unix_nano"] - root["start_time_unix_nano"]) / 1e9


def test_the_example_trace_is_mlflows_own() -> None:
    assert TRACE["info"]["trace_metadata"]["mlflow.trace_schema.version"] == "3"
    kinds = [json.loads(s["attributes"]["mlflow.spanType"]) for s in spans()]
    assert sorted(kinds) == ["AGENT", "CHAT_MODEL", "LLM", "RETRIEVER", "RETRIEVER"]


def test_response_last_retriever_usage_and_latency_of_the_real_trace() -> None:
    reading = read_trace(TRACE)
    assert reading is not None and reading.problem is None
    assert reading.response == ANSWER
    # the first retriever span returned three documents, the last one two
    assert reading.retrieved_context is not None
    assert [c.doc_uri for c in reading.retrieved_context] == [
        "spark/rdd-reduce-by-key.md",
        "spark/rdd-group-by-key.md",
    ]
    assert reading.retrieved_context[0].content is not None
    assert reading.retrieved_context[0].content.startswith("reduceByKey merges")
    # LLM span 9 + 6, CHAT_MODEL span 48 + 30 (MLflow's own trace total: 57 / 36 / 93)
    assert reading.usage is not None
    assert (reading.usage.input_tokens, reading.usage.output_tokens) == (57, 36)
    usage_total = json.loads(TRACE["info"]["trace_metadata"]["mlflow.trace.tokenUsage"])
    assert reading.usage.total_tokens == usage_total["total_tokens"] == 93
    assert reading.latency == pytest.approx(root_seconds())


def test_json_text_reads_like_the_object() -> None:
    assert read_trace(json.dumps(TRACE)) == read_trace(TRACE)


def to_mlflow2(trace: dict[str, Any]) -> dict[str, Any]:
    """The example trace in MLflow 2's span layout."""
    old = []
    for span in trace["data"]["spans"]:
        old.append(
            {
                "name": span["name"],
                "context": {"span_id": span["span_id"], "trace_id": span["trace_id"]},
                "parent_id": span["parent_span_id"],
                "start_time": span["start_time_unix_nano"],
                "end_time": span["end_time_unix_nano"],
                "status_code": "OK",
                "attributes": span["attributes"],
                "events": [],
            }
        )
    return {"info": {"request_id": "tr-1", "execution_time_ms": 36}, "data": {"spans": old}}


def test_the_mlflow_2_span_layout_reads_the_same() -> None:
    assert read_trace(to_mlflow2(TRACE)) == read_trace(TRACE)


def test_usage_from_a_model_spans_outputs_and_no_double_count_of_nested_spans() -> None:
    trace = copy.deepcopy(TRACE)
    by_name = {s["name"]: s for s in trace["data"]["spans"]}
    del by_name["rewrite"]["attributes"]["mlflow.chat.tokenUsage"]
    by_name["rewrite"]["attributes"]["mlflow.spanOutputs"] = json.dumps(
        {"content": "x", "usage": {"prompt_tokens": 4, "completion_tokens": 2}}
    )
    nested = copy.deepcopy(by_name["generate"])
    nested.update(span_id="nested", parent_span_id=by_name["generate"]["span_id"], name="inner")
    trace["data"]["spans"].append(nested)
    reading = read_trace(trace)
    assert reading is not None and reading.usage is not None
    assert (reading.usage.input_tokens, reading.usage.output_tokens) == (4 + 48, 2 + 30)


@pytest.mark.parametrize(
    ("outputs", "answer"),
    [
        ({"choices": [{"message": {"role": "assistant", "content": "A"}}]}, "A"),
        (
            {"messages": [{"role": "user", "content": "q"}, {"role": "assistant", "content": "B"}]},
            "B",
        ),
        ({"content": "C"}, "C"),
        ("D", "D"),
    ],
)
def test_answer_forms_of_the_root_span(outputs: Any, answer: str) -> None:
    trace = copy.deepcopy(TRACE)
    root = next(s for s in trace["data"]["spans"] if s["parent_span_id"] is None)
    root["attributes"]["mlflow.spanOutputs"] = json.dumps(outputs)
    reading = read_trace(trace)
    assert reading is not None and reading.response == answer


def test_a_root_span_without_an_answer_says_so() -> None:
    trace = copy.deepcopy(TRACE)
    root = next(s for s in trace["data"]["spans"] if s["parent_span_id"] is None)
    root["attributes"]["mlflow.spanOutputs"] = json.dumps({"score": 3})
    reading = read_trace(trace)
    assert reading is not None and reading.response is None
    assert reading.problem == "the root span's outputs hold no answer text"
    del root["attributes"]["mlflow.spanOutputs"]
    reading = read_trace(trace)
    assert reading is not None and reading.problem == "its root span has no outputs"


def test_other_traces_are_not_mlflow_traces() -> None:
    for other in ({"http": {"url": "http://x", "attempts": 1}}, "not json", [1, 2], None):
        assert read_trace(other) is None and not is_mlflow_trace(other)
    output = Output(response="r", trace={"http": {"attempts": 1}})
    assert with_trace(output) is output


def test_malformed_spans_are_left_out_not_fatal() -> None:
    trace = copy.deepcopy(TRACE)
    trace["data"]["spans"] += [None, "x", {"name": "no times"}, {"start_time": "soon"}]
    assert read_trace(trace) == read_trace(TRACE)


def test_a_row_with_only_a_trace_gets_the_traces_output() -> None:
    sample = Sample(request_id="t", request="Why?", trace=json.dumps(TRACE))
    assert isinstance(sample.trace, dict)
    output = output_of_row(sample)
    assert output.error is None and output.response == ANSWER
    assert output.retrieved_context is not None and len(output.retrieved_context) == 2
    assert output.usage.total_tokens == 93 and output.latency == pytest.approx(root_seconds())


async def test_the_rows_own_fields_win_over_the_trace() -> None:
    sample = Sample(
        request_id="t",
        request="Why?",
        response="own",
        retrieved_context=[{"doc_uri": "own.md", "content": "c"}],
        trace=TRACE,
    )
    output = await DataTarget()(sample)
    assert output.response == "own"
    assert output.retrieved_context is not None
    assert [c.doc_uri for c in output.retrieved_context] == ["own.md"]
    assert output.usage.total_tokens == 93


def test_a_row_whose_trace_gives_no_response_is_an_error_output() -> None:
    trace = copy.deepcopy(TRACE)
    root = next(s for s in trace["data"]["spans"] if s["parent_span_id"] is None)
    del root["attributes"]["mlflow.spanOutputs"]
    cases = {
        "the row holds no response": None,
        "its trace is not an MLflow trace": {"http": {}},
        "its trace gives none: its root span has no outputs": trace,
    }
    for message, given in cases.items():
        output = output_of_row(Sample(request_id="t", request="Why?", trace=given))
        assert output.response is None and output.error is not None
        assert message in output.error


def test_a_trace_that_is_not_json_is_the_rows_load_error(tmp_path: Path) -> None:
    path = tmp_path / "set.jsonl"
    rows = [{"request": "q", "trace": "{not json"}, {"request": "q", "trace": [1]}]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    with pytest.raises(DatasetError) as caught:
        load_samples(path)
    problems = [(p.row, p.field) for p in caught.value.problems]
    assert problems == [(1, "trace"), (2, "trace")]
    assert "trace is not JSON" in caught.value.problems[0].reason


async def test_a_python_target_that_returns_a_trace_gets_its_contexts_and_usage() -> None:
    target = CallableTarget(lambda query: {"response": "r", "trace": TRACE})
    output = await target(Sample(request_id="t", request="Why?"))
    assert output.error is None and output.response == "r"
    assert output.retrieved_context is not None and len(output.retrieved_context) == 2
    assert output.usage.input_tokens == 57

"""Evaluation sets shaped by other tools (DeepEval, MLflow 2 and 3, Inspect, hand-made
question/answer files) load and evaluate without renaming a column; the format assumed
and the columns left unread are said."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

import ragjudge as rj

FORMATS = Path(__file__).resolve().parents[2] / "examples" / "formats"


def deepeval_frame() -> pd.DataFrame:
    """As ``pd.DataFrame([golden.model_dump() for golden in dataset.goldens])`` gives it
    after the test cases are filled in: list cells, None where a golden has nothing."""
    return pd.DataFrame(
        {
            "input": ["What does a LEFT JOIN keep?", "What is a deadlock?"],
            "actual_output": ["Every left row.", "Two transactions waiting on each other."],
            "expected_output": [
                "Every row of the left table.",
                "Two transactions each waiting for a lock the other holds.",
            ],
            "context": [["A LEFT JOIN keeps every row of the left table."], None],
            "retrieval_context": [
                ["A LEFT JOIN keeps every row of the left table.", "INNER JOIN keeps matches."],
                ["A deadlock is a cycle of transactions waiting for each other's locks."],
            ],
            "additional_metadata": [{"topic": "joins"}, {"topic": "locking"}],
            "comments": [None, "reviewed"],
            "tools_called": [None, None],
            "expected_tools": [None, None],
        }
    )


def evaluate(data: Any, tmp_path: Path, **kwargs: Any) -> rj.EvaluationResult:
    kwargs.setdefault("metrics", ["rouge_l"])
    return rj.evaluate(data, store=tmp_path / "runs.db", progress=False, **kwargs)


def mean_of(result: rj.EvaluationResult, metric: str = "rouge_l") -> float:
    (summary,) = [s for s in result.summaries if s.metric == metric]
    assert summary.mean is not None and summary.errors == 0
    return summary.mean


# --------------------------------------------------------------------------- DeepEval


def test_a_deepeval_frame_evaluates_without_renaming(tmp_path: Path) -> None:
    from ragjudge.loading import detect_format

    frame = deepeval_frame()
    assert detect_format(frame.columns) == "deepeval"

    result = evaluate(frame, tmp_path)

    assert result.n_samples == 2 and 0 < mean_of(result) <= 1
    notes = "\n".join(result.notes)
    assert "read as DeepEval" in notes
    assert "actual_output → response" in notes and "expected_output → expected_response" in notes
    assert "kept as metadata): comments" in notes


def test_deepeval_contexts_are_chunks_with_derived_uris() -> None:
    from ragjudge.loading import load_samples

    first, second = load_samples(deepeval_frame())

    assert first.retrieved_context is not None
    assert [c.doc_uri for c in first.retrieved_context] == [
        "retrieval_context[0]",
        "retrieval_context[1]",
    ]
    assert all(c.model_extra == {"doc_uri_derived": True} for c in first.retrieved_context)
    assert first.expected_retrieved_context is not None  # DeepEval's ideal context
    assert first.metadata == {"topic": "joins"}
    assert second.metadata == {"topic": "locking", "comments": "reviewed"}


def test_a_deepeval_json_file(tmp_path: Path) -> None:
    from ragjudge.loading import read_evaluation_set

    loaded = read_evaluation_set(FORMATS / "deepeval.json")

    assert loaded.report.format == "deepeval" and loaded.report.guessed
    assert set(loaded.report.unused) == {"comments", "source_file"}
    ja = loaded.samples[1]
    assert ja.request.query == "インデックスを張ると何が速くなりますか?"
    assert ja.metadata["topic"] == "indexes"
    result = evaluate(FORMATS / "deepeval.json", tmp_path, metrics=["token_f1"])
    assert mean_of(result, "token_f1") > 0


def test_deepeval_camel_case_from_the_api() -> None:
    from ragjudge.loading import load_samples

    rows = [{"input": "q", "actualOutput": "a", "expectedOutput": "a", "retrievalContext": ["c"]}]

    (sample,) = load_samples(rows)

    assert (sample.response, sample.expected_response) == ("a", "a")
    assert sample.retrieved_context is not None and sample.retrieved_context[0].content == "c"


# --------------------------------------------------------------------------- MLflow


def test_an_mlflow2_frame_evaluates_without_renaming(tmp_path: Path) -> None:
    from ragjudge.loading import detect_format, load_samples

    frame = pd.DataFrame(
        {
            "inputs": ["What is MLflow?", "What is Spark?"],
            "predictions": ["An open-source ML platform.", "A distributed engine."],
            "ground_truth": [
                "MLflow is an open-source platform for the ML lifecycle.",
                "Spark is a distributed engine.",
            ],
            "context": ["MLflow manages the ML lifecycle.", "Apache Spark processes data."],
        }
    )
    assert detect_format(frame.columns) == "mlflow2"

    result = evaluate(frame, tmp_path)

    assert 0 < mean_of(result) <= 1
    assert any("read as MLflow 2" in n for n in result.notes)
    sample = load_samples(frame)[0]
    assert sample.retrieved_context is not None
    assert sample.retrieved_context[0].doc_uri == "context"  # one text: one chunk


def test_an_mlflow2_csv_file() -> None:
    from ragjudge.loading import load_samples

    samples = load_samples(FORMATS / "mlflow2.csv")

    assert samples[0].request.query == "What does GROUP BY do?"
    assert samples[2].retrieved_context is None  # an empty cell: no context
    assert all(s.response and s.expected_response for s in samples)


def test_an_mlflow3_frame_evaluates_without_renaming(tmp_path: Path) -> None:
    from ragjudge.loading import detect_format, load_samples

    frame = pd.DataFrame(
        {
            "inputs": [{"question": "What is MLflow?"}, {"question": "What is Spark?"}],
            "outputs": ["An open-source ML platform.", {"response": "A distributed engine."}],
            "expectations": [
                {"expected_response": "MLflow is an open-source ML platform."},
                {"expected_response": "Spark is a distributed data engine.", "note": "x"},
            ],
        }
    )
    assert detect_format(frame.columns) == "mlflow3"

    result = evaluate(frame, tmp_path)

    assert 0 < mean_of(result) <= 1
    first, second = load_samples(frame)
    assert first.request.query == "What is MLflow?"
    assert second.response == "A distributed engine."
    assert second.metadata == {"expectations.note": "x"}
    assert any("inputs.question → request" in n for n in result.notes)


def test_an_mlflow3_jsonl_file_with_expected_facts() -> None:
    from ragjudge.loading import load_samples

    samples = load_samples(FORMATS / "mlflow3.jsonl")

    assert samples[2].expected_facts == [
        "a foreign key refers to a key of another table",
        "the database refuses rows that refer to nothing",
    ]
    assert samples[1].response == "保存されたクエリで、表のように参照できます。"
    assert samples[0].metadata == {"topic": "ddl"}


# --------------------------------------------------------------------------- Inspect


def test_an_inspect_frame_evaluates_with_a_target(tmp_path: Path) -> None:
    from ragjudge.loading import detect_format

    frame = pd.DataFrame(
        {
            "id": ["a", "b"],
            "input": ["Which clause filters groups?", "Which keyword removes duplicates?"],
            "target": ["HAVING", ["DISTINCT", "SELECT DISTINCT"]],
            "metadata": [{"topic": "aggregation"}, {"topic": "select"}],
        }
    )
    assert detect_format(frame.columns) == "inspect"
    answers = {
        "Which clause filters groups?": "HAVING",
        "Which keyword removes duplicates?": "DISTINCT",
    }

    result = evaluate(frame, tmp_path, target=lambda query: answers[query], metrics=["exact_match"])

    assert mean_of(result, "exact_match") == 1.0
    assert any("read as Inspect" in n for n in result.notes)


def test_an_inspect_jsonl_file_with_chat_input() -> None:
    from ragjudge.loading import read_evaluation_set

    loaded = read_evaluation_set(FORMATS / "inspect.jsonl")

    first, second, third = loaded.samples
    assert first.request_id == "sql-1" and first.expected_response == "HAVING"
    assert second.request.query == "Which keyword removes duplicate rows from a result?"
    assert second.references == ["DISTINCT", "SELECT DISTINCT"]
    assert third.metadata == {"topic": "window", "choices": ["RANK", "COUNT", "SUM"]}
    assert loaded.report.unused == ["choices"]


# --------------------------------------------------------------------------- QA files


@pytest.mark.parametrize(
    "names",
    [
        ("question", "answer", "reference"),
        ("query", "response", "ground_truth"),
        ("question", "generated_answer", "gold_answer"),
        ("prompt", "completion", "expected_answer"),
        ("user_question", "model_answer", "reference_answer"),
    ],
)
def test_question_answer_reference_variants(names: tuple[str, str, str], tmp_path: Path) -> None:
    from ragjudge.loading import detect_format

    question, answer, reference = names
    frame = pd.DataFrame(
        {
            question: ["What is SQL?"],
            answer: ["A query language."],
            reference: ["A query language."],
        }
    )
    assert detect_format(frame.columns) == "qa"

    result = evaluate(frame, tmp_path)

    assert mean_of(result) == 1.0
    assert any(f"{reference} → expected_response" in n for n in result.notes)


def test_a_qa_file_with_contexts_and_ids(tmp_path: Path) -> None:
    from ragjudge.loading import load_samples

    path = tmp_path / "set.jsonl"
    rows = [{"qid": 7, "question": "q", "answer": "a", "reference": "a", "passages": ["p1", "p2"]}]
    path.write_text(json.dumps(rows[0]) + "\n", encoding="utf-8")

    (sample,) = load_samples(path)

    assert sample.request_id == "7"
    assert sample.retrieved_context is not None
    assert [c.doc_uri for c in sample.retrieved_context] == ["passages[0]", "passages[1]"]


# --------------------------------------------------------------------------- contexts as strings


def test_databricks_retrieved_context_as_strings_is_accepted() -> None:
    from ragjudge.loading import load_samples

    rows = [
        {
            "request": "q",
            "response": "r",
            "retrieved_context": ["first passage", {"doc_uri": "doc.md", "content": "c"}],
            "expected_retrieved_context": "the one expected passage",
        }
    ]

    (sample,) = load_samples(rows)

    assert sample.retrieved_context is not None
    derived, given = sample.retrieved_context
    assert (derived.doc_uri, derived.content) == ("retrieved_context[0]", "first passage")
    assert derived.model_extra == {"doc_uri_derived": True}
    assert given.doc_uri == "doc.md" and not given.model_extra
    assert sample.expected_retrieved_context is not None
    assert sample.expected_retrieved_context[0].doc_uri == "expected_retrieved_context"


def test_databricks_frame_with_string_contexts_evaluates(tmp_path: Path) -> None:
    frame = pd.DataFrame(
        {
            "request": ["q1", "q2"],
            "response": ["a b", "c"],
            "expected_response": ["a b", "d"],
            "retrieved_context": [np.array(["x", "y"]), ["z"]],
        }
    )

    result = evaluate(frame, tmp_path)

    assert mean_of(result) == 0.5
    assert not result.notes  # a Databricks set whose columns are all fields: nothing to say


async def test_a_targets_string_contexts_are_marked_derived_too() -> None:
    from ragjudge.schema import Sample
    from ragjudge.targets._targets import CallableTarget

    def answer(query: str) -> dict[str, Any]:
        return {
            "response": "r",
            "retrieved_context": ["plain text", {"doc_uri": "d.md", "content": "c"}],
        }

    out = await CallableTarget(answer)(Sample(request_id="1", request="q"))

    assert out.retrieved_context is not None
    derived, given = out.retrieved_context
    assert derived.doc_uri == "retrieved_context[0]" and derived.model_extra == {
        "doc_uri_derived": True
    }
    assert not given.model_extra

"""Row formats of more evaluation tools: DeepEval, MLflow 2 and 3, Inspect, and the
generic question/answer/reference files people write themselves.

Each mapper moves the tool's own columns to Sample fields (recording the column each
came from); columns it does not claim go to ``metadata`` like in every format. Contexts
given as plain strings become chunks with a derived ``doc_uri`` (see
:func:`ragjudge.loading._mapping.chunks_of`).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ragjudge.loading._mapping import Mapped, RowFormat, chunks_of, messages_request

__all__ = ["PEER_ROW_FORMATS", "QA_SYNONYMS", "detect_peer_format"]


def _map_deepeval(row: dict[str, Any], mapped: Mapped) -> None:
    """DeepEval goldens and test cases (``save_as`` JSON/CSV; the Confident AI API
    spells them in camelCase): ``context`` is DeepEval's ideal context, so it is the
    expected retrieved context; ``retrieval_context`` is what the system retrieved."""
    for snake, camel in _DEEPEVAL_CAMEL.items():
        if camel in row and snake not in row:
            row[snake] = row.pop(camel)
    mapped.take(row, "input", "request")
    mapped.take(row, "actual_output", "response")
    mapped.take(row, "expected_output", "expected_response")
    mapped.take(row, "retrieval_context", "retrieved_context", chunks_of("retrieval_context"))
    mapped.take(row, "context", "expected_retrieved_context", chunks_of("context"))
    mapped.take(row, "name", "request_id")
    _merge_metadata(row, mapped, "additional_metadata")


_DEEPEVAL_CAMEL = {
    "actual_output": "actualOutput",
    "expected_output": "expectedOutput",
    "retrieval_context": "retrievalContext",
    "additional_metadata": "additionalMetadata",
    "tools_called": "toolsCalled",
    "expected_tools": "expectedTools",
    "source_file": "sourceFile",
}


def _map_mlflow2(row: dict[str, Any], mapped: Mapped) -> None:
    """``mlflow.evaluate`` data of MLflow 2: ``inputs`` (the question), ``predictions``
    (or ``outputs``), ``ground_truth`` and ``context`` (the retrieved context)."""
    _take_inputs(row, mapped)
    mapped.take(row, "predictions", "response", _response_text)
    mapped.take(row, "outputs", "response", _response_text)
    mapped.take(row, "ground_truth", "expected_response")
    mapped.take(row, "context", "retrieved_context", chunks_of("context"))


def _map_mlflow3(row: dict[str, Any], mapped: Mapped) -> None:
    """``mlflow.genai.evaluate`` data of MLflow 3: ``inputs`` (a dict of the app's
    arguments), ``outputs`` and ``expectations`` (``expected_response``,
    ``expected_facts``, ``guidelines``, ``expected_retrieved_context``); ``trace``
    needs no translation."""
    _take_inputs(row, mapped)
    outputs = row.get("outputs")
    if isinstance(outputs, dict) and isinstance(outputs.get("retrieved_context"), list):
        row["retrieved_context"] = outputs["retrieved_context"]
        mapped.origins[("retrieved_context",)] = "outputs.retrieved_context"
    mapped.take(row, "outputs", "response", _response_text)
    expectations = row.pop("expectations", None)
    if isinstance(expectations, dict):
        for key, value in expectations.items():
            if key in _EXPECTATION_FIELDS and value is not None:
                mapped.fields[key] = _EXPECTATION_FIELDS[key](value)
                mapped.origins[(key,)] = f"expectations.{key}"
            elif value is not None:
                mapped.metadata[f"expectations.{key}"] = value
    elif expectations is not None:
        mapped.metadata["expectations"] = expectations
    _merge_metadata(row, mapped, "tags")


_EXPECTATION_FIELDS = {
    "expected_response": lambda v: v,
    "expected_facts": lambda v: v,
    "guidelines": lambda v: v,
    "expected_retrieved_context": chunks_of("expectations.expected_retrieved_context"),
}


def _map_inspect(row: dict[str, Any], mapped: Mapped) -> None:
    """Inspect AI samples: ``input`` (a string or chat messages), ``target`` (a string or
    a list of acceptable answers), ``id`` and ``metadata``; ``choices``, ``files``,
    ``setup`` and ``sandbox`` are kept in metadata."""
    if isinstance(row.get("input"), list):
        mapped.origins[("request", "messages")] = "input"
    mapped.take(row, "input", "request", messages_request)
    mapped.take(row, "target", "expected_response", _non_empty_list)
    mapped.take(row, "id", "request_id")


QA_SYNONYMS: dict[str, tuple[str, ...]] = {
    "request": ("question", "query", "prompt", "user_question", "user_query", "q"),
    "response": (
        "answer",
        "response",
        "output",
        "prediction",
        "generated_answer",
        "model_answer",
        "completion",
        "a",
    ),
    "expected_response": (
        "reference",
        "reference_answer",
        "ground_truth",
        "ground_truths",
        "expected_answer",
        "expected",
        "gold_answer",
        "gold",
        "golden_answer",
        "ideal_answer",
        "label",
    ),
    "retrieved_context": (
        "contexts",
        "context",
        "retrieved_contexts",
        "passages",
        "documents",
        "chunks",
        "sources",
    ),
    "expected_retrieved_context": ("reference_contexts", "gold_contexts", "expected_contexts"),
    "request_id": ("id", "qid", "question_id", "query_id", "sample_id", "example_id"),
}
"""Column names of hand-made question/answer files, per Sample field, first match wins."""


def _map_qa(row: dict[str, Any], mapped: Mapped) -> None:
    """A question/answer/reference file with its own spelling of the columns (see
    :data:`QA_SYNONYMS`); the first column of each field's list that the row holds is
    taken, the others stay in metadata."""
    for target, names in QA_SYNONYMS.items():
        if target in mapped.fields:
            continue
        source = next((name for name in names if name in row), None)
        if source is None:
            continue
        convert = chunks_of(source) if target.endswith("retrieved_context") else None
        mapped.take(row, source, target, convert)


def _take_inputs(row: dict[str, Any], mapped: Mapped) -> None:
    """MLflow's ``inputs``: a string, or a dict of arguments. A dict with one text value
    (``{"question": ...}``) is that text; ``messages`` or ``query`` dicts are requests
    as they are; any other dict is passed on whole."""
    inputs = row.get("inputs")
    if isinstance(inputs, dict):
        texts = [(k, v) for k, v in inputs.items() if isinstance(v, str)]
        if "messages" not in inputs and "query" not in inputs and len(inputs) == len(texts) == 1:
            key, text = texts[0]
            row.pop("inputs")
            mapped.fields["request"] = text
            mapped.origins[("request",)] = f"inputs.{key}"
            return
    mapped.take(row, "inputs", "request", messages_request)


def _response_text(value: Any) -> Any:
    """An output dict holding its answer under ``response`` (or ``answer``) is that
    answer; OpenAI ``choices`` dicts and strings pass on to validation."""
    if isinstance(value, dict):
        for key in ("response", "answer", "output"):
            if isinstance(value.get(key), str):
                return value[key]
    return value


def _non_empty_list(value: Any) -> Any:
    """Inspect writes no target as an empty string or list: no reference."""
    return None if value in ("", []) else value


def _merge_metadata(row: dict[str, Any], mapped: Mapped, column: str) -> None:
    """A tool's own metadata dict becomes the sample's metadata (other values stay under
    the column's name)."""
    value = row.pop(column, None)
    if isinstance(value, dict):
        mapped.metadata.update(value)
    elif value is not None:
        mapped.metadata[column] = value


PEER_ROW_FORMATS: tuple[RowFormat, ...] = (
    RowFormat("deepeval", _map_deepeval, request_column="input", title="DeepEval"),
    RowFormat("mlflow2", _map_mlflow2, request_column="inputs", title="MLflow 2 (mlflow.evaluate)"),
    RowFormat(
        "mlflow3", _map_mlflow3, request_column="inputs", title="MLflow 3 (mlflow.genai.evaluate)"
    ),
    RowFormat("inspect", _map_inspect, request_column="input", title="Inspect AI"),
    RowFormat("qa", _map_qa, request_column="question", title="question/answer/reference"),
)

_DEEPEVAL_MARKS = frozenset(
    {"actual_output", "expected_output", "retrieval_context", *_DEEPEVAL_CAMEL.values()}
)
_MLFLOW3_MARKS = frozenset({"expectations", "outputs"})


def detect_peer_format(names: Iterable[str]) -> str | None:
    """The peer format whose marks the column names carry, or None."""
    columns = set(names)
    if "input" in columns and columns & _DEEPEVAL_MARKS:
        return "deepeval"
    if "inputs" in columns:
        return "mlflow3" if columns & _MLFLOW3_MARKS and "predictions" not in columns else "mlflow2"
    if "input" in columns and "target" in columns:
        return "inspect"
    if columns & set(QA_SYNONYMS["request"]):
        return "qa"
    return None

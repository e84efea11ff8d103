"""Reading MLflow traces (the ``trace`` field of the Databricks evaluation schema).

A trace is MLflow's JSON of one run of the application (``Trace.to_json()``: ``info``
and ``data.spans``), as an object or as JSON text. Both span layouts are read: MLflow 3
(``span_id``, ``parent_span_id``, ``start_time_unix_nano`` …) and MLflow 2
(``context.span_id``, ``parent_id``, ``start_time`` in nanoseconds). Span attributes hold
JSON text (``mlflow.spanType`` is ``"\\"RETRIEVER\\""``).

What a trace gives, as the schema defines it:

- the **response**: the root span's outputs (a string, an OpenAI ``choices`` object, a
  ``messages`` list ending with the assistant's answer, or an object with ``content``);
- the **retrieved context**: the outputs of the last ``RETRIEVER`` span in time order,
  each document's ``page_content`` with its ``metadata.doc_uri``;
- the **token usage**: the sum over ``LLM`` and ``CHAT_MODEL`` spans of their
  ``mlflow.chat.tokenUsage`` attribute (else the ``usage`` object of their outputs); a
  model span inside one that already counts is not counted again;
- the **latency**: the root span's duration in seconds.

Reading never raises on a malformed trace: what cannot be read is absent, and
:attr:`TraceReading.problem` says why.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ragjudge._util.json_text import decoded_json
from ragjudge.schema import ContextChunk, Output, ToolCall, Usage, response_text
from ragjudge.targets._tool_calls import tool_calls_in_reply, tool_calls_in_spans

__all__ = ["TraceReading", "is_mlflow_trace", "read_trace", "with_trace"]

MODEL_SPAN_TYPES = frozenset({"LLM", "CHAT_MODEL"})
_USAGE_ATTRIBUTE = "mlflow.chat.tokenUsage"


@dataclass(frozen=True)
class TraceReading:
    """What a trace says about one run of the application; None where it says nothing."""

    response: str | None = None
    retrieved_context: list[ContextChunk] | None = None
    usage: Usage | None = None
    latency: float | None = None
    problem: str | None = None
    """Why the response could not be read, when it could not."""
    tool_calls: list[ToolCall] | None = None
    """The tools called: the ``TOOL`` spans, else the root's OpenAI ``tool_calls``."""


@dataclass(frozen=True)
class _Span:
    span_id: str | None
    parent_id: str | None
    name: str
    start: int
    end: int | None
    attributes: dict[str, Any]

    @property
    def span_type(self) -> str | None:
        kind = self.attributes.get("mlflow.spanType")
        return kind.upper() if isinstance(kind, str) else None

    @property
    def outputs(self) -> Any:
        return self.attributes.get("mlflow.spanOutputs")


def is_mlflow_trace(trace: Any) -> bool:
    """Whether ``trace`` (an object or JSON text) has the shape of an MLflow trace."""
    return _spans_of(_as_object(trace)) is not None


def read_trace(trace: Any) -> TraceReading | None:
    """The response, retrieved context, token usage and latency of an MLflow trace;
    None when ``trace`` is not one (another program's trace, an HTTP exchange …)."""
    found = _as_object(trace)
    raw_spans = _spans_of(found)
    if found is None or raw_spans is None:
        return None
    spans = sorted(
        (s for s in (_span(raw) for raw in raw_spans) if s is not None),
        key=lambda s: (s.start, s.end or s.start),
    )
    root = next((s for s in spans if s.parent_id is None), None)
    response, problem = _response(root, found)
    return TraceReading(
        response=response,
        retrieved_context=_retrieved(spans),
        usage=_usage(spans),
        latency=_latency(root, found),
        problem=problem,
        tool_calls=_tool_calls(spans, root),
    )


def with_trace(output: Output) -> Output:
    """``output`` with what its MLflow trace adds: the response and retrieved context
    when the output has none, the token usage when none was reported, the latency when
    none was measured."""
    reading = read_trace(output.trace)
    if reading is None:
        return output
    update: dict[str, Any] = {}
    if output.response is None and reading.response is not None:
        update["response"] = reading.response
    if output.retrieved_context is None and reading.retrieved_context is not None:
        update["retrieved_context"] = reading.retrieved_context
    if output.usage.total_tokens == 0 and reading.usage is not None:
        update["usage"] = reading.usage
    if output.latency is None and reading.latency is not None:
        update["latency"] = reading.latency
    if output.tool_calls is None and reading.tool_calls is not None:
        update["tool_calls"] = reading.tool_calls
    return output.model_copy(update=update) if update else output


def _tool_calls(spans: Sequence[_Span], root: _Span | None) -> list[ToolCall] | None:
    found = tool_calls_in_spans(spans)
    if found is None and root is not None:
        found = tool_calls_in_reply(root.outputs)
    return found


# the trace's structure ----------------------------------------------------------


def _as_object(trace: Any) -> dict[str, Any] | None:
    if isinstance(trace, str):
        try:
            trace = json.loads(trace)
        except ValueError:
            return None
    return dict(trace) if isinstance(trace, Mapping) else None


def _spans_of(trace: dict[str, Any] | None) -> list[Any] | None:
    data = trace.get("data") if trace is not None else None
    spans = data.get("spans") if isinstance(data, Mapping) else None
    return spans if isinstance(spans, list) else None


def _span(raw: Any) -> _Span | None:
    if not isinstance(raw, Mapping):
        return None
    context = _mapping(raw.get("context"))
    start = _nanoseconds(raw.get("start_time_unix_nano", raw.get("start_time")))
    if start is None:
        return None
    attributes = _mapping(raw.get("attributes"))
    return _Span(
        span_id=_text(raw.get("span_id", context.get("span_id"))),
        parent_id=_text(raw.get("parent_span_id", raw.get("parent_id"))),
        name=str(raw.get("name") or "span"),
        start=start,
        end=_nanoseconds(raw.get("end_time_unix_nano", raw.get("end_time"))),
        attributes={str(k): decoded_json(v) for k, v in attributes.items()},
    )


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _nanoseconds(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return int(value)
    if isinstance(value, str) and value.strip().isdigit():
        return int(value)
    return None


def _text(value: Any) -> str | None:
    return None if value in (None, "") else str(value)


# what the trace says ----------------------------------------------------------------


def _response(root: _Span | None, trace: dict[str, Any]) -> tuple[str | None, str | None]:
    """The root span's outputs as the answer text (MLflow 2 also keeps it as
    ``data.response``), or the reason there is none."""
    candidates: list[Any] = []
    if root is not None and root.outputs is not None:
        candidates.append(root.outputs)
    data = trace.get("data")
    if isinstance(data, Mapping) and data.get("response") is not None:
        candidates.append(decoded_json(data["response"]))
    if not candidates:
        reason = "the trace has no root span" if root is None else "its root span has no outputs"
        return None, reason
    for value in candidates:
        text = _answer_text(value)
        if text is not None:
            return text, None
    return None, "the root span's outputs hold no answer text"


def _answer_text(value: Any) -> str | None:
    if isinstance(value, str):
        return value
    if not isinstance(value, Mapping):
        return None
    messages = value.get("messages")
    if isinstance(messages, list):
        answers = [
            m["content"]
            for m in messages
            if isinstance(m, Mapping)
            and m.get("role") == "assistant"
            and isinstance(m.get("content"), str)
        ]
        return answers[-1] if answers else None
    for key in ("response", "output", "answer"):
        if isinstance(value.get(key), str):
            return str(value[key])
    try:
        return response_text(dict(value))
    except ValueError:
        return None


def _retrieved(spans: Sequence[_Span]) -> list[ContextChunk] | None:
    """The documents of the last RETRIEVER span in time order."""
    retrievers = [s for s in spans if s.span_type == "RETRIEVER"]
    if not retrievers:
        return None
    last = retrievers[-1]
    documents = last.outputs if isinstance(last.outputs, list) else []
    return [_chunk(doc, f"{last.name}[{i}]") for i, doc in enumerate(documents)]


def _chunk(document: Any, where: str) -> ContextChunk:
    """One retrieved document: LangChain/MLflow ``Document`` JSON (``page_content``,
    ``metadata.doc_uri``), an object with ``content``/``text`` and ``doc_uri``, or
    text. ``where`` (span name and position) stands in for a missing ``doc_uri``."""
    if isinstance(document, str):
        return ContextChunk(doc_uri=where, content=document)
    if not isinstance(document, Mapping):
        return ContextChunk(doc_uri=where, content=json.dumps(document, default=str))
    metadata = _mapping(document.get("metadata"))
    uri = next(
        (
            str(v)
            for v in (
                document.get("doc_uri"),
                metadata.get("doc_uri"),
                metadata.get("source"),
                document.get("id"),
            )
            if v not in (None, "")
        ),
        where,
    )
    content = next(
        (
            document[k]
            for k in ("page_content", "content", "text")
            if isinstance(document.get(k), str)
        ),
        None,
    )
    return ContextChunk(doc_uri=uri, content=content)


def _usage(spans: Sequence[_Span]) -> Usage | None:
    """Tokens over the model spans; a model span inside a counted one is left out (its
    tokens are already in its parent's)."""
    by_id = {s.span_id: s for s in spans if s.span_id is not None}
    counted: set[str | None] = set()
    total: Usage | None = None
    for span in spans:
        if span.span_type not in MODEL_SPAN_TYPES:
            continue
        used = _span_usage(span)
        if used is None or _inside(span, counted, by_id):
            continue
        counted.add(span.span_id)
        total = used if total is None else _added(total, used)
    return total


def _span_usage(span: _Span) -> Usage | None:
    reported = span.attributes.get(_USAGE_ATTRIBUTE)
    if not isinstance(reported, Mapping) and isinstance(span.outputs, Mapping):
        reported = span.outputs.get("usage")
    if not isinstance(reported, Mapping):
        return None
    found_in = _count(reported, "input_tokens", "prompt_tokens")
    found_out = _count(reported, "output_tokens", "completion_tokens")
    if found_in is None and found_out is None:
        return None
    return Usage(input_tokens=found_in or 0, output_tokens=found_out or 0)


def _count(values: Mapping[str, Any], *keys: str) -> int | None:
    for key in keys:
        value = values.get(key)
        if isinstance(value, int | float) and not isinstance(value, bool) and value >= 0:
            return int(value)
    return None


def _added(a: Usage, b: Usage) -> Usage:
    return Usage(
        input_tokens=a.input_tokens + b.input_tokens,
        output_tokens=a.output_tokens + b.output_tokens,
    )


def _inside(span: _Span, counted: set[str | None], by_id: Mapping[str, _Span]) -> bool:
    seen: set[str] = set()
    parent = span.parent_id
    while parent is not None and parent not in seen:
        if parent in counted:
            return True
        seen.add(parent)
        found = by_id.get(parent)
        parent = found.parent_id if found is not None else None
    return False


def _latency(root: _Span | None, trace: dict[str, Any]) -> float | None:
    """The root span's duration in seconds, else the trace's recorded duration."""
    if root is not None and root.end is not None and root.end >= root.start:
        return (root.end - root.start) / 1e9
    info = trace.get("info")
    if isinstance(info, Mapping):
        for key in ("execution_duration_ms", "execution_time_ms"):
            value = info.get(key)
            if isinstance(value, int | float) and not isinstance(value, bool) and value >= 0:
                return float(value) / 1000
    return None

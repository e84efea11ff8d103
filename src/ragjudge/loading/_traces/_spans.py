"""One shape for the spans of every trace format, and the evaluation-set row a trace
becomes.

Each reader (OTLP JSON, Langfuse, LangSmith) turns its traces into :class:`ForeignTrace`
objects; :func:`trace_row` turns one into a row of Databricks field names: the request
and the response from the root span, the retrieved context from the last retriever
span, the tool calls in the metadata, and the whole trace kept in the ``trace`` field
in MLflow's JSON layout, which is where the run reads token counts and latency from.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from ragjudge.errors import RowProblem

__all__ = [
    "ForeignTrace",
    "TraceSpan",
    "answer_text",
    "document",
    "iso_nanoseconds",
    "trace_row",
    "usage_of",
]

SPAN_KINDS = frozenset({"LLM", "RETRIEVER", "TOOL", "CHAIN", "AGENT", "EMBEDDING", "UNKNOWN"})
_REQUEST_KEYS = ("input", "question", "query", "request", "prompt", "user_input", "text")
_ANSWER_KEYS = ("output", "answer", "response", "result", "content", "text")


@dataclass
class TraceSpan:
    """One span, whatever format it came from. ``kind`` is one of :data:`SPAN_KINDS`;
    ``documents`` (retriever spans) are ``{doc_uri, content, score}`` objects; ``usage``
    holds ``input_tokens``/``output_tokens`` when the span reports them."""

    span_id: str
    parent_id: str | None
    name: str
    kind: str
    start_ns: int
    end_ns: int | None
    inputs: Any = None
    outputs: Any = None
    documents: list[dict[str, Any]] | None = None
    usage: dict[str, int] | None = None


@dataclass
class ForeignTrace:
    """The spans of one trace, and the trace-level request and response some formats
    record beside the spans (Langfuse's trace ``input``/``output``)."""

    trace_id: str
    spans: list[TraceSpan] = field(default_factory=list)
    request: Any = None
    response: Any = None


def trace_row(
    trace: ForeignTrace, label: str, row: int, format_name: str
) -> dict[str, Any] | RowProblem:
    """The evaluation-set row of ``trace`` (number ``row`` of the file ``label``), or
    the problem naming the trace when it has no root span or its root gives no answer."""
    spans = sorted(trace.spans, key=lambda s: (s.start_ns, s.end_ns or s.start_ns))
    root = _root(spans)
    if root is None:
        return _problem(label, row, trace, "<trace>", "has no spans")
    request = _request_value(trace.request if trace.request is not None else root.inputs)
    if request is None:
        return _problem(label, row, trace, f"{root.name}.input", "the root span has no input")
    outputs = trace.response if trace.response is not None else root.outputs
    response = answer_text(outputs)
    if response is None:
        reason = (
            "the root span has no output"
            if outputs is None
            else "the root span's output holds no answer text"
        )
        return _problem(label, row, trace, f"{root.name}.output", reason)
    found: dict[str, Any] = {
        "request_id": trace.trace_id,
        "request": request,
        "response": response,
        "trace": mlflow_trace(trace.trace_id, spans),
        "metadata": {"trace_format": format_name},
    }
    retrieved = _retrieved(spans)
    if retrieved is not None:
        found["retrieved_context"] = retrieved
    tools = _tool_calls(spans)
    if tools:
        found["metadata"]["tool_calls"] = tools
    return found


def _problem(label: str, row: int, trace: ForeignTrace, where: str, reason: str) -> RowProblem:
    return RowProblem(
        source=label, row=row, field=f"trace {trace.trace_id}: {where}", reason=reason
    )


def _root(spans: Sequence[TraceSpan]) -> TraceSpan | None:
    """The first span without a parent in the trace (a parent outside the export
    counts as none)."""
    ids = {s.span_id for s in spans}
    return next((s for s in spans if s.parent_id is None or s.parent_id not in ids), None)


def _request_value(value: Any) -> Any:
    """The request as ragjudge reads it: text, or a ``messages`` object."""
    value = _parsed(value)
    if isinstance(value, str):
        return value or None
    if isinstance(value, Mapping):
        for key in _REQUEST_KEYS:
            if isinstance(value.get(key), str) and value[key]:
                return value[key]
        messages = value.get("messages")
        if isinstance(messages, list) and messages:
            return {"messages": _chat_messages(messages)}
        return json.dumps(value, ensure_ascii=False, default=str) if value else None
    if isinstance(value, list) and value and all(isinstance(m, Mapping) for m in value):
        return {"messages": _chat_messages(value)}
    return None


def _chat_messages(messages: Sequence[Any]) -> list[dict[str, Any]]:
    return [
        {
            "role": str(m.get("role") or "user"),
            "content": _content_text(m.get("content") if "content" in m else m.get("parts")),
        }
        for m in messages
        if isinstance(m, Mapping)
    ]


def _content_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # parts: [{"type": "text", "text": …}]
        return "".join(
            str(p.get("text") or p.get("content") or "") for p in content if isinstance(p, Mapping)
        )
    return "" if content is None else json.dumps(content, ensure_ascii=False, default=str)


def answer_text(value: Any) -> str | None:
    """The answer a span's output holds: text, the last assistant message, an OpenAI
    ``choices`` object, LangChain ``generations``, or an object with an answer key."""
    value = _parsed(value)
    if isinstance(value, str):
        return value or None
    if isinstance(value, list):
        return _last_assistant(value)
    if not isinstance(value, Mapping):
        return None
    for key in _ANSWER_KEYS:
        found = value.get(key)
        if isinstance(found, str):
            return found
        if isinstance(found, Mapping | list) and key != "content":
            nested = answer_text(found)
            if nested is not None:
                return nested
    if isinstance(value.get("messages"), list):
        return _last_assistant(value["messages"])
    choices = value.get("choices")
    if isinstance(choices, list) and choices and isinstance(choices[0], Mapping):
        return answer_text(choices[0].get("message") or choices[0].get("text"))
    generations = value.get("generations")
    if isinstance(generations, list) and generations:
        first = generations[0][0] if isinstance(generations[0], list) else generations[0]
        return answer_text(first) if isinstance(first, Mapping) else None
    return None


def _last_assistant(messages: Sequence[Any]) -> str | None:
    answers = [
        _content_text(m.get("content") if "content" in m else m.get("parts"))
        for m in messages
        if isinstance(m, Mapping) and m.get("role") in ("assistant", "ai", None)
    ]
    return answers[-1] if answers and answers[-1] else None


def _parsed(value: Any) -> Any:
    """Text holding a JSON object or array, read; anything else as it is."""
    if isinstance(value, str) and value[:1] in ("{", "["):
        try:
            return json.loads(value)
        except ValueError:
            return value
    return value


def _retrieved(spans: Sequence[TraceSpan]) -> list[dict[str, Any]] | None:
    """The documents of the last retriever span in time order."""
    retrievers = [s for s in spans if s.kind == "RETRIEVER" and s.documents is not None]
    return list(retrievers[-1].documents or []) if retrievers else None


def _tool_calls(spans: Sequence[TraceSpan]) -> list[dict[str, Any]]:
    return [
        {"name": s.name, "arguments": _parsed(s.inputs), "result": _parsed(s.outputs)}
        for s in spans
        if s.kind == "TOOL"
    ]


def document(content: Any, doc_id: Any, score: Any, metadata: Any, where: str) -> dict[str, Any]:
    """One retrieved document as a context chunk; ``where`` (span name and position)
    stands in for a missing id, and is marked as derived."""
    meta = _parsed(metadata)
    meta = meta if isinstance(meta, Mapping) else {}
    uri = next(
        (
            str(v)
            for v in (meta.get("doc_uri"), meta.get("source"), meta.get("url"), doc_id)
            if v not in (None, "")
        ),
        None,
    )
    chunk: dict[str, Any] = {"doc_uri": uri or where}
    if uri is None:
        chunk["doc_uri_derived"] = True
    if content is not None:
        chunk["content"] = content if isinstance(content, str) else json.dumps(content)
    if isinstance(score, int | float) and not isinstance(score, bool):
        chunk["score"] = float(score)
    return chunk


def mlflow_trace(trace_id: str, spans: Sequence[TraceSpan]) -> dict[str, Any]:
    """The trace in MLflow 3's JSON layout (``Trace.to_json()``), the one shape the
    rest of ragjudge reads spans from: span attributes as JSON text, retriever outputs
    as documents, token counts under ``mlflow.chat.tokenUsage``."""
    return {
        "info": {"trace_id": trace_id},
        "data": {"spans": [_mlflow_span(s) for s in spans]},
    }


def _mlflow_span(span: TraceSpan) -> dict[str, Any]:
    attributes = {
        "mlflow.spanType": json.dumps(span.kind),
        "mlflow.spanInputs": json.dumps(_parsed(span.inputs), default=str),
        "mlflow.spanOutputs": json.dumps(_mlflow_outputs(span), default=str),
    }
    if span.usage:
        attributes["mlflow.chat.tokenUsage"] = json.dumps(span.usage)
    return {
        "name": span.name,
        "span_id": span.span_id,
        "parent_span_id": span.parent_id,
        "start_time_unix_nano": span.start_ns,
        "end_time_unix_nano": span.end_ns,
        "attributes": attributes,
    }


def _mlflow_outputs(span: TraceSpan) -> Any:
    if span.documents is None:
        return _parsed(span.outputs)
    return [
        {
            "page_content": d.get("content"),
            "metadata": {
                "doc_uri": d["doc_uri"],
                **({"score": d["score"]} if "score" in d else {}),
            },
        }
        for d in span.documents
    ]


def usage_of(input_tokens: Any, output_tokens: Any) -> dict[str, int] | None:
    """``{input_tokens, output_tokens}`` from counts that may be absent, text or
    floats; None when neither is a count."""
    counts = {
        name: int(value)
        for name, value in (("input_tokens", input_tokens), ("output_tokens", output_tokens))
        if _is_count(value)
    }
    if not counts:
        return None
    counts.setdefault("input_tokens", 0)
    counts.setdefault("output_tokens", 0)
    return counts


def _is_count(value: Any) -> bool:
    if isinstance(value, str) and value.isdigit():
        return True
    return isinstance(value, int | float) and not isinstance(value, bool) and value >= 0


def iso_nanoseconds(value: Any) -> int | None:
    """An ISO 8601 time (``2025-01-02T03:04:05.123456789Z``; no zone is UTC) as
    nanoseconds since the epoch; None when it is not one."""
    if not isinstance(value, str):
        return None
    found = _ISO_TIME.match(value.strip())
    if found is None:
        return None
    base, fraction, zone = found.group(1), found.group(2) or "", found.group(3) or "+00:00"
    try:
        moment = datetime.fromisoformat(base + ("+00:00" if zone in ("Z", "z") else zone))
    except ValueError:
        return None
    seconds = int(moment.timestamp())
    return seconds * 1_000_000_000 + int((fraction[1:] + "000000000")[:9] or 0)


_ISO_TIME = re.compile(r"^(\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2})(\.\d+)?(Z|z|[+-]\d{2}:?\d{2})?$")

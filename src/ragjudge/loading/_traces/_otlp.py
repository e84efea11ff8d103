"""OpenTelemetry traces in OTLP JSON (the protobuf JSON mapping of an
``ExportTraceServiceRequest``, one request per file or one per line as the collector's
file exporter writes them), read with the OpenInference and the GenAI semantic
conventions.

The attribute names come from the published convention packages
(``openinference-semantic-conventions``, ``opentelemetry-semantic-conventions``: the
``traces`` extra), imported when a file is read.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from ragjudge._util.extras import require_extra
from ragjudge.errors import RowProblem
from ragjudge.loading._traces._spans import SPAN_KINDS, ForeignTrace, TraceSpan, document, usage_of

__all__ = ["otlp_traces"]

_HEX_ID = re.compile(r"^[0-9a-fA-F]{16}([0-9a-fA-F]{16})?$")
_GENAI_KINDS = {
    "chat": "LLM",
    "generate_content": "LLM",
    "text_completion": "LLM",
    "embeddings": "EMBEDDING",
    "retrieval": "RETRIEVER",
    "execute_tool": "TOOL",
    "create_agent": "AGENT",
    "invoke_agent": "AGENT",
    "invoke_workflow": "CHAIN",
}


class _Malformed(ValueError):
    """A span that cannot be read; ``where`` is its path in the file."""

    def __init__(self, where: str, reason: str) -> None:
        super().__init__(reason)
        self.where = where
        self.reason = reason


@dataclass
class _Names:
    """The attribute names of both conventions, from their packages."""

    oi: Any
    oi_document: Any
    oi_message: Any
    genai: Any


def _names() -> _Names:
    require_extra("traces", "Reading OpenTelemetry traces")
    from openinference.semconv.trace import DocumentAttributes, MessageAttributes, SpanAttributes
    from opentelemetry.semconv._incubating.attributes import gen_ai_attributes

    return _Names(SpanAttributes, DocumentAttributes, MessageAttributes, gen_ai_attributes)


def otlp_traces(
    label: str, requests: list[tuple[int, Any]]
) -> tuple[list[ForeignTrace], list[RowProblem]]:
    """The traces of the OTLP requests (each with the row it was read from), grouped by
    trace id in order of first appearance, and the problems of spans that cannot be
    read (naming the trace and the span's path)."""
    names = _names()
    traces: dict[str, ForeignTrace] = {}
    problems: list[RowProblem] = []
    for row, request in requests:
        for where, raw in _raw_spans(request):
            trace_id = _span_id(raw.get("traceId", raw.get("trace_id"))) or "<no traceId>"
            try:
                span = _span(raw, where, names)
            except _Malformed as exc:
                field = f"trace {trace_id}: {exc.where}"
                problems.append(RowProblem(source=label, row=row, field=field, reason=exc.reason))
                continue
            traces.setdefault(trace_id, ForeignTrace(trace_id)).spans.append(span)
    return list(traces.values()), problems


def _raw_spans(request: Any) -> Iterator[tuple[str, Mapping[str, Any]]]:
    resources = _get(request, "resourceSpans", "resource_spans")
    for r, resource in enumerate(resources if isinstance(resources, list) else []):
        scopes = _get(resource, "scopeSpans", "scope_spans")
        for s, scope in enumerate(scopes if isinstance(scopes, list) else []):
            spans = _get(scope, "spans")
            for n, span in enumerate(spans if isinstance(spans, list) else []):
                if isinstance(span, Mapping):
                    yield f"resourceSpans[{r}].scopeSpans[{s}].spans[{n}]", span


def _get(value: Any, *keys: str) -> Any:
    if not isinstance(value, Mapping):
        return None
    return next((value[k] for k in keys if k in value), None)


def _span(raw: Mapping[str, Any], where: str, names: _Names) -> TraceSpan:
    span_id = _span_id(_get(raw, "spanId", "span_id"))
    if span_id is None:
        raise _Malformed(f"{where}.spanId", "missing or not a span id (hex or base64)")
    start = _nanoseconds(_get(raw, "startTimeUnixNano", "start_time_unix_nano"))
    if start is None:
        raise _Malformed(f"{where}.startTimeUnixNano", "missing or not a time in nanoseconds")
    attributes = _attributes(_get(raw, "attributes"), f"{where}.attributes")
    kind = _kind(attributes, names)
    name = str(raw.get("name") or "span")
    span = TraceSpan(
        span_id=span_id,
        parent_id=_span_id(_get(raw, "parentSpanId", "parent_span_id")),
        name=_tool_name(attributes, names) or name if kind == "TOOL" else name,
        kind=kind,
        start_ns=start,
        end_ns=_nanoseconds(_get(raw, "endTimeUnixNano", "end_time_unix_nano")),
    )
    _fill_openinference(span, attributes, names)
    _fill_genai(span, attributes, _events(raw, where), names)
    return span


def _span_id(value: Any) -> str | None:
    """A trace or span id as hex: OTLP JSON writes hex, protobuf's JSON mapping base64."""
    if not isinstance(value, str) or not value:
        return None
    if _HEX_ID.match(value):
        return value.lower()
    try:
        return base64.b64decode(value, validate=True).hex() or None
    except (binascii.Error, ValueError):
        return None


def _nanoseconds(value: Any) -> int | None:
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str) and value.isdigit():
        return int(value)
    return None


def _attributes(raw: Any, where: str) -> dict[str, Any]:
    if raw is None:
        return {}
    if not isinstance(raw, list):
        raise _Malformed(where, "must be a list of {key, value} objects")
    found: dict[str, Any] = {}
    for index, item in enumerate(raw):
        if not isinstance(item, Mapping) or not isinstance(item.get("key"), str):
            raise _Malformed(f"{where}[{index}]", "must be an object with a string 'key'")
        found[item["key"]] = _any_value(item.get("value"))
    return found


def _any_value(value: Any) -> Any:
    """An OTLP ``AnyValue`` as a Python value."""
    if not isinstance(value, Mapping):
        return None
    if "stringValue" in value:
        return value["stringValue"]
    if "intValue" in value:
        return _nanoseconds(value["intValue"])  # int64 is written as text
    if "doubleValue" in value:
        return float(value["doubleValue"])
    if "boolValue" in value:
        return bool(value["boolValue"])
    if "arrayValue" in value:
        return [_any_value(v) for v in _get(value["arrayValue"], "values") or []]
    if "kvlistValue" in value:
        pairs = _get(value["kvlistValue"], "values") or []
        return {p.get("key"): _any_value(p.get("value")) for p in pairs if isinstance(p, Mapping)}
    return value.get("bytesValue")


def _events(raw: Mapping[str, Any], where: str) -> list[tuple[str, dict[str, Any]]]:
    events = raw.get("events")
    return [
        (str(e.get("name")), _attributes(e.get("attributes"), f"{where}.events[{i}].attributes"))
        for i, e in enumerate(events if isinstance(events, list) else [])
        if isinstance(e, Mapping)
    ]


def _kind(attributes: Mapping[str, Any], names: _Names) -> str:
    declared = attributes.get(names.oi.OPENINFERENCE_SPAN_KIND)
    if isinstance(declared, str):
        return declared.upper() if declared.upper() in SPAN_KINDS else "UNKNOWN"
    operation = attributes.get(names.genai.GEN_AI_OPERATION_NAME)
    if isinstance(operation, str):
        return _GENAI_KINDS.get(operation.lower(), "CHAIN")
    return "CHAIN"


def _tool_name(attributes: Mapping[str, Any], names: _Names) -> str | None:
    for key in (names.oi.TOOL_NAME, names.genai.GEN_AI_TOOL_NAME):
        if isinstance(attributes.get(key), str) and attributes[key]:
            return str(attributes[key])
    return None


# OpenInference ---------------------------------------------------------------------


def _fill_openinference(span: TraceSpan, attributes: Mapping[str, Any], names: _Names) -> None:
    oi = names.oi
    span.inputs = attributes.get(oi.INPUT_VALUE)
    span.outputs = attributes.get(oi.OUTPUT_VALUE)
    if span.inputs is None:
        span.inputs = _messages(attributes, oi.LLM_INPUT_MESSAGES, names) or None
    if span.outputs is None:
        span.outputs = _messages(attributes, oi.LLM_OUTPUT_MESSAGES, names) or None
    span.usage = usage_of(
        attributes.get(oi.LLM_TOKEN_COUNT_PROMPT), attributes.get(oi.LLM_TOKEN_COUNT_COMPLETION)
    )
    if span.kind == "RETRIEVER":
        documents = _indexed(attributes, oi.RETRIEVAL_DOCUMENTS)
        if documents:
            span.documents = [_oi_document(d, names, f"{span.name}[{i}]") for i, d in documents]
            _ids_from_output(span.documents, span.outputs)


def _ids_from_output(documents: list[dict[str, Any]], outputs: Any) -> None:
    """Give documents without an id the ``id`` of the document at their place in the
    span's output (LangChain's retrievers log ``Document.id`` only there)."""
    if isinstance(outputs, str) and outputs.startswith("{"):
        try:
            outputs = json.loads(outputs)
        except ValueError:
            return
    listed = outputs.get("documents") if isinstance(outputs, Mapping) else None
    if not isinstance(listed, list) or len(listed) != len(documents):
        return
    for chunk, logged in zip(documents, listed, strict=True):
        found = logged.get("id") if isinstance(logged, Mapping) else None
        if chunk.get("doc_uri_derived") and isinstance(found, str | int) and found != "":
            chunk["doc_uri"] = str(found)
            del chunk["doc_uri_derived"]


def _indexed(attributes: Mapping[str, Any], prefix: str) -> list[tuple[int, dict[str, Any]]]:
    """Flattened lists (``PREFIX.N.REST``) as ``(N, {REST: value})`` in order of N."""
    found: dict[int, dict[str, Any]] = {}
    start = prefix + "."
    for key, value in attributes.items():
        if not key.startswith(start):
            continue
        index, _, rest = key[len(start) :].partition(".")
        if index.isdigit() and rest:
            found.setdefault(int(index), {})[rest] = value
    return sorted(found.items())


def _oi_document(values: Mapping[str, Any], names: _Names, where: str) -> dict[str, Any]:
    d = names.oi_document
    return document(
        values.get(d.DOCUMENT_CONTENT),
        values.get(d.DOCUMENT_ID),
        values.get(d.DOCUMENT_SCORE),
        values.get(d.DOCUMENT_METADATA),
        where,
    )


def _messages(attributes: Mapping[str, Any], prefix: str, names: _Names) -> list[dict[str, Any]]:
    m = names.oi_message
    return [
        {"role": values.get(m.MESSAGE_ROLE), "content": values.get(m.MESSAGE_CONTENT)}
        for _, values in _indexed(attributes, prefix)
    ]


# GenAI ---------------------------------------------------------------------------


def _fill_genai(
    span: TraceSpan,
    attributes: Mapping[str, Any],
    events: list[tuple[str, dict[str, Any]]],
    names: _Names,
) -> None:
    g = names.genai
    span.inputs = _first(
        span.inputs,
        attributes.get(g.GEN_AI_TOOL_CALL_ARGUMENTS),
        attributes.get(g.GEN_AI_INPUT_MESSAGES),
        attributes.get(g.GEN_AI_RETRIEVAL_QUERY_TEXT),
        attributes.get(g.GEN_AI_PROMPT),
        _event_value(events, g.GEN_AI_PROMPT),
    )
    span.outputs = _first(
        span.outputs,
        attributes.get(g.GEN_AI_TOOL_CALL_RESULT),
        attributes.get(g.GEN_AI_OUTPUT_MESSAGES),
        attributes.get(g.GEN_AI_COMPLETION),
        _event_value(events, g.GEN_AI_COMPLETION),
    )
    if span.usage is None:
        span.usage = usage_of(
            _first(
                attributes.get(g.GEN_AI_USAGE_INPUT_TOKENS),
                attributes.get(g.GEN_AI_USAGE_PROMPT_TOKENS),
            ),
            _first(
                attributes.get(g.GEN_AI_USAGE_OUTPUT_TOKENS),
                attributes.get(g.GEN_AI_USAGE_COMPLETION_TOKENS),
            ),
        )
    if span.kind == "RETRIEVER" and span.documents is None:
        span.documents = _genai_documents(attributes.get(g.GEN_AI_RETRIEVAL_DOCUMENTS), span.name)


def _first(*values: Any) -> Any:
    return next((v for v in values if v is not None), None)


def _event_value(events: list[tuple[str, dict[str, Any]]], key: str) -> Any:
    """The attribute ``key`` of the first event carrying it (the older GenAI
    conventions put prompt and completion on ``gen_ai.content.*`` events)."""
    return next((attrs[key] for _, attrs in events if key in attrs), None)


def _genai_documents(value: Any, span_name: str) -> list[dict[str, Any]] | None:
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            return None
    if not isinstance(value, list):
        return None
    return [
        document(
            d.get("content"), d.get("id"), d.get("score"), d.get("metadata"), f"{span_name}[{i}]"
        )
        for i, d in enumerate(value)
        if isinstance(d, Mapping)
    ]


def trace_ids(request: Any) -> Iterator[str]:
    """The trace ids of a request's spans, as hex."""
    for _, raw in _raw_spans(request):
        trace_id = _span_id(raw.get("traceId", raw.get("trace_id")))
        if trace_id is not None:
            yield trace_id

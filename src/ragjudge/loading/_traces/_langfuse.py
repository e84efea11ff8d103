"""Langfuse traces as its public API and its exports give them: trace objects (``id``,
``name``, ``input``, ``output``, ``timestamp``, ``latency`` in seconds) holding their
``observations`` (``id``, ``type`` — ``SPAN``, ``GENERATION``, ``EVENT`` and the newer
``AGENT``, ``TOOL``, ``RETRIEVER``, ``CHAIN``, ``EMBEDDING`` … — ``name``,
``parentObservationId``, ``startTime``/``endTime`` as ISO text, ``input``, ``output``,
``usage``/``usageDetails``), or the observations alone, grouped by ``traceId``.

The trace itself is the root span: its input is the request and its output the
response; observations without a parent hang under it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ragjudge.errors import RowProblem
from ragjudge.loading._traces._spans import (
    ForeignTrace,
    TraceSpan,
    document,
    iso_nanoseconds,
    usage_of,
)

__all__ = ["is_langfuse_row", "langfuse_traces"]

_KINDS = {
    "GENERATION": "LLM",
    "RETRIEVER": "RETRIEVER",
    "TOOL": "TOOL",
    "AGENT": "AGENT",
    "EMBEDDING": "EMBEDDING",
}


def is_langfuse_row(row: Mapping[str, Any]) -> bool:
    """A Langfuse trace (with its observations) or a Langfuse observation."""
    if isinstance(row.get("observations"), list) and {"id", "timestamp"} <= row.keys():
        return True
    return {"traceId", "type", "startTime"} <= row.keys()


def langfuse_traces(
    label: str, rows: list[tuple[int, dict[str, Any]]]
) -> tuple[list[tuple[int, ForeignTrace]], list[RowProblem]]:
    """The traces of Langfuse rows, each with the row it starts on, and the problems
    of observations that cannot be read."""
    traces: dict[str, tuple[int, ForeignTrace]] = {}
    problems: list[RowProblem] = []
    for row, data in rows:
        if isinstance(data.get("observations"), list):
            trace_id = str(data.get("id"))
            trace = _trace_root(data, trace_id)
            traces[trace_id] = (row, trace)
            observations = [(f"observations[{i}]", o) for i, o in enumerate(data["observations"])]
        else:
            trace_id = str(data.get("traceId"))
            trace = traces.setdefault(trace_id, (row, ForeignTrace(trace_id)))[1]
            observations = [("<row>", data)]
        for where, observation in observations:
            span = _span(observation, trace_id)
            if isinstance(span, str):
                field = f"trace {trace_id}: {where}"
                problems.append(RowProblem(source=label, row=row, field=field, reason=span))
            else:
                trace.spans.append(span)
    return list(traces.values()), problems


def _trace_root(data: Mapping[str, Any], trace_id: str) -> ForeignTrace:
    """The trace with itself as its root span."""
    start = iso_nanoseconds(data.get("timestamp"))
    latency = data.get("latency")
    end = None
    if start is not None and isinstance(latency, int | float) and not isinstance(latency, bool):
        end = start + int(latency * 1e9)
    root = TraceSpan(
        span_id=trace_id,
        parent_id=None,
        name=str(data.get("name") or "trace"),
        kind="CHAIN",
        start_ns=start or 0,
        end_ns=end,
        inputs=data.get("input"),
        outputs=data.get("output"),
    )
    return ForeignTrace(trace_id, [root])


def _span(observation: Any, trace_id: str) -> TraceSpan | str:
    """One observation as a span, or why it cannot be read."""
    if not isinstance(observation, Mapping):
        return "an observation must be an object (export the traces with their observations)"
    start = iso_nanoseconds(observation.get("startTime"))
    if start is None:
        return f"startTime must be an ISO time (got {observation.get('startTime')!r})"
    if observation.get("id") in (None, ""):
        return "the observation has no id"
    kind = _KINDS.get(str(observation.get("type") or "").upper(), "CHAIN")
    name = str(observation.get("name") or observation.get("type") or "observation")
    span = TraceSpan(
        span_id=str(observation["id"]),
        parent_id=str(observation.get("parentObservationId") or trace_id),
        name=name,
        kind=kind,
        start_ns=start,
        end_ns=iso_nanoseconds(observation.get("endTime")),
        inputs=observation.get("input"),
        outputs=observation.get("output"),
        usage=_usage(observation),
    )
    if kind == "RETRIEVER":
        span.documents = _documents(span.outputs, name)
    return span


def _usage(observation: Mapping[str, Any]) -> dict[str, int] | None:
    for key in ("usageDetails", "usage"):
        found = observation.get(key)
        if isinstance(found, Mapping):
            usage = usage_of(
                found.get("input", found.get("promptTokens")),
                found.get("output", found.get("completionTokens")),
            )
            if usage is not None:
                return usage
    return usage_of(observation.get("promptTokens"), observation.get("completionTokens"))


def _documents(outputs: Any, name: str) -> list[dict[str, Any]] | None:
    """A retriever's output: a list of documents, or an object holding them under
    ``documents``; a document is LangChain's (``page_content``, ``metadata``) or an
    object with ``content``/``text`` and ``id``."""
    if isinstance(outputs, Mapping):
        outputs = outputs.get("documents")
    if not isinstance(outputs, list):
        return None
    return [document_of(d, f"{name}[{i}]") for i, d in enumerate(outputs)]


def document_of(value: Any, where: str) -> dict[str, Any]:
    """A document in one of the shapes people log, as a context chunk."""
    if not isinstance(value, Mapping):
        return document(value if isinstance(value, str) else str(value), None, None, None, where)
    content = next(
        (value[k] for k in ("page_content", "content", "text") if value.get(k) is not None), None
    )
    metadata = value.get("metadata")
    score = value.get("score")
    if score is None and isinstance(metadata, Mapping):
        score = metadata.get("score")
    return document(content, value.get("id"), score, metadata, where)

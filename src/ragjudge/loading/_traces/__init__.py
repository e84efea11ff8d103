"""Traces of an application read as an evaluation set: OpenTelemetry (OTLP JSON, with
the OpenInference or the GenAI semantic conventions), Langfuse and LangSmith exports.

One trace is one sample: its root span gives the request and the response, its last
retriever span the retrieved context, its tool spans the ``tool_calls`` of the
metadata; the trace itself is kept in the sample's ``trace`` field in MLflow's JSON
layout, from which a run reads the token counts and the latency.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from ragjudge.errors import RowProblem
from ragjudge.loading._traces._langfuse import is_langfuse_row, langfuse_traces
from ragjudge.loading._traces._langsmith import is_langsmith_row, langsmith_traces
from ragjudge.loading._traces._otlp import otlp_traces, trace_ids
from ragjudge.loading._traces._spans import ForeignTrace, trace_row

__all__ = ["TRACE_FORMATS", "TraceFormat", "detect_trace_format", "trace_records"]


@dataclass(frozen=True)
class TraceFormat:
    """A format of traces: one sample per trace."""

    name: str
    title: str

    @property
    def label(self) -> str:
        """How people call the format."""
        return self.title


TRACE_FORMATS: dict[str, TraceFormat] = {
    "otlp": TraceFormat("otlp", "OpenTelemetry traces, OTLP JSON"),
    "langfuse": TraceFormat("langfuse", "Langfuse traces"),
    "langsmith": TraceFormat("langsmith", "LangSmith runs"),
}
"""The trace formats by name."""


def detect_trace_format(rows: Iterable[Mapping[str, Any]]) -> TraceFormat | None:
    """The trace format of a file's rows (by their first row), or None when they are
    not traces."""
    first = next(iter(rows), None)
    if first is None:
        return None
    if "resourceSpans" in first or "resource_spans" in first:
        return TRACE_FORMATS["otlp"]
    if is_langfuse_row(first):
        return TRACE_FORMATS["langfuse"]
    if is_langsmith_row(first):
        return TRACE_FORMATS["langsmith"]
    return None


def trace_records(
    fmt: TraceFormat, label: str, rows: list[tuple[int, dict[str, Any]]]
) -> tuple[list[tuple[int, dict[str, Any]]], list[RowProblem]]:
    """The evaluation-set rows of the traces in ``rows`` (each numbered by the row its
    trace starts on) and the problems of the traces that give no sample."""
    numbered: list[tuple[int, ForeignTrace]]
    if fmt.name == "otlp":
        traces, problems = otlp_traces(label, rows)
        starts = _first_rows(rows)
        numbered = [(starts.get(t.trace_id, 1), t) for t in traces]
    elif fmt.name == "langfuse":
        numbered, problems = langfuse_traces(label, rows)
    else:
        numbered, problems = langsmith_traces(label, rows)
    bad = {p.field.split(":")[0] for p in problems}
    records: list[tuple[int, dict[str, Any]]] = []
    for row, trace in numbered:
        if f"trace {trace.trace_id}" in bad:
            continue
        found = trace_row(trace, label, row, fmt.name)
        if isinstance(found, RowProblem):
            problems.append(found)
        else:
            records.append((row, found))
    return records, problems


def _first_rows(rows: list[tuple[int, dict[str, Any]]]) -> dict[str, int]:
    """Trace id → the line of the first request holding one of its spans (JSON Lines
    files carry a request per line)."""
    found: dict[str, int] = {}
    for row, request in rows:
        for trace_id in trace_ids(request):
            found.setdefault(trace_id, row)
    return found

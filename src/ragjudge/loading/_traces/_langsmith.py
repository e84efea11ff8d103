"""LangSmith runs as its client and exports give them: run objects (``id``,
``trace_id``, ``parent_run_id``, ``name``, ``run_type`` — ``chain``, ``llm``,
``retriever``, ``tool``, ``prompt``, ``parser``, ``embedding`` — ``inputs``,
``outputs``, ``start_time``/``end_time`` as ISO text, ``prompt_tokens``/
``completion_tokens``), flat or nested under ``child_runs``, in a JSON array or JSON
Lines. A trace is the runs sharing a ``trace_id`` (a root run's id when it has none).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from ragjudge.errors import RowProblem
from ragjudge.loading._traces._langfuse import document_of
from ragjudge.loading._traces._spans import ForeignTrace, TraceSpan, iso_nanoseconds, usage_of

__all__ = ["is_langsmith_row", "langsmith_traces"]

_KINDS = {
    "llm": "LLM",
    "retriever": "RETRIEVER",
    "tool": "TOOL",
    "embedding": "EMBEDDING",
}


def is_langsmith_row(row: Mapping[str, Any]) -> bool:
    """A LangSmith run."""
    return isinstance(row.get("run_type"), str) and {"id", "start_time"} <= row.keys()


def langsmith_traces(
    label: str, rows: list[tuple[int, dict[str, Any]]]
) -> tuple[list[tuple[int, ForeignTrace]], list[RowProblem]]:
    """The traces of LangSmith runs, each with the row it starts on, and the problems
    of runs that cannot be read."""
    traces: dict[str, tuple[int, ForeignTrace]] = {}
    problems: list[RowProblem] = []
    for row, data in rows:
        for where, run, parent in _runs(data, "<row>", None):
            trace_id = str(run.get("trace_id") or _root_id(run, parent))
            span = _span(run, parent)
            if isinstance(span, str):
                field = f"trace {trace_id}: {where}"
                problems.append(RowProblem(source=label, row=row, field=field, reason=span))
                continue
            traces.setdefault(trace_id, (row, ForeignTrace(trace_id)))[1].spans.append(span)
    return list(traces.values()), problems


def _root_id(run: Mapping[str, Any], parent: str | None) -> str:
    return str(parent or run.get("parent_run_id") or run.get("id"))


def _runs(
    run: Any, where: str, parent: str | None
) -> Iterator[tuple[str, Mapping[str, Any], str | None]]:
    """The run and the runs nested in its ``child_runs``, each with its parent's id."""
    if not isinstance(run, Mapping):
        return
    yield where, run, parent
    children = run.get("child_runs")
    for i, child in enumerate(children if isinstance(children, list) else []):
        yield from _runs(child, f"{where}.child_runs[{i}]", str(run.get("id")))


def _span(run: Mapping[str, Any], parent: str | None) -> TraceSpan | str:
    """One run as a span, or why it cannot be read."""
    if run.get("id") in (None, ""):
        return "the run has no id"
    start = iso_nanoseconds(run.get("start_time"))
    if start is None:
        return f"start_time must be an ISO time (got {run.get('start_time')!r})"
    kind = _KINDS.get(str(run.get("run_type")).lower(), "CHAIN")
    parent_id = run.get("parent_run_id") or parent
    span = TraceSpan(
        span_id=str(run["id"]),
        parent_id=None if parent_id in (None, "") else str(parent_id),
        name=str(run.get("name") or run.get("run_type")),
        kind=kind,
        start_ns=start,
        end_ns=iso_nanoseconds(run.get("end_time")),
        inputs=_single(run.get("inputs"), "input"),
        outputs=_single(run.get("outputs"), "output")
        if kind != "RETRIEVER"
        else run.get("outputs"),
        usage=_usage(run) if kind == "LLM" else None,
    )
    if kind == "RETRIEVER":
        span.documents = _documents(run.get("outputs"), span.name)
    return span


def _single(values: Any, key: str) -> Any:
    """``{"input": X}`` as X: LangChain wraps a tool's single argument so."""
    if isinstance(values, Mapping) and set(values) == {key}:
        return values[key]
    return values


def _usage(run: Mapping[str, Any]) -> dict[str, int] | None:
    usage = usage_of(run.get("prompt_tokens"), run.get("completion_tokens"))
    outputs = run.get("outputs")
    if usage is None and isinstance(outputs, Mapping):
        llm_output = outputs.get("llm_output")
        counts = llm_output.get("token_usage") if isinstance(llm_output, Mapping) else None
        if isinstance(counts, Mapping):
            usage = usage_of(counts.get("prompt_tokens"), counts.get("completion_tokens"))
        metadata = outputs.get("usage_metadata")
        if usage is None and isinstance(metadata, Mapping):
            usage = usage_of(metadata.get("input_tokens"), metadata.get("output_tokens"))
    return usage


def _documents(outputs: Any, name: str) -> list[dict[str, Any]] | None:
    if isinstance(outputs, Mapping):
        outputs = outputs.get("documents")
    if not isinstance(outputs, list):
        return None
    return [document_of(d, f"{name}[{i}]") for i, d in enumerate(outputs)]

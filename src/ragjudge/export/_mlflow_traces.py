"""Per-row MLflow 3 traces and assessments of a logged run (the ``mlflow`` extra).

Each row of the run gets one trace in the run's experiment, linked to the MLflow run
(the ``mlflow.sourceRun`` trace metadata and a trace–run link, as
``mlflow.genai.evaluate`` does, so the run's evaluation and traces pages list the rows):

- the row's own MLflow trace when it came with one: the trace itself when the tracking
  server holds it in the run's experiment, else a copy logged into that experiment;
- else a trace built for the row: a root span with the request as inputs and the
  response as outputs, and a ``RETRIEVER`` child span with the retrieved context.

On that trace, each score of the row is an MLflow **feedback** assessment: its name is
the score's name, its value the score (a yes/no score as ``"yes"``/``"no"``, as MLflow's
own judges log them), its rationale the judge's, its source ``LLM_JUDGE`` naming the
judge model (``provider/model`` of the score's judge calls) or ``CODE`` for a metric
without a judge. A score that failed is a feedback carrying the error and no value; a
skipped score (the metric does not apply to the row) logs nothing.

Everything is written with the client of the tracking URI given, not through MLflow's
global tracing state, and masked of the run's secret values like the rest of the export.
"""

from __future__ import annotations

import base64
import json
import os
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from ragjudge._util.known_secrets import mask_secrets_in
from ragjudge.schema import ContextChunk, Output, Sample, Score, ScoreMeaning
from ragjudge.targets._traces import is_mlflow_trace

__all__ = ["CODE_SOURCE", "RowTraces", "log_row_traces"]

CODE_SOURCE = "ragjudge"
"""The source id of assessments of metrics without a judge."""
SOURCE_RUN = "mlflow.sourceRun"  # trace metadata: the run that made the trace
ASSESSMENT_RUN = "mlflow.assessment.sourceRunId"  # assessment metadata: the run that logged it
REQUEST_ID_KEY = "ragjudge.request_id"
_LINK_BATCH = 100  # MLflow links at most 100 traces to a run per call


@dataclass(frozen=True)
class RowTraces:
    """The trace id of each row (``request_id`` → trace id) and how many feedbacks
    were logged on them."""

    trace_ids: dict[str, str]
    assessments: int


@dataclass(frozen=True)
class _RowScores:
    sample: Sample
    output: Output | None
    scores: list[tuple[int, Score]]


def log_row_traces(
    client: Any,
    experiment_id: str,
    mlflow_run_id: str,
    rows: Sequence[tuple[Sample, Output | None, list[tuple[int, Score]]]],
    meanings: Mapping[str, ScoreMeaning],
    judges: Mapping[int, str],
) -> RowTraces:
    """Log each row's trace and its scores as feedback; ``judges`` maps a judge call id
    to the model that answered it (``provider/model``)."""
    from mlflow.tracing.client import TracingClient

    tracing = TracingClient(str(client.tracking_uri))
    trace_ids: dict[str, str] = {}
    logged = 0
    for sample, output, scores in rows:
        row = _RowScores(sample, output, scores)
        trace_id, root_span_id = _trace_for_row(client, tracing, experiment_id, mlflow_run_id, row)
        trace_ids[sample.request_id] = trace_id
        for trial, score in scores:
            feedback = _feedback(score, trial, meanings.get(score.metric), judges, mlflow_run_id)
            if feedback is not None:
                feedback.span_id = root_span_id
                tracing.log_assessment(trace_id, feedback)
                logged += 1
    _link_to_run(client, list(trace_ids.values()), mlflow_run_id)
    return RowTraces(trace_ids, logged)


# the trace of a row ---------------------------------------------------------------


def _trace_for_row(
    client: Any, tracing: Any, experiment_id: str, mlflow_run_id: str, row: _RowScores
) -> tuple[str, str | None]:
    """The id of the row's trace in the tracking server and of its root span."""
    given = _given_trace(row)
    if given is not None:
        known = _known_trace(client, given, experiment_id)
        if known is not None:
            return known
        copied = _copy_of(given, experiment_id, mlflow_run_id, row.sample.request_id)
        if copied is not None:
            return _write(tracing, experiment_id, copied)
    built = _built_trace(row, experiment_id, mlflow_run_id)
    return _write(tracing, experiment_id, built)


def _given_trace(row: _RowScores) -> dict[str, Any] | None:
    """The MLflow trace the row came with (the target's, else the evaluation set's)."""
    for trace in (row.output.trace if row.output else None, row.sample.trace):
        if trace is not None and is_mlflow_trace(trace):
            found = json.loads(trace) if isinstance(trace, str) else trace
            return dict(found)
    return None


def _known_trace(
    client: Any, trace: dict[str, Any], experiment_id: str
) -> tuple[str, str | None] | None:
    """The trace's id and root span when the tracking server holds it already in the
    run's experiment (a trace of another experiment is copied, as MLflow's evaluation
    does, so the run's experiment lists it)."""
    info = trace.get("info")
    trace_id = info.get("trace_id") or info.get("request_id") if isinstance(info, dict) else None
    if not isinstance(trace_id, str):
        return None
    try:
        stored = client.get_trace(trace_id)
    except Exception:  # MLflow raises its own "not found" errors; any of them means "copy it"
        return None
    location = stored.info.trace_location.mlflow_experiment if stored is not None else None
    if location is None or str(location.experiment_id) != experiment_id:
        return None
    root = stored.data._get_root_span()
    return trace_id, root.span_id if root is not None else None


def _write(tracing: Any, experiment_id: str, trace: dict[str, Any]) -> tuple[str, str | None]:
    """Log ``trace`` (MLflow 3 JSON) with its spans; its id and root span id."""
    from mlflow.entities import Trace

    loaded = Trace.from_dict(mask_secrets_in(trace))
    tracing.log_spans(experiment_id, loaded.data.spans)
    info = tracing.start_trace(loaded.info)
    root = loaded.data._get_root_span()
    return str(info.trace_id), root.span_id if root is not None else None


def _copy_of(
    trace: dict[str, Any], experiment_id: str, mlflow_run_id: str, request_id: str
) -> dict[str, Any] | None:
    """The row's trace under a new id in this experiment; None when its spans are not in
    MLflow 3's layout (then the row gets a trace built from its fields)."""
    spans = trace.get("data", {}).get("spans", [])
    if not spans or not all(isinstance(s, dict) and "span_id" in s for s in spans):
        return None
    otel_id = os.urandom(16)
    trace_id = "tr-" + otel_id.hex()
    copied = []
    for span in spans:
        attributes = dict(span.get("attributes") or {})
        attributes["mlflow.traceRequestId"] = json.dumps(trace_id)
        copied.append({**span, "trace_id": _b64(otel_id), "attributes": attributes})
    roots = [s for s in copied if not s.get("parent_span_id")]
    if len(roots) != 1:
        return None
    found_info = trace.get("info")
    old_info: dict[str, Any] = found_info if isinstance(found_info, dict) else {}
    root = roots[0]
    info = _info(
        trace_id, experiment_id, mlflow_run_id, request_id, root["start_time_unix_nano"]
    ) | {"execution_duration_ms": _duration_ms(root)}
    info["trace_metadata"] |= {
        "mlflow.traceInputs": root.get("attributes", {}).get("mlflow.spanInputs", "null"),
        "mlflow.traceOutputs": root.get("attributes", {}).get("mlflow.spanOutputs", "null"),
    }
    user_tags = {
        k: v for k, v in (old_info.get("tags") or {}).items() if not k.startswith("mlflow.")
    }
    info["tags"] |= user_tags
    return {"info": info, "data": {"spans": copied}}


def _built_trace(row: _RowScores, experiment_id: str, mlflow_run_id: str) -> dict[str, Any]:
    """A trace for a row that came without one: the request, the response and, in a
    ``RETRIEVER`` child span, the retrieved context."""
    otel_id, root_id = os.urandom(16), os.urandom(8)
    trace_id = "tr-" + otel_id.hex()
    response = row.output.response if row.output is not None else None
    response = response if response is not None else row.sample.response
    latency = row.output.latency if row.output is not None else None
    duration = int((latency or 0.0) * 1e9)
    start = time.time_ns() - duration
    inputs = {"request": row.sample.request.original}
    spans = [
        _span(otel_id, trace_id, root_id, None, "ragjudge_row", (start, start + duration))
        | _payload(trace_id, "CHAIN", inputs, response)
    ]
    context = row.output.retrieved_context if row.output is not None else None
    context = context if context is not None else row.sample.retrieved_context
    if context is not None:
        times = (start, start + duration)
        spans.append(
            _span(otel_id, trace_id, os.urandom(8), root_id, "retrieval", times)
            | _payload(
                trace_id, "RETRIEVER", {"query": row.sample.request.query}, _documents(context)
            )
        )
    info = _info(trace_id, experiment_id, mlflow_run_id, row.sample.request_id, start)
    info["execution_duration_ms"] = duration // 1_000_000
    info["trace_metadata"] |= {
        "mlflow.traceInputs": json.dumps(inputs, ensure_ascii=False),
        "mlflow.traceOutputs": json.dumps(response, ensure_ascii=False),
    }
    return {"info": info, "data": {"spans": spans}}


def _documents(context: list[ContextChunk]) -> list[dict[str, Any]]:
    """Retrieved chunks as MLflow's ``Document``s (what a ``RETRIEVER`` span returns)."""
    documents = []
    for chunk in context:
        metadata: dict[str, Any] = {"doc_uri": chunk.doc_uri}
        if chunk.score is not None:
            metadata["score"] = chunk.score
        documents.append({"page_content": chunk.content or "", "metadata": metadata, "id": None})
    return documents


def _info(
    trace_id: str, experiment_id: str, mlflow_run_id: str, request_id: str, start_ns: int
) -> dict[str, Any]:
    stamp = datetime.fromtimestamp(start_ns / 1e9, tz=UTC).isoformat(timespec="milliseconds")
    return {
        "trace_id": trace_id,
        "trace_location": {
            "type": "MLFLOW_EXPERIMENT",
            "mlflow_experiment": {"experiment_id": experiment_id},
        },
        "request_time": stamp.replace("+00:00", "Z"),
        "state": "OK",
        "trace_metadata": {
            SOURCE_RUN: mlflow_run_id,
            "mlflow.trace_schema.version": "3",
            REQUEST_ID_KEY: request_id,
        },
        "tags": {"mlflow.traceName": "ragjudge_row", REQUEST_ID_KEY: request_id},
    }


def _span(
    otel_id: bytes,
    trace_id: str,
    span_id: bytes,
    parent: bytes | None,
    name: str,
    times: tuple[int, int],
) -> dict[str, Any]:
    return {
        "trace_id": _b64(otel_id),
        "span_id": _b64(span_id),
        "parent_span_id": _b64(parent) if parent is not None else None,
        "name": name,
        "start_time_unix_nano": times[0],
        "end_time_unix_nano": times[1],
        "events": [],
        "status": {"code": "STATUS_CODE_OK", "message": ""},
        "links": [],
    }


def _payload(trace_id: str, kind: str, inputs: Any, outputs: Any) -> dict[str, Any]:
    """A span's attributes, JSON text as MLflow stores them."""
    return {
        "attributes": {
            "mlflow.traceRequestId": json.dumps(trace_id),
            "mlflow.spanType": json.dumps(kind),
            "mlflow.spanInputs": json.dumps(inputs, ensure_ascii=False),
            "mlflow.spanOutputs": json.dumps(outputs, ensure_ascii=False),
        }
    }


def _duration_ms(span: Mapping[str, Any]) -> int:
    end = span.get("end_time_unix_nano") or span["start_time_unix_nano"]
    return max(0, int(end) - int(span["start_time_unix_nano"])) // 1_000_000


def _b64(raw: bytes) -> str:
    return base64.b64encode(raw).decode("ascii")


def _link_to_run(client: Any, trace_ids: list[str], mlflow_run_id: str) -> None:
    """Link the traces to the run (a file store cannot; the trace metadata still names
    the run there)."""
    for start in range(0, len(trace_ids), _LINK_BATCH):
        try:
            client.link_traces_to_run(trace_ids[start : start + _LINK_BATCH], mlflow_run_id)
        except Exception as exc:
            if "not supported" not in str(exc):
                raise
            return


# the assessments ------------------------------------------------------------------


def _feedback(
    score: Score,
    trial: int,
    meaning: ScoreMeaning | None,
    judges: Mapping[int, str],
    mlflow_run_id: str,
) -> Any:
    """The score as an MLflow feedback; None for a skipped score."""
    from mlflow.entities import AssessmentError, AssessmentSource, Feedback

    if score.skipped:
        return None
    models = sorted({judges[i] for i in score.judge_call_ids if i in judges})
    source = (
        AssessmentSource(source_type="LLM_JUDGE", source_id=", ".join(models))
        if models
        else AssessmentSource(source_type="CODE", source_id=CODE_SOURCE)
    )
    metadata = {ASSESSMENT_RUN: mlflow_run_id, "ragjudge.trial": str(trial)}
    if score.value is None:
        message = str(mask_secrets_in(score.error))
        error = AssessmentError(error_code="SCORE_FAILED", error_message=message)
        return Feedback(name=score.metric, error=error, source=source, metadata=metadata)
    return Feedback(
        name=score.metric,
        value=feedback_value(score.value, meaning),
        rationale=mask_secrets_in(score.rationale),
        source=source,
        metadata=metadata,
    )


def feedback_value(value: float, meaning: ScoreMeaning | None) -> str | float:
    """A score's value as a feedback holds it: ``"yes"``/``"no"`` for a yes/no score."""
    if meaning is not None and meaning.binary:
        return "yes" if value >= 0.5 else "no"
    return value

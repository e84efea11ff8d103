"""MLflow traces as an evaluation set: the DataFrame ``mlflow.search_traces()`` returns,
and traces read straight from a tracking server (``data: "mlflow:EXPERIMENT"``).

Each trace becomes one row: its id as the ``request_id``, the request from the root
span's inputs (``{"question": "..."}`` → the question; a chat or ``query`` object as it
is), the response from the root span's outputs when they are text, and the whole trace
as the row's ``trace``: the data target reads from it what the row leaves out (an
answer in an OpenAI reply, the last retriever's documents, token counts, latency; see
:mod:`ragjudge.targets._traces`). The trace's own tags (not MLflow's ``mlflow.*``) go
to the row's metadata.

The server form is ``mlflow:EXPERIMENT`` (a name, or an id when no experiment has that
name) with optional query parameters: ``tracking_uri`` (else ``MLFLOW_TRACKING_URI``,
else MLflow's default), ``filter`` (a ``search_traces`` filter string, such as
``attributes.status = 'OK'``) and ``max_results`` (1000 unless given), e.g.
``mlflow:support-bot?filter=tags.release%3D'v2'&max_results=200``. It needs the
``mlflow`` extra.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import parse_qs, urlsplit

from ragjudge._util.extras import require_extra
from ragjudge._util.json_text import decoded_json
from ragjudge.errors import DatasetError, RowProblem

__all__ = [
    "MLFLOW_DATA_PREFIX",
    "is_mlflow_data",
    "is_traces_frame",
    "mlflow_trace_rows",
    "record_of_trace",
    "traces_from_server",
]

MLFLOW_DATA_PREFIX = "mlflow:"
DEFAULT_MAX_RESULTS = 1000
_FRAME_COLUMNS = frozenset({"trace_id", "trace", "request", "response"})
_PAGE = 200
_CHAT_KEYS = ("messages", "query")


def is_mlflow_data(source: Any) -> bool:
    """Whether ``source`` names traces of a tracking server (``mlflow:EXPERIMENT``)."""
    return isinstance(source, str) and source.startswith(MLFLOW_DATA_PREFIX)


def is_traces_frame(columns: Sequence[str]) -> bool:
    """Whether a frame's columns are those of ``mlflow.search_traces()``'s output."""
    return set(columns) >= _FRAME_COLUMNS and (
        "trace_metadata" in columns or "spans" in columns or "assessments" in columns
    )


def mlflow_trace_rows(source: Any) -> Any:
    """``source`` with MLflow traces turned into records: a ``mlflow:EXPERIMENT`` spec
    read from the server, a ``search_traces()`` frame row by row; anything else as it
    is."""
    if is_mlflow_data(source):
        return traces_from_server(source)
    columns = getattr(source, "columns", None)
    if columns is not None and hasattr(source, "to_dict") and is_traces_frame(list(columns)):
        return trace_records(list(source["trace"]))
    return source


def trace_records(traces: Sequence[Any]) -> list[dict[str, Any]]:
    """One evaluation-set record per trace (a ``Trace.to_dict()`` object or its JSON
    text); a trace that is neither stays as it was, for the row checks to name."""
    return [record_of_trace(trace) for trace in traces]


def record_of_trace(trace: Any) -> dict[str, Any]:
    """The record of one trace: ``request_id``, ``request``, ``response`` (when the root
    span's outputs are text), ``trace`` and the trace's own tags as ``metadata``."""
    found = _as_object(trace)
    if found is None:
        return {"trace": trace}
    info = found.get("info") if isinstance(found.get("info"), Mapping) else {}
    root = _root_span(found)
    attributes = root.get("attributes") if isinstance(root, Mapping) else None
    attributes = attributes if isinstance(attributes, Mapping) else {}
    record: dict[str, Any] = {"trace": found}
    trace_id = info.get("trace_id") or info.get("request_id") if isinstance(info, Mapping) else None
    if trace_id:
        record["request_id"] = str(trace_id)
    inputs = decoded_json(attributes.get("mlflow.spanInputs"))
    if inputs is not None:
        record["request"] = _request_of(inputs)
    outputs = decoded_json(attributes.get("mlflow.spanOutputs"))
    if isinstance(outputs, str):
        record["response"] = outputs
    tags = info.get("tags") if isinstance(info, Mapping) else None
    own = {k: v for k, v in (tags or {}).items() if not str(k).startswith("mlflow.")}
    if own:
        record["metadata"] = own
    return record


def traces_from_server(spec: str) -> list[dict[str, Any]]:
    """The records of the traces ``spec`` (``mlflow:EXPERIMENT?…``) names, read from
    the tracking server; :class:`DatasetError` naming the spec when the experiment is
    not there or the server refuses the search."""
    require_extra("mlflow", f"reading traces from MLflow ({spec})")
    experiment, options = _parsed(spec)
    from mlflow.tracking import MlflowClient

    try:
        client = MlflowClient(tracking_uri=options.get("tracking_uri"))
        experiment_id = _experiment_id(client, experiment, spec)
        traces = _search(client, experiment_id, options.get("filter"), _limit(options, spec))
    except DatasetError:
        raise
    except Exception as exc:
        if not type(exc).__module__.startswith("mlflow"):
            raise
        raise _problem(spec, f"MLflow could not search the traces: {exc}") from exc
    if not traces:
        raise _problem(spec, f"experiment {experiment!r} holds no trace that matches")
    return trace_records([t.to_dict() for t in traces])


def _parsed(spec: str) -> tuple[str, dict[str, str]]:
    parts = urlsplit(spec[len(MLFLOW_DATA_PREFIX) :])
    experiment = parts.path.strip()
    if not experiment:
        raise _problem(spec, "name the experiment: mlflow:EXPERIMENT (its name or id)")
    options = {k: v[-1] for k, v in parse_qs(parts.query).items()}
    unknown = sorted(set(options) - {"tracking_uri", "filter", "max_results"})
    if unknown:
        raise _problem(
            spec, f"unknown option {unknown[0]!r}; known: tracking_uri, filter, max_results"
        )
    return experiment, options


def _limit(options: Mapping[str, str], spec: str) -> int:
    text = options.get("max_results", str(DEFAULT_MAX_RESULTS))
    if not text.isdigit() or int(text) < 1:
        raise _problem(spec, f"max_results must be a whole number above 0, not {text!r}")
    return int(text)


def _experiment_id(client: Any, experiment: str, spec: str) -> str:
    found = client.get_experiment_by_name(experiment)
    if found is None and experiment.isdigit():
        try:
            found = client.get_experiment(experiment)
        except Exception:  # MLflow's "does not exist"
            found = None
    if found is None:
        raise _problem(spec, f"no MLflow experiment named {experiment!r} (nor with that id)")
    return str(found.experiment_id)


def _search(client: Any, experiment_id: str, filter_string: str | None, limit: int) -> list[Any]:
    """Up to ``limit`` traces, page by page, newest first."""
    traces: list[Any] = []
    token = None
    while len(traces) < limit:
        page = client.search_traces(
            locations=[experiment_id],
            filter_string=filter_string,
            max_results=min(_PAGE, limit - len(traces)),
            page_token=token,
        )
        traces.extend(page)
        token = page.token
        if not token or not page:
            break
    return traces


def _problem(spec: str, reason: str) -> DatasetError:
    return DatasetError([RowProblem(source=spec, row=0, field="data", reason=reason)])


# a trace's parts ------------------------------------------------------------------


def _as_object(trace: Any) -> dict[str, Any] | None:
    if isinstance(trace, str):
        try:
            trace = json.loads(trace)
        except ValueError:
            return None
    if not isinstance(trace, Mapping):
        return None
    data = trace.get("data")
    spans = data.get("spans") if isinstance(data, Mapping) else None
    return dict(trace) if isinstance(spans, list) else None


def _root_span(trace: Mapping[str, Any]) -> Mapping[str, Any] | None:
    spans = trace["data"]["spans"]
    roots = [
        s
        for s in spans
        if isinstance(s, Mapping) and not s.get("parent_span_id", s.get("parent_id"))
    ]
    return roots[0] if roots else None


def _request_of(inputs: Any) -> Any:
    """The request a root span's inputs hold: the one text of a single-field object,
    a chat or ``query`` object as it is, else the inputs."""
    if isinstance(inputs, Mapping):
        if any(key in inputs for key in _CHAT_KEYS):
            return dict(inputs)
        if "request" in inputs:
            return inputs["request"]
        texts = [v for v in inputs.values() if isinstance(v, str)]
        if len(inputs) == 1 and len(texts) == 1:
            return texts[0]
    return inputs

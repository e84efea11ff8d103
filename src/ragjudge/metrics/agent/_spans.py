"""The spans of an MLflow trace as the trace judge shows them: name, type, inputs and
outputs, in the order they started (MLflow 3's and MLflow 2's span layouts; attributes
kept as JSON text are decoded). A trace that is not MLflow's gives None."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from ragjudge._util.json_text import decoded_json
from ragjudge.metrics.agent._trajectory import clipped

__all__ = ["trace_spans"]

_START_KEYS = ("start_time_unix_nano", "start_time")


def trace_spans(trace: Any, limit: int) -> list[dict[str, Any]] | None:
    """Each span's template values (``number``, ``name``, ``type``, ``inputs``,
    ``outputs`` — None when absent, cut to ``limit`` characters), in start
    order; None when ``trace`` is not an MLflow trace."""
    spans = _raw_spans(trace)
    if spans is None:
        return None
    ordered = sorted((s for s in spans if isinstance(s, Mapping)), key=_start)
    return [_shown(number, span, limit) for number, span in enumerate(ordered, 1)]


def _raw_spans(trace: Any) -> list[Any] | None:
    if isinstance(trace, str):
        try:
            trace = json.loads(trace)
        except ValueError:
            return None
    data = trace.get("data") if isinstance(trace, Mapping) else None
    spans = data.get("spans") if isinstance(data, Mapping) else None
    return spans if isinstance(spans, list) else None


def _start(span: Mapping[str, Any]) -> int:
    for key in _START_KEYS:
        value = span.get(key)
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        if isinstance(value, str) and value.strip().isdigit():
            return int(value)
    return 0


def _shown(number: int, span: Mapping[str, Any], limit: int) -> dict[str, Any]:
    raw = span.get("attributes")
    attributes = raw if isinstance(raw, Mapping) else {}
    kind = decoded_json(attributes.get("mlflow.spanType"))
    shown: dict[str, Any] = {
        "number": number,
        "name": str(span.get("name") or "span"),
        "type": kind if isinstance(kind, str) and kind else None,
    }
    for part, key in (("inputs", "mlflow.spanInputs"), ("outputs", "mlflow.spanOutputs")):
        value = decoded_json(attributes.get(key))
        shown[part] = None if value is None else clipped(value, limit)
    return shown

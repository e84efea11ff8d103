"""Tables of a run's results, built from the stored rows: the long score frame that
statistics read, and the per-sample frame that exports write."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from ragjudge.schema import Output, Sample, Score

__all__ = ["metadata_columns", "sample_frame", "score_frame"]

ScoreRow = tuple[str, int, Score]
"""(request_id, trial, score), as :meth:`ragjudge.store.Store.scores` gives them."""


def score_frame(metadata: Mapping[str, dict[str, Any]], scores: Sequence[ScoreRow]) -> pd.DataFrame:
    """One row per (sample, trial, metric) with the sample's ``metadata`` as
    ``metadata.KEY`` columns; the input of :mod:`ragjudge.stats`."""
    columns_of = {request_id: metadata_columns(values) for request_id, values in metadata.items()}
    rows = [
        {
            "sample_id": request_id,
            "trial": trial,
            "metric": score.metric,
            "value": float("nan") if score.value is None else score.value,
            "error": score.error,
            **columns_of[request_id],
        }
        for request_id, trial, score in scores
    ]
    columns = ["sample_id", "trial", "metric", "value", "error"]
    return pd.DataFrame(rows, columns=None if rows else columns)


def sample_frame(
    samples: Sequence[Sample],
    outputs: Mapping[str, Output],
    scores: Sequence[ScoreRow],
    excluded: Mapping[str, Sequence[float]] | None = None,
) -> pd.DataFrame:
    """One row per (sample, trial): request, response, reference, each metric's value,
    error, rationale, details (JSON) and judge call ids. For a metric whose mean leaves
    values out (``excluded``), ``METRIC.left_out`` says whether this value was one."""
    excluded = excluded or {}
    by_sample: dict[str, dict[int, dict[str, Any]]] = {}
    for request_id, trial, score in scores:
        row = by_sample.setdefault(request_id, {}).setdefault(trial, {})
        row[score.metric] = score.value
        if score.metric in excluded:
            row[f"{score.metric}.left_out"] = score.value in excluded[score.metric]
        if score.error:
            row[f"{score.metric}.error"] = score.error
        if score.rationale:
            row[f"{score.metric}.rationale"] = score.rationale
        if score.details:
            row[f"{score.metric}.details"] = _dumps(score.details)
        if score.judge_call_ids:
            row[f"{score.metric}.judge_calls"] = _dumps(score.judge_call_ids)
    rows = []
    for sample in samples:
        output = outputs.get(sample.request_id)
        metrics_by_trial = by_sample.get(sample.request_id) or {0: {}}
        for trial in sorted(metrics_by_trial):
            rows.append(
                {
                    "request_id": sample.request_id,
                    "trial": trial,
                    "request": sample.request.query,
                    "response": output.response if output else sample.response,
                    "target_error": output.error if output else None,
                    "expected_response": _scalar(sample.expected_response),
                    **metadata_columns(sample.metadata),
                    **metrics_by_trial[trial],
                }
            )
    return pd.DataFrame(rows)


def metadata_columns(metadata: Mapping[str, Any]) -> dict[str, Any]:
    """``metadata.KEY`` columns of a sample's metadata (lists and dicts as JSON text)."""
    return {f"metadata.{k}": _scalar(v) for k, v in metadata.items()}


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)


def _scalar(value: Any) -> Any:
    """Keep scalars; turn lists and dicts into JSON text so frames stay flat."""
    if value is None or isinstance(value, str | int | float | bool):
        return value
    return _dumps(value)

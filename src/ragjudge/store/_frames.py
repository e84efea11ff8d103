"""Tables of a run's results, built from the stored rows: the long score frame that
statistics read, and the per-sample frame that exports write. pandas is loaded when a
table is built, not with the module (the store imports it)."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ragjudge.errors import ExportError
from ragjudge.schema import Output, Sample, Score, ScoreMeaning

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "METADATA_PREFIX",
    "SAMPLE_COLUMNS",
    "SCORE_COLUMN_SUFFIXES",
    "metadata_columns",
    "reserved_name_problem",
    "sample_frame",
    "score_frame",
    "score_frame_of_rows",
]

SAMPLE_COLUMNS: tuple[str, ...] = (
    "request_id",
    "trial",
    "request",
    "response",
    "target_error",
    "expected_response",
    "retrieved_context",
    "judge_contexts",
    "judge_calls",
)
"""The columns :func:`sample_frame` gives every sample (``judge_calls`` only when the
export asks for them); no score may take these names."""
JUDGE_CONTEXTS = "judge_contexts"
"""The details key of the contexts a metric's judge was shown (see
:data:`ragjudge.metrics.JUDGE_CONTEXTS`)."""
METADATA_PREFIX = "metadata."
"""The prefix of the columns holding a sample's metadata; no score name may start so."""
SCORE_COLUMN_SUFFIXES: tuple[str, ...] = (
    ".left_out",
    ".skipped",
    ".error",
    ".rationale",
    ".details",
    ".judge_calls",
    ".passed",
)
"""What :func:`sample_frame` appends to a score's name for that score's other columns;
no score name may end so."""


def reserved_name_problem(name: str) -> str | None:
    """Why a score may not be called ``name`` (its export column would take another
    column's place), or None when it may."""
    if name in SAMPLE_COLUMNS:
        return f"{name!r} is a column of every exported sample ({', '.join(SAMPLE_COLUMNS)})"
    if name.startswith(METADATA_PREFIX):
        return f"names starting with {METADATA_PREFIX!r} are the columns of sample metadata"
    if name.endswith(SCORE_COLUMN_SUFFIXES):
        suffixes = ", ".join(SCORE_COLUMN_SUFFIXES)
        return f"names ending in {suffixes} are the columns a score's value comes with"
    return None


ScoreRow = tuple[str, int, Score]
"""(request_id, trial, score), as :meth:`ragjudge.store._store.Store.scores` gives them."""


def score_frame(metadata: Mapping[str, dict[str, Any]], scores: Sequence[ScoreRow]) -> pd.DataFrame:
    """One row per (sample, trial, metric) with the sample's ``metadata`` as
    ``metadata.KEY`` columns; the input of :mod:`ragjudge.stats`. Scores of a metric
    that does not apply to the sample (``skipped``) are not in it."""
    import pandas as pd

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
        if not score.skipped
    ]
    columns = ["sample_id", "trial", "metric", "value", "error"]
    return pd.DataFrame(rows, columns=None if rows else columns)


ScoreColumns = tuple[str, int, str, float | None, str | None]
"""(request_id, trial, metric, value, error) of one stored score, in sample order."""


def score_frame_of_rows(
    metadata: Mapping[str, dict[str, Any]], rows: Sequence[ScoreColumns]
) -> pd.DataFrame:
    """:func:`score_frame` built from the stored columns of the applicable scores,
    without a :class:`Score` per row: the same frame, column for column."""
    import pandas as pd

    columns = ["sample_id", "trial", "metric", "value", "error"]
    if not rows:
        return pd.DataFrame([], columns=columns)
    request_ids, trials, metrics, values, errors = zip(*rows, strict=True)
    frame = pd.DataFrame(
        {
            "sample_id": list(request_ids),
            "trial": list(trials),
            "metric": list(metrics),
            "value": [float("nan") if v is None else float(v) for v in values],
            "error": list(errors),
        }
    )
    if not metadata:
        return frame
    positions: dict[str, int] = {}
    for request_id in request_ids:
        positions.setdefault(request_id, len(positions))
    per_sample = pd.DataFrame([metadata_columns(metadata[r]) for r in positions])
    if per_sample.columns.empty:
        return frame
    per_row = per_sample.iloc[[positions[r] for r in request_ids]].reset_index(drop=True)
    return pd.concat([frame, per_row], axis=1)


def sample_frame(
    samples: Sequence[Sample],
    outputs: Mapping[str, Output],
    scores: Sequence[ScoreRow],
    excluded: Mapping[str, Sequence[float]] | None = None,
    meanings: Mapping[str, ScoreMeaning] | None = None,
) -> pd.DataFrame:
    """One row per (sample, trial): request, response, reference, the retrieved
    contexts and the contexts each judge was shown when they are others (JSON), each
    metric's value, error, rationale, details (JSON) and judge call ids. For a metric
    whose mean leaves values out (``excluded``), ``METRIC.left_out`` says whether this
    value was one; for a score whose meaning (``meanings``) has a pass (a threshold, or
    yes/no), ``METRIC.passed`` says whether this value passed (empty when it has none).

    A score whose columns would take the place of another column (see
    :func:`reserved_name_problem`) is a ``ValueError``: no column is ever overwritten.
    """
    import pandas as pd

    excluded = excluded or {}
    passing = {name: m for name, m in (meanings or {}).items() if m.has_pass}
    by_sample: dict[str, dict[int, dict[str, Any]]] = {}
    shown: dict[tuple[str, int], dict[str, Any]] = {}
    for request_id, trial, score in scores:
        if (problem := reserved_name_problem(score.metric)) is not None:
            raise ExportError(f"cannot export the score {score.metric!r}: {problem}")
        metric_columns = by_sample.setdefault(request_id, {}).setdefault(trial, {})
        _add_columns(metric_columns, _score_columns(score, excluded, passing))
        if JUDGE_CONTEXTS in score.details:
            shown.setdefault((request_id, trial), {})[score.metric] = score.details[JUDGE_CONTEXTS]
    rows = []
    for sample in samples:
        output = outputs.get(sample.request_id)
        metrics_by_trial = by_sample.get(sample.request_id) or {0: {}}
        for trial in sorted(metrics_by_trial):
            row = {
                "request_id": sample.request_id,
                "trial": trial,
                "request": sample.request.query,
                "response": output.response if output else sample.response,
                "target_error": output.error if output else None,
                "expected_response": _scalar(sample.expected_response),
                "retrieved_context": _contexts(output, sample),
                "judge_contexts": _scalar(shown.get((sample.request_id, trial))),
            }
            _add_columns(row, metadata_columns(sample.metadata))
            _add_columns(row, metrics_by_trial[trial])
            rows.append(row)
    return pd.DataFrame(rows)


def _contexts(output: Output | None, sample: Sample) -> str | None:
    """The contexts the system retrieved for the sample (JSON text), or None."""
    chunks = output.retrieved_context if output is not None else sample.retrieved_context
    if chunks is None:
        return None
    return _dumps([c.model_dump(exclude_none=True) for c in chunks])


def _score_columns(
    score: Score,
    excluded: Mapping[str, Sequence[float]],
    passing: Mapping[str, ScoreMeaning],
) -> dict[str, Any]:
    """A score's value and, when it has them, its other columns."""
    columns: dict[str, Any] = {score.metric: score.value}
    if score.metric in excluded:
        columns[f"{score.metric}.left_out"] = score.value in excluded[score.metric]
    if score.metric in passing:
        columns[f"{score.metric}.passed"] = passing[score.metric].passed(score.value)
    if score.error:
        columns[f"{score.metric}.error"] = score.error
    if score.skipped:
        columns[f"{score.metric}.skipped"] = score.skipped
    if score.rationale:
        columns[f"{score.metric}.rationale"] = score.rationale
    if score.details:
        columns[f"{score.metric}.details"] = _dumps(score.details)
    if score.judge_call_ids:
        columns[f"{score.metric}.judge_calls"] = _dumps(score.judge_call_ids)
    return columns


def _add_columns(row: dict[str, Any], columns: Mapping[str, Any]) -> None:
    """Add ``columns`` to ``row``; a column already there is an
    :class:`~ragjudge.errors.ExportError`."""
    if taken := sorted(row.keys() & columns.keys()):
        raise ExportError(f"the export column(s) {', '.join(taken)} would be written twice")
    row.update(columns)


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

"""The stored form of a run's results: ``outputs`` and ``scores`` rows, made where the
results arrive and written in batches (:mod:`ragjudge.store._batch`)."""

from __future__ import annotations

import json
import time
from collections.abc import Iterable
from datetime import UTC, datetime
from json.encoder import encode_basestring
from math import isfinite
from typing import Any

from ragjudge.schema import Output, Score

__all__ = [
    "OutputRow",
    "ScoreRow",
    "details_json",
    "dumps",
    "output_row",
    "score_name_of",
    "score_rows",
    "timestamp",
]

OutputRow = tuple[str, str, str, str | None, float | None, int, int, str]
"""An ``outputs`` row: run id, request id, output JSON, error, latency, input tokens,
output tokens, time."""
ScoreRow = tuple[
    str, str, int, str, float | None, str | None, str | None, str, str, str, str | None, str | None
]
"""A ``scores`` row: run id, request id, trial, score name, value, error, rationale,
details, judge call ids, time, why skipped, the named judge that gave it."""

_ENCODER = json.JSONEncoder(ensure_ascii=False, default=str)


def dumps(value: Any) -> str:
    """``value`` as stored JSON (text kept as written, anything else as its string)."""
    return _ENCODER.encode(value)


def details_json(details: dict[str, Any]) -> str:
    """:func:`dumps` of a score's details, written here when every key is text and every
    value an int or a finite float (the details of most metrics): the same text as the
    encoder's, in a fraction of its time, which a run of cheap metrics pays per score."""
    for key, value in details.items():
        kind = type(value)
        if type(key) is not str or (kind is not int and (kind is not float or not isfinite(value))):
            return dumps(details)
    pairs = [f"{encode_basestring(key)}: {value!r}" for key, value in details.items()]
    return "{" + ", ".join(pairs) + "}"


_LAST_STAMP: list[tuple[int, str]] = [(-1, "")]
"""The second last stamped and its text (one tuple, replaced whole: thread-safe)."""


def timestamp() -> str:
    """The time stamp of a stored row: UTC, to the second (formatted once a second:
    every judge call and result row is stamped)."""
    second = int(time.time())
    last = _LAST_STAMP[0]
    if last[0] == second:
        return last[1]
    text = datetime.fromtimestamp(second, UTC).isoformat()
    _LAST_STAMP[0] = (second, text)
    return text


def score_name_of(row: ScoreRow) -> str:
    """The score name of a ``scores`` row."""
    return row[3]


def output_row(run_id: str, request_id: str, output: Output, now: str | None = None) -> OutputRow:
    """The ``outputs`` row of one target output."""
    return (
        run_id,
        request_id,
        output.model_dump_json(),
        output.error,
        output.latency,
        output.usage.input_tokens,
        output.usage.output_tokens,
        now or timestamp(),
    )


def score_rows(
    run_id: str, request_id: str, trial: int, scores: Iterable[Score], now: str | None = None
) -> list[ScoreRow]:
    """The ``scores`` rows of one sample's scores for one trial."""
    now = now or timestamp()
    return [
        (
            run_id,
            request_id,
            trial,
            s.metric,
            s.value,
            s.error,
            s.rationale,
            details_json(s.details) if s.details else "{}",
            dumps(s.judge_call_ids) if s.judge_call_ids else "[]",
            now,
            s.skipped,
            s.judge,
        )
        for s in scores
    ]

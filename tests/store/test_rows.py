"""The stored form of rows: a score's details as JSON text, and the time stamp."""

from __future__ import annotations

from datetime import datetime
from types import SimpleNamespace
from typing import Any

import pytest

from ragjudge.store import _rows
from ragjudge.store._rows import details_json, dumps, timestamp


@pytest.mark.parametrize(
    "details",
    [
        {"reference_index": 0},
        {"reference_index": 1, "precision": 0.1388888888888889, "recall": 1e-20},
        {"ratio": 1e300, "big": 10**30, "negative": -0.0, 'ünïcode "key"\n': 3},
        {"flag": True, "count": 2},
        {"value": float("nan")},
        {"value": float("inf")},
        {"text": "東京", "none": None},
        {1: 0.5},
        {"nested": {"a": [1, 2.5]}},
    ],
)
def test_details_are_stored_as_the_encoder_writes_them(details: dict[Any, Any]) -> None:
    assert details_json(details) == dumps(details)


def test_a_time_stamp_is_the_utc_second_formatted_once_a_second(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    clock = iter([1_700_000_000.2, 1_700_000_000.9, 1_700_000_001.0])
    monkeypatch.setattr(_rows, "time", SimpleNamespace(time=lambda: next(clock)))
    formatted: list[int] = []

    class Counting(datetime):
        @classmethod
        def fromtimestamp(cls, t: float, tz: Any = None) -> Any:
            formatted.append(int(t))
            return datetime.fromtimestamp(t, tz)

    monkeypatch.setattr(_rows, "datetime", Counting)
    monkeypatch.setattr(_rows, "_LAST_STAMP", [(-1, "")])
    stamps = [timestamp(), timestamp(), timestamp()]
    assert stamps == [
        "2023-11-14T22:13:20+00:00",
        "2023-11-14T22:13:20+00:00",
        "2023-11-14T22:13:21+00:00",
    ]
    assert formatted == [1_700_000_000, 1_700_000_001]

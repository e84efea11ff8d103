"""The stored form of scores: a score's details as JSON text."""

from __future__ import annotations

from typing import Any

import pytest

from ragjudge.store._rows import details_json, dumps


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

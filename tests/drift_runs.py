"""Stored runs for the judge-drift tests: two judges (``mini`` and ``big``) scoring
``faithfulness`` on a few anchor samples, as a matrix run stores them."""

from __future__ import annotations

from typing import Any

from ragjudge.schema import Sample, Score, ScoreMeaning
from ragjudge.store._store import Store

JUDGES = ("mini", "big")
MEANINGS = {
    f"faithfulness@{judge}": ScoreMeaning(judge=judge, metric="faithfulness") for judge in JUDGES
}
ANCHORS = [
    {"request_id": "a1", "metric": "faithfulness", "expected": 1.0, "tolerance": 0.0},
    {"request_id": "a2", "metric": "faithfulness", "expected": 0.0, "tolerance": 0.0},
    {"request_id": "a3", "metric": "faithfulness@big", "expected": 1.0, "tolerance": 0.0},
    {"request_id": "a9", "metric": "faithfulness", "expected": 1.0, "tolerance": 0.0},
]
Values = dict[str, dict[str, float | str]]
"""Score name → request id → value (a string: an error)."""


def stored_run(store: Store, values: Values, **config: Any) -> str:
    ids = sorted({rid for per_sample in values.values() for rid in per_sample} | {"other"})
    run_id = store.create_run(
        name=None,
        config={"metrics": ["faithfulness"], **config},
        versions={},
        samples=[Sample(request_id=rid, request="q", response="a") for rid in ids],
        trials=1,
        meanings=MEANINGS,
    )
    for name, per_sample in values.items():
        for rid, value in per_sample.items():
            score = (
                Score.failed(name, value)
                if isinstance(value, str)
                else Score(metric=name, value=value)
            )
            store.save_scores(run_id, rid, 0, [score])
    store.set_status(run_id, "completed")
    return run_id


AS_EXPECTED: Values = {
    "faithfulness@mini": {"a1": 1.0, "a2": 0.0, "a3": 1.0, "other": 0.5},
    "faithfulness@big": {"a1": 1.0, "a2": 0.0, "a3": 1.0, "other": 0.5},
}
# big now judges a2 as faithful and fails on a3; mini is unchanged
BIG_MOVED: Values = {
    "faithfulness@mini": {"a1": 1.0, "a2": 0.0, "a3": 1.0, "other": 0.5},
    "faithfulness@big": {"a1": 1.0, "a2": 1.0, "a3": "judge timed out", "other": 0.5},
}

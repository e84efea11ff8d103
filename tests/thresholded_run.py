"""A small stored run whose ``token_f1`` has a per-sample threshold (0.6): q1 and q2
pass, q3 fails; ``rouge_l`` has no threshold."""

from __future__ import annotations

from pathlib import Path

import ragjudge as rj

ROWS = [
    {
        "request_id": "q1",
        "request": "q1",
        "response": "red blue green",
        "expected_response": "red blue green",
    },
    {
        "request_id": "q2",
        "request": "q2",
        "response": "red blue",
        "expected_response": "red blue green yellow",
    },
    {"request_id": "q3", "request": "q3", "response": "cat", "expected_response": "dog"},
]
PASSED = {"q1": True, "q2": True, "q3": False}


def thresholded_run(store: Path) -> rj.EvaluationResult:
    """Evaluate :data:`ROWS` into ``store``."""
    metrics = [{"metric": "token_f1", "threshold": 0.6}, "rouge_l"]
    return rj.evaluate(ROWS, metrics=metrics, store=store, progress=False)

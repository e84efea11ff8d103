"""A small stored run for the label tests: ten samples, a yes/no judge score
``correct`` (the judge says yes on even samples) and a 1–5 score ``quality``."""

from __future__ import annotations

from pathlib import Path

from ragjudge.schema import Sample, Score, ScoreMeaning
from ragjudge.store import Store

SAMPLES = [f"s{i}" for i in range(10)]


def label_run(folder: Path) -> tuple[Store, str]:
    """A store at ``folder/runs.db`` holding the run; the store and the run id."""
    store = Store(folder / "runs.db")
    meanings = {
        "correct": ScoreMeaning(binary=True),
        "quality": ScoreMeaning(low=1.0, high=5.0),
    }
    run_id = store.create_run(
        name=None,
        config={},
        versions={},
        samples=[Sample(request_id=s, request=f"question {s}") for s in SAMPLES],
        trials=1,
        meanings=meanings,
    )
    for i, sample in enumerate(SAMPLES):
        scores = [
            Score(metric="correct", value=float(i % 2 == 0)),
            Score(metric="quality", value=float(1 + i % 5)),
        ]
        store.save_scores(run_id, sample, 0, scores)
    return store, run_id

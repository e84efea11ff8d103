"""A stored run judged by several named judges, made with the store API: a yes/no
metric (``supported``) under three judges with an ensemble, and a 1-5 scale
(``accuracy``, 0 is "not sure") under two judges, over eight samples and two trials."""

from __future__ import annotations

from pathlib import Path

from ragjudge.schema import Output, Sample, Score, ScoreMeaning
from ragjudge.store._store import Store

SAMPLES = [f"q{i}" for i in range(8)]

YES_NO = {
    "mini": [1, 1, 0, 0, 1, 0, 1, 1],
    "big": [1, 1, 0, 0, 1, 0, 1, 0],
    "noisy": [0, 1, 1, 0, 1, 1, 0, 1],
}
"""Each judge's verdict on every sample (the same in both trials)."""

SCALE = {
    "mini": [5, 4, 2, 1, 0, 3, 5, 4],
    "big": [5, 3, 2, 2, 4, 3, 4, 4],
}
"""Each judge's 1-5 rating of every sample (0: not sure, left out)."""


def _meanings() -> dict[str, ScoreMeaning]:
    meanings = {
        f"supported@{judge}": ScoreMeaning(
            binary=True, judge=judge, metric="supported", description="the answer is supported"
        )
        for judge in YES_NO
    }
    meanings["supported"] = ScoreMeaning(
        binary=True, ensemble=tuple(YES_NO), description="majority of the judges"
    )
    for judge in SCALE:
        meanings[f"accuracy@{judge}"] = ScoreMeaning(
            low=0, high=5, excluded=(0.0,), judge=judge, metric="accuracy", contexts="reference"
        )
    return meanings


MEANINGS = _meanings()


def _scores(index: int) -> list[Score]:
    verdicts = {judge: values[index] for judge, values in YES_NO.items()}
    majority = int(sum(verdicts.values()) * 2 > len(verdicts))
    scores = [
        Score(metric=f"supported@{judge}", value=float(v), judge=judge)
        for judge, v in verdicts.items()
    ]
    scores.append(Score(metric="supported", value=float(majority), details={"verdicts": verdicts}))
    scores += [
        Score(metric=f"accuracy@{judge}", value=float(values[index]), judge=judge)
        for judge, values in SCALE.items()
    ]
    return scores


def judges_run(store_path: Path, *, trials: int = 2, with_member_scores: bool = True) -> str:
    """The run; without ``with_member_scores`` only the ensemble ``supported`` (its
    details holding each judge's verdict) and the scale's scores are stored."""
    meanings = dict(MEANINGS)
    if not with_member_scores:
        meanings = {k: m for k, m in meanings.items() if not k.startswith("supported@")}
    with Store(store_path) as store:
        run_id = store.create_run(
            name="judges",
            config={
                "metrics": ["supported", "accuracy"],
                "judges": {"mini": "openai/gpt-4o-mini", "big": "openai/gpt-4o", "noisy": "x/y"},
            },
            versions={"ragjudge": "test"},
            samples=[Sample(request_id=rid, request=f"question {rid}") for rid in SAMPLES],
            trials=trials,
            meanings=meanings,
        )
        for index, rid in enumerate(SAMPLES):
            store.save_output(run_id, rid, Output(response=f"answer {rid}"))
            scores = [s for s in _scores(index) if s.metric in meanings]
            for trial in range(trials):
                store.save_scores(run_id, rid, trial, scores)
        store.set_status(run_id, "completed")
    return run_id

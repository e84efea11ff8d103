"""Runs stored as a judge matrix leaves them: one score per judge (``NAME@JUDGE``) whose
meaning names the judge, the metric and the contexts shown, each score from one judge
call with its cost — for the tests of the judge table."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from ragjudge.models import JudgeCallRecord
from ragjudge.schema import Sample, Score, ScoreMeaning, Usage
from ragjudge.store._store import Store


def labelled_samples(labels: Sequence[object]) -> list[Sample]:
    """One sample per label, the label under metadata ``ok``."""
    return [
        Sample(request_id=f"s{i}", request=f"q{i}", response="a", metadata={"ok": label})
        for i, label in enumerate(labels)
    ]


def judge_call(store: Store, run_id: str, model: str, cost: float | None) -> int:
    """Store one judge call of ``model`` priced ``cost`` and return its id."""
    record = JudgeCallRecord(
        provider="openai",
        model=model,
        messages=[{"role": "user", "content": "Is the answer supported?"}],
        config={},
        text="4",
        usage=Usage(input_tokens=100, output_tokens=5),
        attempts=1,
    )
    return store.save_judge_call(run_id, record, cost=cost)


def matrix_run(
    path: Path,
    samples: Sequence[Sample],
    verdicts: Mapping[str, Sequence[float]],
    meanings: Mapping[str, ScoreMeaning],
    prices: Mapping[str, float | None],
    judges: Mapping[str, str],
) -> str:
    """A stored run whose score ``name`` holds ``verdicts[name]`` per sample, each from
    one judge call priced ``prices[name]``."""
    with Store(path) as store:
        run_id = store.create_run(
            name="judge matrix",
            config={"metrics": ["faithfulness"], "judges": dict(judges)},
            versions={"ragjudge": "test"},
            samples=list(samples),
            trials=1,
            meanings=meanings,
        )
        for i, sample in enumerate(samples):
            scores = []
            for name, values in verdicts.items():
                model = judges.get(meanings[name].judge or "", "judge-model")
                call = judge_call(store, run_id, model, prices[name])
                judge = meanings[name].judge
                scores.append(
                    Score(metric=name, value=values[i], judge=judge, judge_call_ids=[call])
                )
            store.save_scores(run_id, sample.request_id, 0, scores)
        store.set_status(run_id, "completed")
    return run_id

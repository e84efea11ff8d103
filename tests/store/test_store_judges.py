"""The judge of a judge matrix in the store: each score's judge (``scores.judge``) and
each call's (``judge_calls.judge``) are written and read back, their cost summed per
judge, and a store an earlier version wrote gains both columns when opened."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from ragjudge.models._types import JudgeCallRecord
from ragjudge.schema import Sample, Score
from ragjudge.store._store import Store


def _run(store: Store) -> str:
    return store.create_run(
        name=None, config={}, versions={}, samples=[Sample(request_id="a", request="q")], trials=1
    )


def _call(model: str) -> JudgeCallRecord:
    return JudgeCallRecord(provider="openai", model=model, messages=[], config={})


def test_a_scores_judge_is_stored_and_read_back(tmp_path: Path) -> None:
    with Store(tmp_path / "runs.db") as store:
        run_id = _run(store)
        store.save_scores(
            run_id,
            "a",
            0,
            [
                Score(metric="faithfulness@mini", value=1.0, judge="mini"),
                Score(metric="faithfulness@big", value=0.0, judge="big"),
                Score(metric="rouge_l", value=0.5),
            ],
        )
        judges = {s.metric: s.judge for _, _, s in store.scores(run_id)}
    assert judges == {"faithfulness@mini": "mini", "faithfulness@big": "big", "rouge_l": None}


def test_each_judges_calls_are_summed_under_its_name(tmp_path: Path) -> None:
    with Store(tmp_path / "runs.db") as store:
        run_id = _run(store)
        store.save_judge_call(run_id, _call("m"), cost=0.25, judge="mini")
        store.save_judge_call(run_id, _call("m"), cost=0.5, judge="mini")
        begun = store.begin_judge_call(run_id, _call("g"), judge="big")
        store.end_judge_call(begun, _call("g"), cost=2.0)
        store.save_judge_call(run_id, _call("p"), cost=None)
        costs = store.judge_costs(run_id)
        usage = {row["purpose"]: (row["calls"], row["cost"]) for row in store.judge_usage(run_id)}
    assert costs == {"mini": 0.75, "big": 2.0, None: None}
    assert usage == {"(none)@mini": (2, 0.75), "(none)@big": (1, 2.0), "(none)": (1, None)}


def test_a_store_of_an_earlier_version_gains_the_judge_columns(tmp_path: Path) -> None:
    path = tmp_path / "runs.db"
    with Store(path) as store:
        run_id = _run(store)
    with sqlite3.connect(path) as conn:  # as an earlier version wrote them
        conn.execute("ALTER TABLE scores DROP COLUMN judge")
        conn.execute("ALTER TABLE judge_calls DROP COLUMN judge")
    with Store(path) as store:
        store.save_scores(run_id, "a", 0, [Score(metric="f@big", value=1.0, judge="big")])
        store.save_judge_call(run_id, _call("m"), cost=1.0, judge="big")
        assert [s.judge for _, _, s in store.scores(run_id)] == ["big"]
        assert store.judge_costs(run_id) == {"big": 1.0}

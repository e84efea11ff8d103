"""``response/llm_judged/relevance_to_query/rating``: the yes/no relevance judge of
Databricks Agent Evaluation, on a scripted judge."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

import ragjudge as rj
from ragjudge.metrics import create_metric
from ragjudge.models.scripted import ReplyScript, ScriptedProvider

RATING = "response/llm_judged/relevance_to_query/rating"
ROWS = [
    {
        "request_id": "on",
        "request": {
            "query": "And how is it resolved?",
            "history": [
                {"role": "user", "content": "What is a deadlock?"},
                {"role": "assistant", "content": "Two transactions waiting on each other."},
            ],
        },
        "response": "The database rolls one transaction back.",
    },
    {"request_id": "off", "request": "What is a view?", "response": "Paris is in France."},
    {"request_id": "ja", "request": "ビューとは何ですか。", "response": "保存されたクエリです。"},
]


def judge() -> ScriptedProvider:
    return ScriptedProvider(
        ReplyScript(
            rules=[
                ("Paris", "Rationale: it talks about geography.\nAnswer: no"),
                ("保存", '{"rationale": "質問に答えている", "result": "yes"}'),
            ],
            default="Yes, it says how a deadlock is resolved.",
        )
    )


def test_share_of_yes_under_the_databricks_name(tmp_path: Path) -> None:
    provider = judge()
    result = rj.evaluate(
        ROWS,
        metrics=["relevance_to_query"],
        judge=provider,
        store=tmp_path / "r.db",
        progress=False,
    )
    (summary,) = result.summaries
    assert summary.metric == RATING
    assert summary.mean == pytest.approx(2 / 3) and summary.n == 3 and summary.errors == 0
    rows = result.to_pandas().set_index("request_id")
    assert rows.loc["off", RATING] == 0.0
    assert rows.loc["off", f"{RATING}.rationale"] == "it talks about geography."
    assert json.loads(rows.loc["on", f"{RATING}.details"]) == {"label": "yes"}
    assert rows.loc["ja", f"{RATING}.rationale"] == "質問に答えている"
    assert result.meanings[RATING].binary
    with sqlite3.connect(tmp_path / "r.db") as conn:
        (prompt,) = conn.execute(
            "SELECT messages_json FROM judge_calls WHERE messages_json LIKE '%resolved%'"
        ).fetchone()
    content = json.loads(prompt)[0]["content"]
    assert (
        "<<<BEGIN MESSAGE 1 (user)>>>\nWhat is a deadlock?\n<<<END MESSAGE 1 (user)>>>" in content
    )
    assert "<<<BEGIN REQUEST>>>\nAnd how is it resolved?\n<<<END REQUEST>>>" in content


def test_a_renamed_instance_prefixes_the_databricks_name() -> None:
    metric = create_metric({"metric": "relevance_to_query", "name": "strict"})
    assert metric.score_names() == [f"strict.{RATING}"]

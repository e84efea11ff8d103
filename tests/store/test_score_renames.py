"""Runs an older version stored under score names since changed (Databricks' names):
the store renames them when opened, so show, compare (an old run against a new one),
gates, ``assert_metric`` and the exports read them under the current names; a store
that cannot be written keeps and reads the old names."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from typer.testing import CliRunner

import ragjudge as rj
from ragjudge._util.score_names import RENAMED_SCORES
from ragjudge.analysis._gates import Gate, check_gates
from ragjudge.analysis._results import summarize_run
from ragjudge.cli import app
from ragjudge.models.scripted import ReplyScript, ScriptedProvider
from ragjudge.pytest import assert_metric
from ragjudge.store import Store
from unwritable import unwritable

ROWS = [
    {
        "request_id": f"q{i}",
        "request": f"What does setting {i} do?",
        "response": f"Setting {i} turns on feature {i}.",
        "retrieved_context": [
            {"doc_uri": f"doc{i}.md", "content": f"Setting {i} turns on feature {i}."},
            {"doc_uri": "other.md", "content": "Unrelated text about lunch."},
        ],
    }
    for i in range(4)
]
PRECISION = "retrieval/llm_judged/chunk_relevance/precision"
OLD_PRECISION = "retrieval/llm_judged/chunk_relevance_precision"
OLD_INPUT = "agent/input_token_count"
runner = CliRunner()


def evaluated(store: Path) -> str:
    judge = ScriptedProvider(
        ReplyScript(rules=[("lunch", "Off topic.\nAnswer: no")], default="Yes.")
    )
    result = rj.evaluate(
        ROWS,
        metrics=["chunk_relevance_precision", "agent_usage", "safety"],
        judge=judge,
        store=store,
        progress=False,
    )
    return result.run_id


def stored_as_before(store: Path, run_id: str) -> None:
    """The run as an older version stored it: its scores and meanings under the old names."""
    conn = sqlite3.connect(store)
    with conn:
        for old, new in RENAMED_SCORES.items():
            conn.execute(
                "UPDATE scores SET metric = ? WHERE run_id = ? AND metric = ?", (old, run_id, new)
            )
        (meanings,) = conn.execute(
            "SELECT meanings_json FROM runs WHERE run_id = ?", (run_id,)
        ).fetchone()
        back = {v: k for k, v in RENAMED_SCORES.items()}
        renamed = {back.get(name, name): m for name, m in json.loads(meanings).items()}
        conn.execute(
            "UPDATE runs SET meanings_json = ? WHERE run_id = ?", (json.dumps(renamed), run_id)
        )
    conn.close()


def stored_names(store: Path, run_id: str) -> set[str]:
    conn = sqlite3.connect(store)
    names = {r[0] for r in conn.execute("SELECT metric FROM scores WHERE run_id = ?", (run_id,))}
    conn.close()
    return names


@pytest.fixture
def old_and_new(tmp_path: Path) -> tuple[Path, str, str]:
    store = tmp_path / "runs.db"
    old = evaluated(store)
    stored_as_before(store, old)
    assert OLD_PRECISION in stored_names(store, old)
    new = evaluated(store)
    return store, old, new


def test_opening_the_store_renames_an_old_run_and_show_lists_the_current_names(
    old_and_new: tuple[Path, str, str],
) -> None:
    store, old, _ = old_and_new
    shown = runner.invoke(app, ["show", old, "--store", str(store), "--json"])
    assert shown.exit_code == 0, shown.output
    names = {m["metric"] for m in json.loads(shown.output)["metrics"]}
    assert {PRECISION, "agent/total_input_token_count", "agent/total_output_token_count"} <= names
    assert not names & set(RENAMED_SCORES)
    assert stored_names(store, old) == stored_names(store, old_and_new[2])
    with Store(store) as s:
        meanings = s.run(old).meanings
    assert meanings is not None and PRECISION in meanings and OLD_PRECISION not in meanings


def test_compare_pairs_the_old_run_with_a_new_one_under_either_name(
    old_and_new: tuple[Path, str, str],
) -> None:
    store, old, new = old_and_new
    compared = runner.invoke(
        app, ["compare", old, new, "--store", str(store), "--metric", OLD_PRECISION, "--json"]
    )
    assert compared.exit_code == 0, compared.output
    text = compared.output
    assert PRECISION in text and OLD_PRECISION not in text
    rows = json.loads(text)["metrics"]
    assert [r["metric"] for r in rows] == [PRECISION]
    assert rows[0]["n"] == len(ROWS)  # every sample paired
    assert rows[0]["difference"] == 0.0  # the same scripted judge: the same precision


def test_gates_and_assert_metric_take_the_old_name_and_show_the_current_one(
    old_and_new: tuple[Path, str, str],
) -> None:
    store, old, _ = old_and_new
    with Store(store) as s:
        result = summarize_run(s, old)
    (held,) = check_gates(result.summaries, [Gate(OLD_PRECISION, 0.5)])
    assert held.passed and held.value == 0.5 and held.gate.metric == PRECISION
    (failed,) = check_gates(result.summaries, [Gate(OLD_INPUT, 0.0, floor=False)])
    assert (
        failed.gate.metric == "agent/total_input_token_count"
        and "no such score" not in failed.reason
    )
    assert assert_metric(result, OLD_PRECISION, at_least=0.5) == 0.5
    with pytest.raises(AssertionError, match=f"{PRECISION} mean 0.500 < 0.9"):
        assert_metric(result, OLD_PRECISION, at_least=0.9)


def test_the_databricks_export_of_an_old_run_has_the_current_columns(
    old_and_new: tuple[Path, str, str], tmp_path: Path
) -> None:
    store, old, _ = old_and_new
    out = tmp_path / "old.jsonl"
    written = runner.invoke(
        app, ["export", old, "--store", str(store), "--layout", "databricks", "-o", str(out)]
    )
    assert written.exit_code == 0, written.output
    first = json.loads(out.read_text(encoding="utf-8").splitlines()[0])
    assert first[PRECISION] == 0.5
    assert first["retrieval/llm_judged/chunk_relevance/ratings"] == ["yes", "no"]
    assert OLD_PRECISION not in first and OLD_INPUT not in first


def test_a_store_that_cannot_be_written_keeps_and_reads_the_old_names(tmp_path: Path) -> None:
    store = tmp_path / "runs.db"
    old = evaluated(store)
    stored_as_before(store, old)
    with unwritable(store), Store(store) as s:
        names = {m.metric for m in summarize_run(s, old).summaries}
    assert OLD_PRECISION in names and PRECISION not in names


def test_a_configured_gate_on_an_old_name_gates_the_current_score(tmp_path: Path) -> None:
    judge = ScriptedProvider(
        ReplyScript(rules=[("lunch", "Off topic.\nAnswer: no")], default="Yes.")
    )
    result = rj.evaluate(
        ROWS,
        metrics=["chunk_relevance_precision"],
        judge=judge,
        store=tmp_path / "runs.db",
        fail_under={OLD_PRECISION: 0.4},
        progress=False,
    )
    (gate,) = result.gates
    assert gate.passed and gate.gate.metric == PRECISION and gate.value == 0.5

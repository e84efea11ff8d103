"""``ragjudge followups``: a multi-turn run's set with its follow-up questions written
for a paired replay; a run without transcripts is refused with a message."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

import ragjudge as rj
from ragjudge.cli import app
from ragjudge.store import Store

runner = CliRunner()


def _store_with_transcripts(path: Path) -> None:
    with Store(path, write=True) as store:
        run_id = store.create_run(
            name="a",
            config={},
            versions={},
            samples=[
                rj.Sample.model_validate(
                    {"request_id": "u1", "request": "Q?", "expected_response": "A."}
                )
            ],
            trials=1,
        )
        transcript = {
            "events": [
                {"task": "T1", "turn": 0, "query": "Q?"},
                {"task": "T4/T5", "turn": 1, "decision": "ask", "query": "and why?"},
                {"task": "T4/T5", "turn": 2, "decision": "ask", "query": "since when?"},
                {"task": "T4/T5", "turn": 3, "decision": "stop", "query": None},
            ]
        }
        score = rj.Score(metric="wscore", value=3.0, details={"transcript": transcript})
        store.save_scores(run_id, "u1", 0, [score])


def test_followups_writes_the_rows_with_their_questions(tmp_path: Path) -> None:
    store = tmp_path / "runs.db"
    _store_with_transcripts(store)
    output = tmp_path / "replay.jsonl"
    result = runner.invoke(app, ["followups", "latest", "--store", str(store), "-o", str(output)])
    assert result.exit_code == 0, result.output
    assert "1 sample(s) with 2 follow-up question(s)" in result.output
    [row] = [json.loads(line) for line in output.read_text().splitlines()]
    assert row["request"] == "Q?"
    assert row["metadata"]["followups"] == ["and why?", "since when?"]
    assert "response" not in row


def test_a_run_without_transcripts_is_refused(tmp_path: Path) -> None:
    store = tmp_path / "runs.db"
    with Store(store, write=True) as opened:
        sample = rj.Sample.model_validate({"request_id": "u1", "request": "Q?"})
        opened.create_run(name="b", config={}, versions={}, samples=[sample], trials=1)
    result = runner.invoke(
        app, ["followups", "latest", "--store", str(store), "-o", str(tmp_path / "x.jsonl")]
    )
    assert result.exit_code == 2
    assert "holds no multi-turn transcript" in result.output
    assert not (tmp_path / "x.jsonl").exists()

"""End to end: two runs on the scripted judge with the same anchors; when the judge's
reply on an anchor changes, the second run's summary flags the judge and names the
anchor, and ``ragjudge show`` does too."""

from __future__ import annotations

import asyncio
from pathlib import Path

from typer.testing import CliRunner

from ragjudge.analysis._results import EvaluationResult
from ragjudge.cli import app
from ragjudge.config import EvalConfig
from ragjudge.models.scripted import ReplyScript, ScriptedProvider
from ragjudge.run._runner import run_evaluation

ROWS = [
    {"request_id": f"r{i}", "request": f"What is {i} + {i}?", "response": str(2 * i)}
    for i in range(4)
]
ANCHORS = [
    {"request_id": "r1", "metric": "closedqa", "expected": True},
    {"request_id": "r2", "metric": "closedqa", "expected": 1},
]


def run(store: Path, judge: ScriptedProvider) -> EvaluationResult:
    config = EvalConfig(
        metrics=[
            {
                "metric": "classify",
                "spec": "closedqa",
                "args": {"criteria": "correct"},
                "counts": False,
            }
        ],
        judge={"model": "scripted", "preflight": False},
        target="data",
        store=str(store),
        cache=False,
        anchors=ANCHORS,
        reference_run="previous",
    )
    return asyncio.run(run_evaluation(config, data=ROWS, judge_provider=judge, progress=False))


def test_a_changed_judge_reply_on_an_anchor_flags_the_judge(tmp_path: Path) -> None:
    store = tmp_path / "runs.db"
    steady = ScriptedProvider(ReplyScript(default="The sum is right.\nY"))
    first = run(store, steady)
    assert first.anchors is not None and first.anchors.moved == []
    (closedqa,) = first.anchors.scores
    assert (closedqa.agreeing, closedqa.reference_agreeing) == (2, None)

    again = run(store, ScriptedProvider(ReplyScript(default="The sum is right.\nY")))
    assert again.anchors is not None and again.anchors.moved == []

    # the judge now rejects the answer "2" (row r1): its anchor moves
    drifted = ScriptedProvider(
        ReplyScript(rules=[(r"What is 1 \+ 1\?", "That is wrong.\nN")], default="Right.\nY")
    )
    last = run(store, drifted)
    assert last.anchors is not None and last.anchors.reference_run == again.run_id
    (moved,) = last.anchors.moved
    assert (moved.score, moved.agreeing, moved.reference_agreeing) == ("closedqa", 1, 2)
    assert moved.changed == ["r1"] and moved.missed == ["r1"]

    shown = CliRunner().invoke(
        app, ["show", last.run_id, "--store", str(store)], env={"COLUMNS": "200"}
    )
    assert shown.exit_code == 0, shown.output
    assert (
        "the judge moved on closedqa: 1/2 anchors as expected, 2/2 in the reference run; "
        "verdict changed on r1"
    ) in shown.output

"""Rate limiting is visible: 429 answers, pauses and retries in the progress line and
in the run's summary (also when shown later)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ragjudge.cli import app
from ragjudge.models import JudgeModel, ModelSettings
from ragjudge.models._limits import Slot
from ragjudge.models.scripted import ReplyScript, ScriptedProvider
from ragjudge.testing.server import OpenAITestServer
from served import running, write_project

runner = CliRunner()
ROWS = [
    {
        "request_id": f"q{i}",
        "request": f"Fact {i}?",
        "response": f"Fact {i}.",
        "expected_response": f"Fact {i}.",
    }
    for i in range(4)
]


@pytest.fixture
def server() -> Iterator[OpenAITestServer]:
    yield from running(OpenAITestServer(replies=ReplyScript(default="Feedback: fine. [RESULT] 5")))


def _config(tmp_path: Path, server: OpenAITestServer) -> Path:
    return write_project(
        tmp_path,
        ROWS,
        "data: set.jsonl\n"
        "metrics: [{metric: answer_accuracy, contexts: none}]\n"
        "judge:\n"
        "  model: openai/test-model\n"
        f"  base_url: {server.base_url}\n"
        "  max_retries: 3\n  backoff_base: 0.01\n  backoff_max: 0.05\n"
        "  preflight: false\n"
        "concurrency: 1\n",
    )


def test_429_pauses_and_retries_reach_the_summary(tmp_path: Path, server: OpenAITestServer) -> None:
    server.fail_next("429", count=2, retry_after=0.4)
    config = _config(tmp_path, server)

    ran = runner.invoke(app, ["run", str(config), "--json", "--no-progress"])
    text = runner.invoke(
        app,
        [
            "show",
            json.loads(ran.stdout)["run_id"],
            "--store",
            str(tmp_path / ".ragjudge" / "runs.db"),
        ],
    )

    assert ran.exit_code == 0, ran.output
    (events,) = json.loads(ran.stdout)["rate_limits"]
    assert events["models"] == "openai/test-model"
    assert events["rate_limited"] == 2 and events["retries"] == 2 and events["pauses"] >= 1
    assert events["paused_seconds"] >= 0.39
    line = next(x for x in text.stdout.splitlines() if x.startswith("rate limits:"))
    assert line.startswith("rate limits: openai/test-model: 2 answers 429, paused ")
    assert line.endswith("2 retries")


def test_no_rate_limit_no_line(tmp_path: Path, server: OpenAITestServer) -> None:
    ran = runner.invoke(app, ["run", str(_config(tmp_path, server)), "--no-progress"])

    assert ran.exit_code == 0 and "rate limits:" not in ran.stdout


def test_the_live_status_names_a_pause_under_way() -> None:
    from ragjudge.analysis._rate_limits import live_status

    model = JudgeModel(ScriptedProvider(ReplyScript(default="ok")), settings=ModelSettings())
    assert live_status([model]) == ""

    model.limiter.on_rate_limit(Slot(started=0.0, tokens=0), pause=60.0)

    status = live_status([model, model])
    assert status.startswith("429s: 1, paused, resumes in ")
    assert status.endswith(" s, retries: 0")
    assert model.limiter.stats().paused_seconds == pytest.approx(60.0)

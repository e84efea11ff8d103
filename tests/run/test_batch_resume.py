"""A batched run killed while its batch is out, then resumed: the resumed run waits for
the batch the killed one sent instead of sending the calls again, so the provider
answers (and bills) each call once and every answered call is recorded once."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from ragjudge.models.scripted import ReplyScript
from ragjudge.store._judge_calls import LOST
from ragjudge.testing.server import OpenAITestServer
from served import running, write_project
from virtual_time import ManualClock

ROWS = [
    {"request_id": f"q{i}", "request": f"Question {i}?", "response": f"Answer {i}.",
     "expected_response": f"Answer {i}."}
    for i in range(6)
]  # fmt: skip


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


@pytest.fixture
def server(clock: ManualClock) -> Iterator[OpenAITestServer]:
    script = ReplyScript(default="Feedback: ok. [RESULT] 4")
    yield from running(OpenAITestServer(replies=script, clock=clock))


def project(tmp_path: Path, server: OpenAITestServer) -> Path:
    return write_project(
        tmp_path,
        ROWS,
        "data: set.jsonl\nmetrics: [{metric: answer_accuracy, contexts: none}]\n"
        f"judge:\n  model: openai/judge-x\n  base_url: '{server.base_url}'\n"
        "  mode: batch\n  batch_wait: 0.3\n  batch_poll: 0.05\n  preflight: false\n",
    )


def counted(store: Path) -> tuple[int, int, int]:
    """Calls recorded with a reply, calls marked lost, scores stored."""
    with sqlite3.connect(store) as conn:
        answered = conn.execute("SELECT COUNT(*) FROM judge_calls WHERE text IS NOT NULL")
        lost = conn.execute("SELECT COUNT(*) FROM judge_calls WHERE error = ?", (LOST,))
        scored = conn.execute("SELECT COUNT(*) FROM scores WHERE value = 4")
        return answered.fetchone()[0], lost.fetchone()[0], scored.fetchone()[0]


def test_a_killed_batched_run_resumes_without_sending_its_batch_again(
    tmp_path: Path, server: OpenAITestServer, clock: ManualClock
) -> None:
    server.batches.batch_seconds = 3600.0
    config = project(tmp_path, server)
    command = [sys.executable, "-m", "ragjudge", "run", str(config), "--no-progress"]
    process = subprocess.Popen(
        command, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=os.environ.copy()
    )
    try:
        for _ in range(3000):  # at most about a minute: a safety net, not a measure
            if server.batches.retrievals >= 1 or process.poll() is not None:
                break
            time.sleep(0.02)
        assert server.batches.retrievals >= 1, process.communicate(timeout=5)
    finally:
        process.send_signal(signal.SIGKILL)
        process.communicate(timeout=60)
    assert (server.batches.created, server.batches.lines_answered) == (1, 0)
    store = tmp_path / ".ragjudge" / "runs.db"
    with sqlite3.connect(store) as conn:
        (run_id,) = conn.execute("SELECT run_id FROM runs").fetchone()

    clock.now = 3600.0  # the batch ends while no process watches it
    resumed = subprocess.run(
        [*command, "--resume", run_id], cwd=tmp_path, capture_output=True, timeout=120
    )

    assert resumed.returncode == 0, resumed.stderr
    answered, lost, scored = counted(store)
    assert scored == len(ROWS)
    assert server.batches.created == 1  # nothing sent, nor paid, twice
    assert server.batches.lines_answered == answered == len(ROWS)
    assert lost == len(ROWS)  # the killed process's calls, on record without a reply

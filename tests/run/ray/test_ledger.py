"""Every judge call a Ray worker pays for is stored as it is sent and as it returns,
not with its batch: a killed worker or driver leaves every paid call on record (those
in flight marked lost), and the batch done again takes the replies already paid for
from the cache instead of paying for them twice."""

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
from ray_cluster import local_cluster, ray_or_skip, write_killer

import ragjudge as rj
from ragjudge.config import load_config
from ragjudge.models.scripted import ReplyScript
from ragjudge.run._runner import run_evaluation
from ragjudge.store._judge_calls import LOST
from ragjudge.store._store import Store
from ragjudge.testing.server import FaultPlan, OpenAITestServer
from served import counts, running, write_project

ray_or_skip()

ROWS = [
    {"request_id": f"q{i:03d}", "request": f"question {i}", "response": f"answer {i}",
     "expected_response": f"answer {i}"}
    for i in range(60)
]  # fmt: skip
SCRIPT = ReplyScript(default="Feedback: fine. [RESULT] 4")


@pytest.fixture(scope="module")
def cluster() -> Iterator[str]:
    yield from local_cluster()


@pytest.fixture
def server() -> Iterator[OpenAITestServer]:
    yield from running(OpenAITestServer(replies=SCRIPT, faults=FaultPlan(latency=(0.1, 0.15))))


def project(tmp_path: Path, server: OpenAITestServer, target: str) -> Path:
    """A run of the 60 rows, one judge call each, on 2 workers in batches of 20."""
    return write_project(
        tmp_path,
        ROWS,
        f"data: set.jsonl\ntarget: {target}\n"
        f"judge: {{model: openai/judge-x, base_url: '{server.base_url}', preflight: false}}\n"
        "metrics: [{metric: answer_accuracy, contexts: none}]\nconcurrency: 4\n"
        f"cache: {tmp_path / 'cache.db'}\n"
        "executor: ray\nray: {workers: 2, batch_size: 20}\n",
    )


def recorded_calls(store: Path) -> tuple[int, int]:
    """The judge calls the store holds that were sent (not cache hits), and how many
    of them are marked lost."""
    with sqlite3.connect(store) as conn:
        sent, lost = conn.execute(
            "SELECT COUNT(*), SUM(error = ?) FROM judge_calls WHERE cached = 0", (LOST,)
        ).fetchone()
    return sent, lost or 0


def assert_paid_calls_recorded(store: Path, paid: int) -> None:
    """Every request the server answered is stored, and a request was paid twice only
    when its first reply was lost with the process that sent it."""
    sent, lost = recorded_calls(store)
    assert paid <= sent, f"{paid} calls paid, {sent} stored"
    assert paid - len(ROWS) <= lost, f"{paid - len(ROWS)} paid twice, {lost} lost"
    assert counts(store) == (60, 60, 60)


async def test_a_killed_workers_paid_calls_are_stored_and_not_paid_again(
    cluster: str, tmp_path: Path, server: OpenAITestServer
) -> None:
    write_killer(tmp_path, 13)  # dies on row 13 of the first batch, after paying for most
    config = project(tmp_path, server, "killer:answer")
    result = await run_evaluation(load_config(config), progress=False)
    assert (tmp_path / "killed").exists() and result.status == "completed"
    assert_paid_calls_recorded(tmp_path / ".ragjudge" / "runs.db", server.stats.completions)
    with Store(tmp_path / ".ragjudge" / "runs.db") as s:
        cached = s.judge_calls(result.run_id)["cached"].sum()
    assert cached >= 5  # the batch done again took the replies paid before the kill


def test_a_killed_drivers_paid_calls_are_stored_and_the_resume_pays_only_the_rest(
    cluster: str, tmp_path: Path, server: OpenAITestServer
) -> None:
    config = project(tmp_path, server, "data")
    store = tmp_path / ".ragjudge" / "runs.db"
    command = [sys.executable, "-m", "ragjudge", "run", str(config), "--no-progress"]
    source = str(Path(rj.__file__).parents[1])  # the subprocess runs this ragjudge
    path = os.pathsep.join([source, os.environ.get("PYTHONPATH", "")])
    env = {**os.environ, "RAY_ADDRESS": cluster, "PYTHONPATH": path}
    process = subprocess.Popen(command, cwd=tmp_path, env=env, stderr=subprocess.PIPE)
    for _ in range(2400):  # at most about two minutes: a safety net, not a measure
        if server.stats.completions >= 12 or process.poll() is not None:
            break
        time.sleep(0.05)
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=30)
    killed_after = server.stats.completions
    assert 12 <= killed_after < 60, "the driver was not killed mid-run"
    with Store(store) as s:
        (run,) = s.runs()
    resumed = subprocess.run(
        [*command, "--resume", run.run_id], cwd=tmp_path, env=env, capture_output=True, timeout=180
    )
    assert resumed.returncode == 0, resumed.stderr
    assert_paid_calls_recorded(store, server.stats.completions)

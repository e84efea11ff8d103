"""What ``ragjudge run`` says around a run: the exact command that resumes an
interrupted run (its id, the --store given)."""

from __future__ import annotations

import json
import os
import shlex
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

SLOW_APP = """\
import asyncio
from pathlib import Path

HOLD = Path(__file__).with_name("hold")

async def answer(query):
    # while the test holds the run, questions from q40 on get no answer
    while int(query[1:]) >= 40 and HOLD.exists():
        await asyncio.sleep(0.01)
    return query
"""


def test_resume_command() -> None:
    from ragjudge.cli._gate import resume_command

    command = resume_command(
        Path("my evals/eval.yaml"), "20250101-000000-abc123", {"--store": Path("/tmp/r.db")}
    )

    assert (
        command
        == "ragjudge run 'my evals/eval.yaml' --resume 20250101-000000-abc123 --store /tmp/r.db"
    )
    assert resume_command(Path("e.yaml"), None, {"--store": None}).startswith(
        "ragjudge run e.yaml --resume RUN  (RUN: the run's id"
    )


def _scores_in(store: Path) -> int:
    try:
        with sqlite3.connect(store, timeout=5) as conn:
            return int(conn.execute("SELECT COUNT(*) FROM scores").fetchone()[0])
    except sqlite3.OperationalError:
        return 0


def test_ctrl_c_prints_the_exact_resume_command_and_it_works(tmp_path: Path) -> None:
    rows = [
        {"request_id": f"r{i}", "request": f"q{i}", "expected_response": f"q{i}"}
        for i in range(300)
    ]
    (tmp_path / "set.jsonl").write_text("\n".join(json.dumps(r) for r in rows))
    (tmp_path / "slow_app.py").write_text(SLOW_APP)
    (tmp_path / "hold").touch()  # the run cannot finish before it is interrupted
    config = tmp_path / "eval.yaml"
    config.write_text(
        "data: set.jsonl\ntarget: slow_app:answer\nmetrics: [exact_match]\nconcurrency: 2\n"
    )
    store = tmp_path / "elsewhere" / "runs.db"
    command = [
        sys.executable,
        "-m",
        "ragjudge",
        "run",
        str(config),
        "--no-progress",
        "--store",
        str(store),
    ]
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "COLUMNS": "300"}
    proc = subprocess.Popen(
        command, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env
    )
    for _ in range(1200):  # at most about a minute: a safety net, not a measure
        if _scores_in(store) >= 30:
            break
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    _, stderr = proc.communicate(timeout=30)

    assert proc.returncode == 130, stderr
    (tmp_path / "hold").unlink()
    with sqlite3.connect(store) as conn:
        (run_id,) = conn.execute("SELECT run_id FROM runs").fetchone()
    said = stderr.split("Resume with: ", 1)[1].strip()
    assert said == f"ragjudge run {config} --resume {run_id} --store {store}"
    args = shlex.split(said)[2:]
    resumed = subprocess.run(
        [sys.executable, "-m", "ragjudge", "run", *args, "--no-progress", "--json"],
        cwd=tmp_path.parent,
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert resumed.returncode == 0, resumed.stderr
    assert json.loads(resumed.stdout)["metrics"][0]["n"] == 300

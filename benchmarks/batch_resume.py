"""Batch mode killed mid-batch and resumed: nothing paid twice, for OpenAI's Batch API
and Anthropic's Message Batches.

For each batch API, starts the local test server (its batches stay in progress until
the script moves the server's clock), runs ``ragjudge run`` on ``--rows`` rows with
``mode: batch`` and ``concurrency`` unset in a child process, kills the child with
SIGKILL once its batches are created and being polled (the run keeps ``batch_size``
samples in flight, so the first batch waits for its replies before more are sent),
lets the batches end, and resumes the run with ``--resume``. Then counts the requests
the server received in batches and answered (what a provider bills) against the
store's calls answered with a reply. The check: the two are equal and equal to the
rows (each request sent, and paid, once). Exit status 1 when it fails. Run with::

    .venv/bin/python benchmarks/batch_resume.py [--rows N] [--batch-size N]
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from ragjudge.models.scripted import ReplyScript
from ragjudge.testing.server import OpenAITestServer

FLAVOURS = {"openai": "openai/test-model", "anthropic": "anthropic/test-model"}


class Clock:
    """The test server's time, moved by this script."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def write_project(folder: Path, flavour: str, url: str, rows: int, batch_size: int) -> Path:
    lines = [
        json.dumps(
            {
                "request_id": f"q{i}",
                "request": f"Question {i}?",
                "response": f"Answer {i}.",
                "expected_response": f"Answer {i}.",
            }
        )
        for i in range(rows)
    ]
    (folder / "set.jsonl").write_text("\n".join(lines) + "\n")
    config = folder / "eval.yaml"
    config.write_text(
        "data: set.jsonl\nmetrics: [{metric: answer_accuracy, contexts: none}]\n"
        f"judge:\n  model: {FLAVOURS[flavour]}\n  base_url: '{url}'\n"
        "  prices: {test-model: [1.0, 4.0]}\n"
        f"  mode: batch\n  batch_size: {batch_size}\n  batch_wait: 1.0\n"
        "  batch_poll: 0.2\n  preflight: false\n"
    )
    return config


def desk_counts(server: OpenAITestServer, flavour: str) -> tuple[int, int, int]:
    """Batches created, requests in them, requests answered."""
    if flavour == "anthropic":
        desk = server.anthropic
        return desk.created, desk.requests_created, desk.lines_answered
    batches = server.batches
    return batches.created, sum(batches.sizes), batches.lines_answered


def wait_for_batches(
    server: OpenAITestServer, flavour: str, child: subprocess.Popen[bytes]
) -> None:
    """Until the child has created its first batches and sends no more (it polls them:
    only the calls of samples in flight wait together)."""
    deadline = time.monotonic() + 300  # a safety net, not a measure
    seen, still = 0, 0
    while time.monotonic() < deadline and child.poll() is None:
        created = desk_counts(server, flavour)[0]
        still = still + 1 if created == seen and created > 0 else 0
        seen = created
        if still >= 20:
            return
        time.sleep(0.1)


def recorded(store: Path) -> int:
    with sqlite3.connect(store) as conn:
        row = conn.execute("SELECT COUNT(*) FROM judge_calls WHERE text IS NOT NULL").fetchone()
    return int(row[0])


def one_flavour(flavour: str, rows: int, batch_size: int) -> bool:
    clock = Clock()
    server = OpenAITestServer(replies=ReplyScript(default="Feedback: ok. [RESULT] 4"), clock=clock)
    server.batches.batch_seconds = server.anthropic.batch_seconds = 3600.0
    server.start()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            folder = Path(tmp)
            url = server.root_url if flavour == "anthropic" else server.base_url
            config = write_project(folder, flavour, url, rows, batch_size)
            env = {**os.environ, "ANTHROPIC_API_KEY": "test-key", "OPENAI_API_KEY": "test-key"}
            command = [sys.executable, "-m", "ragjudge", "run", str(config), "--no-progress"]
            child = subprocess.Popen(
                command, cwd=folder, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
            )
            wait_for_batches(server, flavour, child)
            child.send_signal(signal.SIGKILL)
            child.communicate(timeout=60)
            before = desk_counts(server, flavour)
            print(f"{flavour}: child killed after {before}", flush=True)
            store = folder / ".ragjudge" / "runs.db"
            with sqlite3.connect(store) as conn:
                (run_id,) = conn.execute("SELECT run_id FROM runs").fetchone()
            clock.now = 3600.0  # the batches end while no process watches them
            server.batches.batch_seconds = server.anthropic.batch_seconds = 0.0
            started = time.perf_counter()
            resumed = subprocess.run(
                [*command, "--resume", run_id],
                cwd=folder,
                env=env,
                capture_output=True,
                timeout=240,
            )
            seconds = time.perf_counter() - started
            created, sent, answered = desk_counts(server, flavour)
            stored = recorded(store)
    finally:
        server.stop()
    print(
        f"{flavour}: killed after {before[0]} batches ({before[1]} requests, {before[2]} answered);"
        f" resumed (exit {resumed.returncode}) in {seconds:.1f} s: batches created {created},"
        f" requests sent {sent}, answered (paid) {answered}, recorded with a reply {stored}"
    )
    if resumed.returncode != 0:
        print(resumed.stderr.decode()[-2000:])
    return resumed.returncode == 0 and answered == stored == sent == rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=40)
    parser.add_argument("--batch-size", type=int, default=10)
    args = parser.parse_args()
    ok = [one_flavour(flavour, args.rows, args.batch_size) for flavour in FLAVOURS]
    print("nothing paid twice" if all(ok) else "FAILED: see above")
    return 0 if all(ok) else 1


if __name__ == "__main__":
    sys.exit(main())

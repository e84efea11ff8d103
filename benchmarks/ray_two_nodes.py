"""Paid against recorded judge calls on a real two-node Ray cluster, under kills.

Starts a two-node Ray cluster on this machine with Ray's own command line (``ray start
--head`` and a second ``ray start --address``, one CPU each, in a temporary folder of
its own), the local OpenAI-compatible test server as the judge (with latency, so calls
are in flight), and runs ``ragjudge run`` as a child process over ``--rows`` rows with
one judge call each (``executor: ray``, two workers, the default batch size). Each
scenario uses a fresh store:

* ``no fault``: the run as it is;
* ``worker killed``: one worker actor's process is killed (SIGKILL) mid-run;
* ``driver killed``: the ``ragjudge run`` process is killed (SIGKILL) mid-run, then
  the run is resumed with ``--resume``;
* ``node without the project``: the second node cannot import the target module from
  the project folder (as a machine without it): the run stops at the node check (exit
  2 naming the node); with ``ray.runtime_env: {working_dir: .}`` the run completes;
* ``second node stopped``: every process of the second node is killed mid-run.

For each it prints the rows completed, duplicated results (0 expected), the requests
the test server answered for the rows (paid; the endpoint check before the run is not
counted), and the judge calls the store holds (not from the cache): sent, returned and
lost (in flight when their process died). Every paid request is in the store when
paid ≤ recorded (recorded is one more when a process died between storing a call and
sending it). Exit status 1 when a run leaves rows unscored, stores a
duplicate or pays for a call the store does not hold.

Both nodes share this machine's disk, so the second node would see the project folder;
it is started with ``BENCH_NODE_WITHOUT`` naming the folder, and the target module
refuses to be imported from there on that node (a copy shipped by ``working_dir`` is
imported). Only processes this script started are stopped (found among its own
descendants). On a machine shared with other Ray work, run one cluster at a time
(e.g. under ``flock LOCKFILE``)::

    .venv/bin/python benchmarks/ray_two_nodes.py [--rows N] [--latency SECONDS]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path

import ragjudge
from ragjudge.testing import FaultPlan, OpenAITestServer, ReplyScript

RAY = str(Path(sys.executable).with_name("ray"))
SOURCE = str(Path(ragjudge.__file__).resolve().parents[1])
QUIET_RAY = {"RAY_USAGE_STATS_ENABLED": "0", "RAY_AUTH_MODE": "disabled"}
NODE_WITHOUT = "BENCH_NODE_WITHOUT"

MODULE = f'''"""The target of the node check: refuses to be imported from the project folder on
the node started with {NODE_WITHOUT} naming it (a machine without the folder)."""
import os

if os.environ.get("{NODE_WITHOUT}") == os.path.dirname(os.path.abspath(__file__)):
    raise ModuleNotFoundError("No module named 'bench_app'", name="bench_app")


def answer(query: str) -> str:
    return "Answer " + query.split()[-1]
'''


# --- processes this script started -------------------------------------------------


def descendants(root: int) -> list[int]:
    """Process ids below ``root`` (read from /proc): only processes it started."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
                parent = int(stat.rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
            children.setdefault(parent, []).append(int(entry))
    found, todo = [], [root]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def command_line(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def kill_tree(root: int, sig: int = signal.SIGKILL) -> None:
    """Send ``sig`` to ``root`` and every process below it."""
    for pid in [root, *descendants(root)]:
        with suppress(ProcessLookupError):
            os.kill(pid, sig)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


# --- the cluster ---------------------------------------------------------------------


@dataclass
class Cluster:
    address: str
    head: subprocess.Popen[bytes]
    second: subprocess.Popen[bytes]


def ray_start(args: list[str], env: dict[str, str], log: Path) -> subprocess.Popen[bytes]:
    """``ray start ... --block`` as a child: every Ray process of the node is below it."""
    with log.open("wb") as out:
        return subprocess.Popen(
            [RAY, "start", "--block", "--num-cpus", "1", "--disable-usage-stats", *args],
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )


def wait_for_nodes(address: str, env: dict[str, str], count: int) -> None:
    """Wait (≤ 120 s) until ``ray status`` shows ``count`` live nodes."""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        status = subprocess.run(
            [RAY, "status", "--address", address], env=env, capture_output=True, text=True
        ).stdout
        if status.count(" node_") >= count:
            return
        time.sleep(2)
    raise RuntimeError(f"the cluster at {address} did not show {count} nodes in 120 s")


@contextmanager
def two_nodes(folder: Path, project: Path) -> Iterator[Cluster]:
    """A head and a second node (one CPU each), stopped (killed) on the way out."""
    port = free_port()
    env = dict(os.environ, PYTHONPATH=SOURCE, **QUIET_RAY)
    head = ray_start(
        [
            "--head",
            f"--port={port}",
            f"--temp-dir={folder / 'ray'}",
            "--include-dashboard=false",
            f"--dashboard-port={free_port()}",
        ],
        env,
        folder / "head.log",
    )
    second: subprocess.Popen[bytes] | None = None
    address = f"127.0.0.1:{port}"
    try:
        wait_for_nodes(address, env, 1)
        second = ray_start(
            [f"--address={address}", "--dashboard-agent-listen-port=0"],
            dict(env, **{NODE_WITHOUT: str(project)}),
            folder / "second.log",
        )
        wait_for_nodes(address, env, 2)
        yield Cluster(address, head, second)
    finally:
        for node in (second, head):
            if node is not None:
                kill_tree(node.pid, signal.SIGTERM)
        time.sleep(3)
        for node in (second, head):
            if node is not None:
                kill_tree(node.pid)
                node.wait()


# --- one scenario ----------------------------------------------------------------------


@dataclass
class Outcome:
    rows: int
    duplicates: int
    paid: int
    paid_twice: int
    sent: int
    returned: int
    lost: int
    exit_codes: list[int]

    def line(self, label: str, total: int) -> str:
        held = "=" if self.paid == self.sent else ("<" if self.paid < self.sent else ">")
        return (
            f"{label:<27} exit {','.join(map(str, self.exit_codes)):<5} rows {self.rows}/{total}"
            f"  duplicates {self.duplicates}  paid {self.paid} (twice: {self.paid_twice})"
            f"  recorded: sent {self.sent}, returned {self.returned}, lost {self.lost}"
            f"  paid {held} recorded"
        )

    def holds(self, total: int) -> bool:
        return self.rows == total and self.duplicates == 0 and self.paid <= self.sent


def write_project(project: Path, rows: int) -> None:
    project.mkdir()
    with (project / "data.jsonl").open("w") as data:
        for i in range(rows):
            row = {
                "request_id": f"r{i:05d}",
                "request": f"Question {i}?",
                "response": f"Answer {i}.",
                "expected_response": f"Answer {i}.",
            }
            data.write(json.dumps(row) + "\n")
    (project / "bench_app.py").write_text(MODULE)


def write_config(project: Path, name: str, address: str, extra: dict[str, object]) -> Path:
    config: dict[str, object] = {
        "name": name,
        "data": "data.jsonl",
        "target": "data",
        "judge": {"model": "openai/judge", "base_url": "${JUDGE_URL}"},
        "metrics": [{"metric": "answer_accuracy", "contexts": "none"}],
        "concurrency": 4,
        "executor": "ray",
        "ray": {"address": address, "workers": 2},
    }
    config.update(extra)
    config = {key: value for key, value in config.items() if value is not None}
    path = project / f"{name}.yaml"
    path.write_text(json.dumps(config))
    return path


def start_run(config: Path, store: Path, env: dict[str, str], *extra: str) -> subprocess.Popen[str]:
    command = [sys.executable, "-m", "ragjudge", "run", config.name, "--no-progress"]
    return subprocess.Popen(
        [*command, "--store", str(store), *extra],
        cwd=config.parent,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )


def row_requests(server: OpenAITestServer, since: int) -> Counter[str]:
    """Requests the server received since ``since`` for each row (its question)."""
    counts: Counter[str] = Counter()
    for body in list(server.requests_log)[since:]:
        text = json.dumps(body.get("messages", []))
        start = text.find("Question ")
        if start >= 0:
            counts[text[start : text.index("?", start)]] += 1
    return counts


def recorded(store: Path) -> tuple[int, int, int, int, int]:
    """Rows scored, duplicated results, and the judge calls not from the cache:
    sent, returned, lost."""
    db = sqlite3.connect(store)
    try:
        rows, results, distinct = db.execute(
            "SELECT COUNT(DISTINCT request_id), COUNT(*),"
            " COUNT(DISTINCT request_id || '/' || trial || '/' || metric) FROM scores"
        ).fetchone()
        sent, returned, lost = db.execute(
            "SELECT COUNT(*), SUM(error IS NULL),"
            " SUM(error LIKE 'lost:%' OR error LIKE 'in flight:%' OR error LIKE 'interrupted%')"
            " FROM judge_calls WHERE purpose = 'answer_accuracy' AND cached = 0"
        ).fetchone()
    finally:
        db.close()
    return rows, results - distinct, sent, returned or 0, lost or 0


def wait_for_paid(
    server: OpenAITestServer, since: int, run: subprocess.Popen[str], count: int
) -> None:
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline and run.poll() is None:
        if sum(row_requests(server, since).values()) >= count:
            return
        time.sleep(0.2)


def finish(run: subprocess.Popen[str], label: str) -> int:
    try:
        _, errors = run.communicate(timeout=900)
    except subprocess.TimeoutExpired:
        kill_tree(run.pid)
        run.wait()
        print(f"{label}: no end within 900 s (a hang); killed")
        return -1
    if run.returncode not in (0, 1):
        print(f"{label}: exit {run.returncode}: {errors.strip()[-600:]}")
    return run.returncode


def outcome(server: OpenAITestServer, since: int, store: Path, codes: list[int]) -> Outcome:
    paid = row_requests(server, since)
    rows, duplicates, sent, returned, lost = recorded(store)
    twice = sum(n - 1 for n in paid.values())
    return Outcome(rows, duplicates, sum(paid.values()), twice, sent, returned, lost, codes)


def run_id_of(store: Path) -> str:
    db = sqlite3.connect(store)
    try:
        run_id: str = db.execute("SELECT run_id FROM runs").fetchone()[0]
    finally:
        db.close()
    return run_id


Fault = Callable[[subprocess.Popen[str]], None]


def scenario(
    server: OpenAITestServer,
    config: Path,
    store: Path,
    env: dict[str, str],
    fault: Fault | None,
    at: int,
) -> Outcome:
    """One run in a fresh store; ``fault`` is applied once ``at`` rows were paid."""
    since = len(server.requests_log)
    run = start_run(config, store, env)
    codes = []
    if fault is not None:
        wait_for_paid(server, since, run, at)
        fault(run)
    codes.append(finish(run, store.parent.name))
    return outcome(server, since, store, codes)


# --- the scenarios ---------------------------------------------------------------------


def kill_a_worker(run: subprocess.Popen[str]) -> None:
    workers = [
        p for p in descendants(os.getpid()) if command_line(p).startswith("ray::SampleWorker")
    ]
    if not workers:
        print("worker killed: no worker process found")
        return
    os.kill(workers[0], signal.SIGKILL)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=400)
    parser.add_argument("--latency", type=float, default=0.8, help="seconds per judge reply")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="rj2n-"))
    project = folder / "project"
    write_project(project, args.rows)
    server = OpenAITestServer(
        replies=ReplyScript(default="Feedback: fine. [RESULT] 3"),
        faults=FaultPlan(latency=(args.latency * 0.5, args.latency * 1.5)),
    )
    results: list[bool] = []
    try:
        with server, two_nodes(folder, project) as cluster:
            env = dict(
                os.environ,
                PYTHONPATH=SOURCE,
                JUDGE_URL=server.base_url,
                OPENAI_API_KEY="sk-test",
                **QUIET_RAY,
            )
            print(
                f"{args.rows} rows, one judge call each; 2 nodes × 1 CPU, 2 workers, default batch size"
            )
            results += run_scenarios(server, cluster, project, env, args.rows)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return 0 if all(results) else 1


def store_in(project: Path, name: str) -> Path:
    (project / name).mkdir()
    return project / name / "runs.db"


def run_scenarios(
    server: OpenAITestServer, cluster: Cluster, project: Path, env: dict[str, str], rows: int
) -> list[bool]:
    config = write_config(project, "judged", cluster.address, {})
    third = rows // 3
    checks = []
    since = [time.monotonic()]

    def report(label: str, result: Outcome) -> None:
        seconds = time.monotonic() - since[0]
        print(f"{result.line(label, rows)}  ({seconds:.0f} s)", flush=True)
        checks.append(result.holds(rows))
        since[0] = time.monotonic()

    report("no fault", scenario(server, config, store_in(project, "a"), env, None, 0))
    report(
        "worker killed", scenario(server, config, store_in(project, "b"), env, kill_a_worker, third)
    )
    report(
        "driver killed, resumed", driver_killed(server, config, store_in(project, "c"), env, third)
    )
    checks.append(node_check(cluster, project, env, rows))
    since[0] = time.monotonic()
    report(
        "second node stopped",
        scenario(
            server,
            config,
            store_in(project, "d"),
            env,
            lambda _: kill_tree(cluster.second.pid),
            third,
        ),
    )
    return checks


def driver_killed(
    server: OpenAITestServer, config: Path, store: Path, env: dict[str, str], at: int
) -> Outcome:
    since = len(server.requests_log)
    run = start_run(config, store, env)
    wait_for_paid(server, since, run, at)
    kill_tree(run.pid)
    first = run.wait()
    time.sleep(3)
    resumed = start_run(config, store, env, "--resume", run_id_of(store))
    return outcome(server, since, store, [first, finish(resumed, "resume")])


def node_check(cluster: Cluster, project: Path, env: dict[str, str], rows: int) -> bool:
    """The target only in the project folder: the node check stops the run (exit 2,
    naming the second node); shipped with ``working_dir`` the run completes."""
    lexical: dict[str, object] = {
        "target": "bench_app:answer",
        "metrics": ["token_f1"],
        "judge": None,
    }
    bare = write_config(project, "bare", cluster.address, lexical)
    run = start_run(bare, store_in(project, "e1"), env)
    _, errors = run.communicate(timeout=600)
    named = [
        line.strip()
        for line in errors.splitlines()
        if "bench_app" in line or "node" in line.lower()
    ]
    print(f"node without the project    exit {run.returncode}: {' | '.join(named)[:400]}")
    stopped = run.returncode == 2 and any("Ray node" in line for line in named)
    shipped = write_config(
        project,
        "shipped",
        cluster.address,
        {
            **lexical,
            "ray": {
                "address": cluster.address,
                "workers": 2,
                "runtime_env": {"working_dir": ".", "excludes": ["*.db*", "*.jsonl"]},
            },
        },
    )
    store = store_in(project, "e2")
    run = start_run(shipped, store, env)
    code = finish(run, "shipped")
    scored = recorded(store)[0]
    print(f"  with runtime_env working_dir: exit {code}, rows {scored}/{rows}", flush=True)
    return stopped and run.returncode == 0 and scored == rows


if __name__ == "__main__":
    sys.exit(main())

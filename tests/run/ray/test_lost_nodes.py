"""The Ray executor on a two-node cluster (``ray.cluster_utils.Cluster``, one at a
time): workers sized in whole CPUs start on nodes whose CPUs a fraction would not fill,
and a node stopped mid-run slows the run instead of hanging it."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from ray_cluster import ray_or_skip

import ragjudge as rj
from served import counts, write_project

ray_or_skip()
from ray.cluster_utils import Cluster  # noqa: E402

from ragjudge.testing import FaultPlan, OpenAITestServer, ReplyScript  # noqa: E402

ROWS = [
    {"request_id": f"r{i:03d}", "request": f"Question {i}?", "response": f"Answer {i}.",
     "expected_response": f"Answer {i}."}
    for i in range(60)
]  # fmt: skip


@pytest.fixture
def two_nodes(request: pytest.FixtureRequest) -> Iterator[tuple[Cluster, object]]:
    """A head node and a second node with the CPUs the test gives (head, second)."""
    head, second = request.param
    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": head})
    try:
        node = cluster.add_node(num_cpus=second)
        cluster.wait_for_nodes()
        yield cluster, node
    finally:
        cluster.shutdown()


@pytest.mark.parametrize("two_nodes", [(2, 1)], indirect=True)
def test_more_workers_than_whole_cpus_start_as_many_as_fit_with_a_note(
    two_nodes: tuple[Cluster, object], tmp_path: Path
) -> None:
    cluster, _ = two_nodes
    result = rj.evaluate(
        ROWS[:20], metrics=["token_f1", "exact_match"], executor="ray",
        ray={"address": cluster.address, "workers": 4, "batch_size": 3},
        store=tmp_path / "runs.db", progress=False,
    )  # type: ignore[arg-type]  # fmt: skip
    assert result.status == "completed"
    assert counts(tmp_path / "runs.db") == (20, 40, 40)
    (note,) = [n for n in result.notes if "ray.workers" in n]
    assert "asks for 4 workers" in note and "3 whole CPUs: 3 workers started" in note


def stored_scores(store: Path) -> int:
    try:
        with sqlite3.connect(store, timeout=1) as conn:
            found: int = conn.execute("SELECT COUNT(*) FROM scores").fetchone()[0]
            return found
    except sqlite3.Error:
        return 0


@pytest.mark.parametrize("two_nodes", [(2, 2)], indirect=True)
def test_a_node_stopped_mid_run_hands_its_batches_to_the_live_workers(
    two_nodes: tuple[Cluster, object], tmp_path: Path
) -> None:
    cluster, second = two_nodes
    config = write_project(
        tmp_path,
        ROWS,
        "target: data\ndata: set.jsonl\n"
        "judge: {model: openai/judge, base_url: '${JUDGE_URL}'}\n"
        "metrics: [{metric: answer_accuracy, contexts: none}]\n"
        "concurrency: 2\nexecutor: ray\nray: {workers: 4, batch_size: 5}\n",
    )
    store = tmp_path / "runs.db"
    replies = ReplyScript(default="Feedback: fine. [RESULT] 3")
    with OpenAITestServer(replies=replies, faults=FaultPlan(latency=(0.5, 0.5))) as server:
        env = dict(os.environ, JUDGE_URL=server.base_url, OPENAI_API_KEY="sk-test",
                   RAY_ADDRESS=cluster.address)  # fmt: skip
        command = [sys.executable, "-m", "ragjudge", "run", str(config), "--no-progress",
                   "--store", str(store)]  # fmt: skip
        with (tmp_path / "run.out").open("w") as out:
            run = subprocess.Popen(command, cwd=tmp_path, env=env, stdout=out, stderr=out)
        try:
            while run.poll() is None and server.stats.requests < 8:
                time.sleep(0.1)
            assert run.poll() is None, (tmp_path / "run.out").read_text()
            cluster.remove_node(second, allow_graceful=True)  # as a node is shut down
            code = run.wait(timeout=300)  # a hang guard, far beyond the run's own time
        finally:
            if run.poll() is None:
                run.kill()
                run.wait()
    assert code == 0, (tmp_path / "run.out").read_text()[-2000:]
    assert counts(store) == (60, 60, 60)  # every score, none twice

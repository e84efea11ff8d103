"""A two-node Ray cluster whose second node lacks the target module (its disk does not
hold the project folder) and whose nodes lack the judge key the driver has: the run
stops before it is stored, exit 2, naming the node and what it lacks; with
``ray.runtime_env`` (the folder and the key by name) the same run completes, and the
stored config keeps the variable's name, never its value."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from ray_cluster import ray_or_skip

from ragjudge.testing import OpenAITestServer, ReplyScript

ray_or_skip()
from ray.cluster_utils import Cluster  # noqa: E402

KEY_NAME = "NODE_TEST_JUDGE_KEY"
KEY_VALUE = "sk-node-test-4f9c2b7e1d"

APP = """
import os
from pathlib import Path

# On a node started with NODE_WITHOUT_APP naming the project folder, this file refuses to
# be imported from that folder, as on a machine whose disk does not hold it.
if os.environ.get("NODE_WITHOUT_APP") == str(Path(__file__).resolve().parent):
    raise ModuleNotFoundError("No module named 'my_app'", name="my_app")


def answer(query):
    return query.replace("what is", "").strip() + " is a thing"
"""

BASE = """
name: node-check
data: data.jsonl
target: my_app:answer
executor: ray
"""


@dataclass
class TwoNodes:
    address: str
    head_id: str
    bare_id: str
    project: Path


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TwoNodes]:
    project = tmp_path_factory.mktemp("project").resolve()
    (project / "my_app.py").write_text(APP)
    with (project / "data.jsonl").open("w") as data:
        for i in range(12):
            row = {"request_id": f"r{i:02d}", "request": f"what is {i}",
                   "expected_response": f"{i} is a thing"}  # fmt: skip
            data.write(json.dumps(row) + "\n")
    nodes = Cluster(initialize_head=True, head_node_args={"num_cpus": 1})
    try:
        bare = nodes.add_node(num_cpus=1, env_vars={"NODE_WITHOUT_APP": str(project)})
        nodes.wait_for_nodes()
        yield TwoNodes(nodes.address, nodes.head_node.node_id, bare.node_id, project)
    finally:
        nodes.shutdown()


def run_cli(
    cluster: TwoNodes, config: str, store: Path, url: str
) -> subprocess.CompletedProcess[str]:
    (cluster.project / "eval.yaml").write_text(BASE + config)
    env = {k: v for k, v in os.environ.items() if k != KEY_NAME}
    env.update(RAY_ADDRESS=cluster.address, JUDGE_URL=url, COLUMNS="250", **{KEY_NAME: KEY_VALUE})
    cmd = [
        sys.executable,
        "-m",
        "ragjudge",
        "run",
        "eval.yaml",
        "--no-progress",
        "--store",
        str(store),
    ]
    return subprocess.run(
        cmd, cwd=cluster.project, env=env, capture_output=True, text=True, timeout=600
    )


def stored_runs(store: Path) -> list[tuple[str, str]]:
    if not store.exists():
        return []
    with sqlite3.connect(store) as db:
        return db.execute("SELECT status, config_json FROM runs").fetchall()


@pytest.fixture(scope="module")
def server() -> Iterator[OpenAITestServer]:
    with OpenAITestServer(replies=ReplyScript(default="Feedback: fine. [RESULT] 3")) as s:
        yield s


def test_a_node_without_the_target_module_is_named_before_the_run(
    cluster: TwoNodes, server: OpenAITestServer, tmp_path: Path
) -> None:
    done = run_cli(
        cluster,
        "metrics: [token_f1]\nray: {workers: 2, batch_size: 4}\n",
        tmp_path / "r.db",
        server.base_url,
    )
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    assert f"node id {cluster.bare_id[:12]}" in done.stderr
    assert f"node id {cluster.head_id[:12]}" not in done.stderr  # the head node has the module
    assert "cannot import 'my_app'" in done.stderr and "ray.runtime_env" in done.stderr
    assert stored_runs(tmp_path / "r.db") == []


JUDGED = (
    "metrics: [{metric: answer_accuracy, contexts: none}]\n"
    'judge: {model: openai/judge, base_url: "${JUDGE_URL}", api_key_env: ' + KEY_NAME + "}\n"
)


def test_nodes_without_the_judge_key_are_named_before_the_run(
    cluster: TwoNodes, server: OpenAITestServer, tmp_path: Path
) -> None:
    os.environ.pop(KEY_NAME, None)  # the nodes were started without it; only the driver has it
    before = len(server.requests_log)
    config = JUDGED + "ray: {workers: 2, batch_size: 4, runtime_env: {working_dir: .}}\n"
    done = run_cli(cluster, config, tmp_path / "r.db", server.base_url)
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    for node in (cluster.head_id, cluster.bare_id):
        assert f"node id {node[:12]}" in done.stderr
    assert f"the judge key {KEY_NAME} (judge.api_key_env) is not set" in done.stderr
    assert "cannot import" not in done.stderr  # the shipped folder holds the module
    assert stored_runs(tmp_path / "r.db") == []
    assert len(server.requests_log) == before  # nothing paid


def test_with_runtime_env_the_run_completes_and_stores_the_key_by_name(
    cluster: TwoNodes, server: OpenAITestServer, tmp_path: Path
) -> None:
    env = "runtime_env: {working_dir: ., excludes: ['*.db'], env_vars: [" + KEY_NAME + "]}"
    done = run_cli(
        cluster,
        JUDGED + "ray: {workers: 2, batch_size: 3, " + env + "}\n",
        tmp_path / "r.db",
        server.base_url,
    )
    assert done.returncode == 0, done.stderr
    ((status, record),) = stored_runs(tmp_path / "r.db")
    assert status == "completed"
    assert json.loads(record)["ray"]["runtime_env"]["env_vars"] == [KEY_NAME]
    assert KEY_VALUE.encode() not in (tmp_path / "r.db").read_bytes()
    assert KEY_VALUE not in done.stdout + done.stderr
    with sqlite3.connect(tmp_path / "r.db") as db:
        scores = db.execute("SELECT count(*) FROM scores WHERE value IS NOT NULL").fetchone()[0]
    assert scores == 12

"""The Ray executor against a local run: the same stored values, the store written by
the driver alone (judge-call ids, cache), and no loss nor duplicate when a worker or
the driver is killed mid-run."""

from __future__ import annotations

import json
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
from ragjudge.config import EvalConfig, load_config
from ragjudge.config._ray import RayConfig
from ragjudge.models.scripted import ReplyScript, ScriptedProvider
from ragjudge.run._runner import run_evaluation
from ragjudge.store._store import Store
from ragjudge.testing.server import FaultPlan, OpenAITestServer
from served import counts, running, write_project

ray = ray_or_skip()
from ragjudge.config._ray import ClusterError  # noqa: E402
from ragjudge.run.ray._driver import RAY_EXECUTION  # noqa: E402 (needs ray)

QUICKSTART = Path(__file__).parents[3] / "examples" / "quickstart" / "eval.yaml"


@pytest.fixture(scope="module")
def cluster() -> Iterator[str]:
    yield from local_cluster()


def stored(store: Path, run_id: str) -> list[tuple[str, int, str, float | None, str | None]]:
    with Store(store) as s:
        return sorted((rid, t, sc.metric, sc.value, sc.error) for rid, t, sc in s.scores(run_id))


def quickstart_config(tmp_path: Path, **update: object) -> EvalConfig:
    config = load_config(QUICKSTART)
    return config.model_copy(
        update={"store": str(tmp_path / "runs.db"), "report": None, "by": None, **update}
    )


async def test_lexical_metrics_store_the_same_values_on_ray_as_locally(
    cluster: str, tmp_path: Path
) -> None:
    local = await run_evaluation(quickstart_config(tmp_path), progress=False)
    on_ray = await run_evaluation(
        quickstart_config(tmp_path, executor="ray", ray=RayConfig(batch_size=5)), progress=False
    )
    expected = stored(tmp_path / "runs.db", local.run_id)
    assert len(expected) == 31 * 7
    assert stored(tmp_path / "runs.db", on_ray.run_id) == expected
    assert on_ray.status == "completed"
    with Store(tmp_path / "runs.db") as s:
        (event,) = s.run_events(on_ray.run_id, RAY_EXECUTION)
    assert event["workers"] == 2 and event["batches"] == 7  # 31 samples in batches of 5
    assert event["driver_peak_rss_mb"] > 0 and event["worker_peak_rss_mb"] > 0


ROWS = [
    {"request_id": f"q{i:03d}", "request": f"question {i}", "response": f"answer {i}",
     "expected_response": f"reference {i}"}
    for i in range(60)
]  # fmt: skip
SCRIPT = ReplyScript(
    rules=[(r"answer \d*[02468]\b", "Feedback: right. [RESULT] 5")],
    default="Feedback: partly. [RESULT] 2",
)
JUDGED = [{"metric": "answer_accuracy", "contexts": "none"}]


def judge_call_ids(store: Path, run_id: str) -> tuple[set[int], set[int]]:
    """The call ids the run's scores name, and the ids of its stored judge calls."""
    with Store(store) as s:
        named = {i for _, _, sc in s.scores(run_id) for i in sc.judge_call_ids}
    with sqlite3.connect(store) as conn:
        rows = conn.execute("SELECT call_id FROM judge_calls WHERE run_id = ?", (run_id,))
        return named, {r[0] for r in rows}


def test_judged_metrics_store_the_same_values_and_every_call_on_ray(
    cluster: str, tmp_path: Path
) -> None:
    store = tmp_path / "runs.db"
    common = {"data": ROWS, "metrics": JUDGED, "store": store, "progress": False}
    local = rj.evaluate(judge=ScriptedProvider(SCRIPT), **common)  # type: ignore[arg-type]
    on_ray = rj.evaluate(
        judge=ScriptedProvider(SCRIPT),
        executor="ray",
        ray={"batch_size": 7, "workers": 2},
        **common,  # type: ignore[arg-type]
    )
    values = stored(store, on_ray.run_id)
    assert values == stored(store, local.run_id)
    assert {v for *_, v, _ in values} == {5.0, 2.0}
    named, recorded = judge_call_ids(store, on_ray.run_id)
    assert len(named) == 60 and named == recorded  # the workers' ids became the store's


@pytest.fixture
def server() -> Iterator[OpenAITestServer]:
    yield from running(OpenAITestServer(replies=SCRIPT, faults=FaultPlan(latency=(0.01, 0.02))))


def test_workers_reuse_the_runs_cache_and_the_driver_fills_it(
    cluster: str, tmp_path: Path, server: OpenAITestServer
) -> None:
    judge = {"model": "openai/judge-x", "base_url": server.base_url, "preflight": False}
    common = {"data": ROWS, "metrics": JUDGED, "store": tmp_path / "runs.db", "judge": judge}
    first = rj.evaluate(executor="ray", progress=False, **common)  # type: ignore[arg-type]
    assert server.stats.requests == 60
    second = rj.evaluate(executor="ray", progress=False, **common)  # type: ignore[arg-type]
    assert server.stats.requests == 60  # every reply came from the cache file
    assert stored(tmp_path / "runs.db", second.run_id) == stored(tmp_path / "runs.db", first.run_id)


def test_the_workers_retries_reach_the_runs_rate_limit_line(cluster: str, tmp_path: Path) -> None:
    faults = FaultPlan(latency=(0.01, 0.02), error_500_rate=0.2)
    with OpenAITestServer(replies=SCRIPT, faults=faults) as server:
        judge = {
            "model": "openai/judge-x",
            "base_url": server.base_url,
            "preflight": False,
            "backoff_base": 0.01,
            "max_retries": 8,
        }
        result = rj.evaluate(
            ROWS, metrics=JUDGED, store=tmp_path / "runs.db", judge=judge,
            executor="ray", progress=False,
        )  # type: ignore[arg-type]  # fmt: skip
        refused = server.stats.status_counts.get(500, 0)
    assert refused > 0 and server.stats.completions == 60
    assert sum(events.retries for events in result.rate_limits) == refused


def test_workers_on_an_endpoint_that_refuses_schemas_fall_back_and_the_run_says_so(
    cluster: str, tmp_path: Path
) -> None:
    verdict = ReplyScript(default='{"explanation": "fine", "rating": 4}')
    with OpenAITestServer(replies=verdict, refuse_schemas=True) as server:
        judge = {"model": "openai/judge-x", "base_url": server.base_url, "preflight": False}
        result = rj.evaluate(
            ROWS[:20], metrics=["likert"], store=tmp_path / "runs.db", judge=judge,
            executor="ray", progress=False,
        )  # type: ignore[arg-type]  # fmt: skip
        refused = server.stats.schema_refusals
        later = rj.evaluate(
            ROWS[20:40], metrics=["likert"], store=tmp_path / "runs.db", judge=judge,
            executor="ray", progress=False,
        )  # type: ignore[arg-type]  # fmt: skip
    assert refused >= 1 and server.stats.completions == 40
    assert {v for *_, v, _ in stored(tmp_path / "runs.db", result.run_id)} == {4.0}
    assert len([note for note in result.notes if "refused reply schemas" in note]) == 1
    # the workers of the later run read the refusal the cache kept: no schema sent
    assert server.stats.schema_refusals == refused
    assert len([note for note in later.notes if "in an earlier run" in note]) == 1


def killer_project(tmp_path: Path, retries: int) -> Path:
    write_killer(tmp_path, 13)
    return write_project(
        tmp_path,
        ROWS,
        "data: set.jsonl\ntarget: killer:answer\nmetrics: [rouge_l, token_f1]\n"
        f"executor: ray\nray: {{batch_size: 6, workers: 2, max_retries: {retries}}}\n",
    )


async def test_a_killed_worker_is_replaced_and_its_batch_done_again(
    cluster: str, tmp_path: Path
) -> None:
    config = killer_project(tmp_path, retries=2)
    result = await run_evaluation(load_config(config), progress=False)
    assert (tmp_path / "killed").exists()  # a worker did die
    assert result.status == "completed"
    assert counts(tmp_path / ".ragjudge" / "runs.db") == (60, 120, 120)


async def test_a_run_whose_worker_died_beyond_retries_resumes_without_loss(
    cluster: str, tmp_path: Path
) -> None:
    config = killer_project(tmp_path, retries=0)
    with pytest.raises(ClusterError, match="beyond 0 retries"):
        await run_evaluation(load_config(config), progress=False)
    store = tmp_path / ".ragjudge" / "runs.db"
    with Store(store) as s:
        (run,) = s.runs()
    assert run.status == "failed" and counts(store)[0] < 60
    resumed = await run_evaluation(load_config(config), resume=run.run_id, progress=False)
    assert resumed.status == "completed"
    assert counts(store) == (60, 120, 120)


def test_the_cli_says_a_lost_batch_and_the_resume_command_without_a_traceback(
    cluster: str, tmp_path: Path
) -> None:
    from typer.testing import CliRunner

    from ragjudge.cli import app

    config = killer_project(tmp_path, retries=0)
    store = tmp_path / ".ragjudge" / "runs.db"
    result = CliRunner().invoke(app, ["run", str(config), "--store", str(store), "--no-progress"])

    assert result.exit_code == 1
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert "Traceback" not in result.output
    assert "beyond 0 retries" in result.output and "Resume with:" in result.output
    assert "--resume" in result.output and str(store) in result.output


def slow_app(hold: Path) -> str:
    """A target that answers questions from 30 on only once ``hold`` is gone: a run
    cannot get past 120 of the 240 rows while the test holds it."""
    return f"""
import time
from pathlib import Path

def answer(query):
    number = int(query.split()[-1])
    while number >= 30 and Path({str(hold)!r}).exists():
        time.sleep(0.01)
    time.sleep(0.05)
    return "answer " + str(number)
"""


def test_kill_9_of_the_driver_then_resume_completes_without_loss_or_duplicate(
    cluster: str, tmp_path: Path
) -> None:
    hold = tmp_path / "hold"
    hold.touch()
    (tmp_path / "slow.py").write_text(slow_app(hold))
    rows = [{**r, "request_id": f"{r['request_id']}-{k}"} for k in range(4) for r in ROWS]
    (tmp_path / "set.jsonl").write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    config = tmp_path / "eval.yaml"
    config.write_text(
        "data: set.jsonl\ntarget: slow:answer\nmetrics: [rouge_l]\nconcurrency: 2\n"
        "executor: ray\nray: {batch_size: 4, workers: 2}\n"
    )
    store = tmp_path / ".ragjudge" / "runs.db"
    command = [sys.executable, "-m", "ragjudge", "run", str(config), "--no-progress"]
    source = str(Path(rj.__file__).parents[1])  # the subprocess runs this ragjudge
    path = os.pathsep.join([source, os.environ.get("PYTHONPATH", "")])
    env = {**os.environ, "RAY_ADDRESS": cluster, "PYTHONPATH": path}
    process = subprocess.Popen(command, cwd=tmp_path, env=env, stderr=subprocess.PIPE)
    for _ in range(2400):  # at most about two minutes: a safety net, not a measure
        if counts_or_zero(store) >= 20:
            break
        time.sleep(0.05)
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=30)
    hold.unlink()
    assert 20 <= counts_or_zero(store) <= 120, "the driver was not killed where it was held"
    with Store(store) as s:
        (run,) = s.runs()
    resumed = subprocess.run(
        [*command, "--resume", run.run_id], cwd=tmp_path, env=env, capture_output=True, timeout=180
    )
    assert resumed.returncode == 0, resumed.stderr
    assert counts(store) == (240, 240, 240)


def counts_or_zero(store: Path) -> int:
    try:
        return counts(store)[1]
    except sqlite3.OperationalError:
        return 0

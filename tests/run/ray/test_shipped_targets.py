"""The Ray executor on one local cluster: Python function targets shipped to the
workers (pickled by value), a target that cannot be shipped refused before any work,
and workers that cannot start stopping the run within ``ray.start_timeout``."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from ray_cluster import local_cluster, ray_or_skip

import ragjudge as rj
from ragjudge.config import load_config
from ragjudge.errors import TargetSetupError
from ragjudge.run._runner import run_evaluation
from ragjudge.store._store import Store
from served import counts, write_project

ray = ray_or_skip()
from ragjudge.config._ray import ClusterError  # noqa: E402
from ragjudge.run.ray._driver import RAY_EXECUTION  # noqa: E402 (needs ray)

ROWS = [
    {"request_id": f"q{i:02d}", "request": f"question {i}", "expected_response": f"answer {i}"}
    for i in range(12)
]


@pytest.fixture(scope="module")
def cluster() -> Iterator[str]:
    yield from local_cluster()


def stored_values(store: Path, run_id: str) -> dict[str, float | None]:
    with Store(store) as s:
        return {rid: score.value for rid, _, score in s.scores(run_id)}


def test_a_sync_function_target_is_shipped_to_the_workers(cluster: str, tmp_path: Path) -> None:
    def answer(query: str) -> str:  # nested: cloudpickle ships it by value
        return "answer " + query.split()[-1]

    result = rj.evaluate(
        ROWS, target=answer, metrics=["exact_match"], executor="ray",
        ray={"workers": 2, "batch_size": 4}, store=tmp_path / "runs.db", progress=False,
    )  # type: ignore[arg-type]  # fmt: skip
    assert result.status == "completed"
    assert stored_values(tmp_path / "runs.db", result.run_id) == {
        r["request_id"]: 1.0 for r in ROWS
    }


def test_an_async_function_target_is_shipped_to_the_workers(cluster: str, tmp_path: Path) -> None:
    async def answer(query: str) -> str:
        return "answer " + query.split()[-1] if query.endswith("1") else "no"

    result = rj.evaluate(
        ROWS, target=answer, metrics=["exact_match"], executor="ray",
        ray={"workers": 1, "batch_size": 5}, store=tmp_path / "runs.db", progress=False,
    )  # type: ignore[arg-type]  # fmt: skip
    values = stored_values(tmp_path / "runs.db", result.run_id)
    assert values == {
        r["request_id"]: 1.0 if r["request_id"] in ("q01", "q11") else 0.0 for r in ROWS
    }


def test_a_target_that_does_not_pickle_is_refused_by_name_before_any_work(
    cluster: str, tmp_path: Path
) -> None:
    lock = threading.Lock()
    asked: list[str] = []

    def guarded_answer(query: str) -> str:
        with lock:
            asked.append(query)
        return query

    with pytest.raises(TargetSetupError, match=r"target .*guarded_answer.* does not pickle"):
        rj.evaluate(
            ROWS, target=guarded_answer, metrics=["exact_match"], executor="ray",
            store=tmp_path / "runs.db", progress=False,
        )  # type: ignore[arg-type]  # fmt: skip
    assert asked == []


def test_workers_that_cannot_start_stop_the_run_in_time_and_it_resumes(
    cluster: str, tmp_path: Path
) -> None:
    # one of the cluster's two CPUs held elsewhere: the second worker cannot start
    held = ray.util.placement_group([{"CPU": 1}])
    ray.get(held.ready())
    rows = [{**r, "response": f"answer {i}"} for i, r in enumerate(ROWS)]
    config = write_project(
        tmp_path,
        rows,
        "data: set.jsonl\ntarget: data\nmetrics: [token_f1]\n"
        "executor: ray\nray: {batch_size: 4, start_timeout: 20}\n",
    )
    store = tmp_path / ".ragjudge" / "runs.db"
    try:
        with pytest.raises(ClusterError, match=r"1 of 2 Ray workers started within 20 s"):
            await_run(config)
    finally:
        ray.util.remove_placement_group(held)
    with Store(store) as s:
        (run,) = s.runs()
    assert run.status == "failed"
    resumed = await_run(config, resume=run.run_id)
    assert resumed.status == "completed" and counts(store) == (12, 12, 12)
    with Store(store) as s:
        assert [e["workers"] for e in s.run_events(run.run_id, RAY_EXECUTION)] == [2, 2]


def await_run(config: Path, resume: str | None = None) -> rj.EvaluationResult:
    import asyncio

    return asyncio.run(run_evaluation(load_config(config), resume=resume, progress=False))

"""CPU-only samples scored in forked worker processes store exactly what one process
stores: the same rows, values, details and errors, in the same order."""

from __future__ import annotations

import asyncio
import json
import os
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from test_execution import LEXICAL, benchmark_rows, one_by_one, stored_rows

from ragjudge._util.parallel import fork_is_safe
from ragjudge.config import EvalConfig
from ragjudge.metrics import MetricContext, Result
from ragjudge.metrics.lexical.token_f1 import TokenF1
from ragjudge.run import _processes as scoring_processes
from ragjudge.run._processes import worker_count
from ragjudge.run._runner import run_evaluation
from ragjudge.schema import Output, Sample
from ragjudge.targets._targets import output_of_row


@pytest.fixture
def small_blocks(monkeypatch: pytest.MonkeyPatch) -> None:
    """Workers for runs of a few hundred samples, in blocks of 40."""
    monkeypatch.setattr(scoring_processes, "MIN_SAMPLES", 50)
    monkeypatch.setattr(scoring_processes, "BLOCK_SAMPLES", 40)


@pytest.fixture
def forking(small_blocks: None, monkeypatch: pytest.MonkeyPatch) -> None:
    """Workers even when an earlier test left a thread behind in this process (the
    workers here only compute)."""
    monkeypatch.setattr(scoring_processes, "fork_is_safe", lambda: True)


def evaluate(tmp_path: Path, name: str, processes: int, **given: Any) -> Path:
    store = tmp_path / f"{name}.db"
    config = EvalConfig(
        metrics=given.pop("names", LEXICAL),
        store=str(store),
        trials=given.pop("trials", 1),
        processes=processes,
    )
    asyncio.run(run_evaluation(config, progress=False, **given))
    return store


@pytest.mark.usefixtures("forking")
def test_workers_store_what_one_process_stores(tmp_path: Path) -> None:
    rows = benchmark_rows(300)
    here = stored_rows(evaluate(tmp_path, "one", 1, data=rows, trials=2))
    workers = stored_rows(evaluate(tmp_path, "two", 2, data=rows, trials=2))
    samples = [Sample.model_validate(row) for row in rows]
    outputs = {s.request_id: output_of_row(s) for s in samples}
    expected = asyncio.run(one_by_one(samples, outputs, LEXICAL, trials=2))
    assert len(workers) == 300 * 2 * len(LEXICAL)
    assert workers == here == expected
    assert any(r[4] for r in workers)  # the row with nothing to compare is an error


class WhoScores(TokenF1):
    """Token F1 that notes the process it ran in (inline: compute and compute_now
    declared together)."""

    async def compute(self, sample: Sample, output: Output, ctx: MetricContext) -> Result:
        return self.compute_now(sample, output, ctx)

    def compute_now(self, sample: Sample, output: Output, ctx: MetricContext) -> Result:
        scored = super().compute_now(sample, output, ctx)
        return Result(scored.value, details={"pid": os.getpid()})


class Broken(TokenF1):
    async def compute(self, sample: Sample, output: Output, ctx: MetricContext) -> Any:
        return self.compute_now(sample, output, ctx)

    def compute_now(self, sample: Sample, output: Output, ctx: MetricContext) -> Any:
        raise ZeroDivisionError("broken on purpose")


@pytest.mark.usefixtures("forking")
def test_the_samples_are_scored_in_other_processes(tmp_path: Path) -> None:
    store = evaluate(tmp_path, "pids", 2, data=benchmark_rows(200), metrics=[WhoScores(name="w")])
    pids = {row[6]["pid"] for row in stored_rows(store) if row[4] is None}
    assert os.getpid() not in pids
    assert 1 <= len(pids) <= 2


@pytest.mark.usefixtures("forking")
def test_a_metric_raising_in_a_worker_gives_error_scores(tmp_path: Path) -> None:
    store = evaluate(tmp_path, "broken", 2, data=benchmark_rows(100), metrics=[Broken(name="b")])
    assert [(r[3], r[4]) for r in stored_rows(store)] == [
        (None, "ZeroDivisionError: broken on purpose")
    ] * 100


@pytest.mark.usefixtures("forking")
def test_a_resumed_run_scores_what_is_missing_in_workers(tmp_path: Path) -> None:
    store = tmp_path / "resumed.db"
    config = EvalConfig(metrics=LEXICAL, store=str(store), processes=2)
    run_id = asyncio.run(run_evaluation(config, data=benchmark_rows(200), progress=False)).run_id
    complete = stored_rows(store)
    with sqlite3.connect(store) as conn:  # as if the run had been killed two thirds in
        conn.execute("DELETE FROM scores WHERE rowid % 3 = 0 OR metric = 'rouge_l'")
    asyncio.run(run_evaluation(config, resume=run_id, progress=False))
    assert sorted(stored_rows(store)) == sorted(complete)


PROGRESS_RUN = """
import asyncio, json, os, sys
sys.path[:0] = sys.argv[1].split(os.pathsep)
from ragjudge.run import _processes as scoring_processes
from ragjudge.config import EvalConfig
from ragjudge.run._runner import run_evaluation
from test_scoring_processes import WhoScores, benchmark_rows

scoring_processes.MIN_SAMPLES, scoring_processes.BLOCK_SAMPLES = 50, 40
config = EvalConfig(metrics=["w"], store=sys.argv[2], processes=2)
rows = benchmark_rows(200)
result = asyncio.run(
    run_evaluation(config, data=rows, metrics=[WhoScores(name="w")], progress=True)
)
print(json.dumps({"pid": os.getpid(), "run": result.run_id}))
"""


def test_workers_fork_before_the_progress_display_starts_its_thread(tmp_path: Path) -> None:
    # In a fresh interpreter: this one may hold threads that earlier tests left.
    store = tmp_path / "shown.db"
    here = Path(__file__).parent
    tests = os.pathsep.join([str(here), str(here.parent)])
    done = subprocess.run(
        [sys.executable, "-c", PROGRESS_RUN, tests, str(store)],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    parent = json.loads(done.stdout.strip().splitlines()[-1])["pid"]
    pids = {row[6]["pid"] for row in stored_rows(store) if row[4] is None}
    assert pids and parent not in pids
    assert "samples" in done.stderr and "200/200" in done.stderr  # the progress display was on


@pytest.mark.usefixtures("small_blocks")
def test_a_process_running_other_threads_scores_the_samples_itself(tmp_path: Path) -> None:
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        assert not fork_is_safe()
        assert worker_count(2, 10_000) == 0
        store = evaluate(
            tmp_path, "threads", 2, data=benchmark_rows(200), metrics=[WhoScores(name="w")]
        )
    finally:
        stop.set()
        other.join()
    assert {row[6]["pid"] for row in stored_rows(store) if row[4] is None} == {os.getpid()}


def test_how_many_workers(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(scoring_processes, "fork_is_safe", lambda: True)
    minimum = scoring_processes.MIN_SAMPLES
    assert worker_count(1, 100_000) == 0
    assert worker_count(4, minimum - 1) == 0
    assert worker_count(2, minimum) == 2
    assert worker_count(64, minimum) == -(-minimum // scoring_processes.BLOCK_SAMPLES)


def test_auto_measures_the_free_cpus_only_when_there_is_work_to_share(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    measured: list[int] = []

    def free_cpus(busy: object = None) -> int:
        measured.append(1)
        return 2

    monkeypatch.setattr(scoring_processes, "fork_is_safe", lambda: True)
    monkeypatch.setattr(scoring_processes, "free_cpus", free_cpus)
    minimum = scoring_processes.MIN_SAMPLES
    # a judged run has no CPU-only samples: it does not wait for the measurement
    assert worker_count("auto", 0) == 0 and worker_count("auto", minimum - 1) == 0
    assert measured == []
    assert worker_count("auto", minimum) == 2 and measured == [1]


def test_processes_must_be_positive_or_auto() -> None:
    assert EvalConfig(metrics=["exact_match"]).processes == "auto"
    with pytest.raises(ValueError, match="processes"):
        EvalConfig(metrics=["exact_match"], processes=0)


@pytest.mark.parametrize(("processes", "workers"), [("auto", None), (1, 1), (3, 3)])
def test_the_processes_setting_reaches_the_knowledge_base(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, processes: int | str, workers: int | None
) -> None:
    from ragjudge.knowledge import KnowledgeBase
    from ragjudge.run._preparation import build_retriever

    (tmp_path / "doc.md").write_text("UNION removes duplicates. UNION ALL keeps them.\n")
    asked: list[int | None] = []
    load = KnowledgeBase.load.__func__  # type: ignore[attr-defined]

    def recording(cls: type[KnowledgeBase], *args: Any, **kwargs: Any) -> KnowledgeBase:
        asked.append(kwargs.get("workers"))
        return load(cls, *args, **kwargs)  # type: ignore[no-any-return]

    monkeypatch.setattr(KnowledgeBase, "load", classmethod(recording))
    config = EvalConfig(
        metrics=["exact_match"],
        knowledge_base={"path": str(tmp_path / "doc.md")},
        processes=processes,
        base_dir=tmp_path,
    )
    assert build_retriever(config) is not None
    assert asked == [workers]

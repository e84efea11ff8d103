"""A local run that reads its samples back from the store a page at a time: the same
stored scores, resume and ``evaluate()`` result as a run holding its set whole; the
warning a run holding a large set whole gives."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import ragjudge as rj
from ragjudge._util.parallel import fork_is_safe
from ragjudge.config import EvalConfig
from ragjudge.run import _executors, _holding, _paged, _processes
from ragjudge.run._paged import PagedExecution
from ragjudge.run._runner import run_evaluation, run_sync
from ragjudge.store._events import NOTE
from ragjudge.store._store import Store

ROWS = [
    {"request_id": f"r{i}", "request": f"question {i}", "response": f"answer {i % 4} of {i}",
     "expected_response": f"answer {i % 3} of {i}", "metadata": {"lang": ["en", "ja"][i % 2]}}
    for i in range(45)
]  # fmt: skip
METRICS = ["exact_match", "rouge_l", "token_f1"]


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    path = tmp_path / "set"
    path.mkdir()
    for number, start in enumerate(range(0, len(ROWS), 20)):
        pq.write_table(pa.Table.from_pylist(ROWS[start : start + 20]), path / f"{number}.parquet")
    return path


@pytest.fixture
def paged(monkeypatch: pytest.MonkeyPatch) -> None:
    """Local runs read any Parquet folder or resumed run in pages of 7 samples."""
    local = dataclasses.replace(_executors.executor_kind("local"), held_whole_up_to=0)
    monkeypatch.setitem(_executors._KINDS, "local", local)
    monkeypatch.setattr(PagedExecution, "page_rows", 7)


def config(folder: Path, store: Path, **update: Any) -> EvalConfig:
    settings = {"data": str(folder), "metrics": METRICS, "store": str(store), **update}
    return EvalConfig.model_validate(settings)


def stored_scores(store: Path, run_id: str) -> list[tuple[str, int, str, float | None]]:
    with Store(store) as opened:
        return [(rid, trial, s.metric, s.value) for rid, trial, s in opened.scores(run_id)]


def run(cfg: EvalConfig, **options: Any) -> rj.EvaluationResult:
    return run_sync(lambda: run_evaluation(cfg, progress=False, **options))


def whole_scores(folder: Path, tmp_path: Path, **update: Any) -> list[Any]:
    cfg = config(folder, tmp_path / "whole.db", **update)
    return stored_scores(cfg.store_path, run(cfg).run_id)


def refuse_whole_reads(monkeypatch: pytest.MonkeyPatch) -> None:
    def refused(*args: Any) -> None:
        raise AssertionError("the run read its samples whole")

    monkeypatch.setattr(Store, "samples", refused)


def pages_read(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Where each page a paged execution runs starts, as it runs them."""
    starts: list[int] = []
    run_page = PagedExecution._run_page

    async def recorded(self: PagedExecution, start: int, *args: Any) -> None:
        starts.append(start)
        await run_page(self, start, *args)

    monkeypatch.setattr(PagedExecution, "_run_page", recorded)
    return starts


@pytest.mark.parametrize("processes", [1, 2])
def test_a_paged_local_run_stores_the_scores_of_a_whole_load(
    folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, processes: int
) -> None:
    if processes > 1 and not fork_is_safe():
        pytest.skip("another thread runs in this test process, so no scoring worker is forked")
    expected = whole_scores(folder, tmp_path, processes=processes, trials=2)
    monkeypatch.setattr(_processes, "MIN_SAMPLES", 1)  # workers even for a few samples
    monkeypatch.setattr(_processes, "BLOCK_SAMPLES", 3)
    local = dataclasses.replace(_executors.executor_kind("local"), held_whole_up_to=0)
    monkeypatch.setitem(_executors._KINDS, "local", local)
    monkeypatch.setattr(PagedExecution, "page_rows", 7)
    refuse_whole_reads(monkeypatch)
    pages = pages_read(monkeypatch)
    forked: list[int] = []

    def counted(score: Any, workers: int) -> Any:
        forked.append(workers)
        return _processes.standing_pool(score, workers)

    monkeypatch.setattr(_paged, "standing_pool", counted)
    cfg = config(folder, tmp_path / "paged.db", processes=processes, trials=2)
    result = run(cfg)
    assert result.status == "completed"
    assert pages == list(range(0, len(ROWS), 7))
    assert forked == ([] if processes == 1 else [2])  # once for the run, not per page
    assert stored_scores(cfg.store_path, result.run_id) == expected
    assert len(expected) == len(ROWS) * 2 * len(METRICS)


def test_a_folder_within_the_local_bound_is_held_whole(folder: Path, tmp_path: Path) -> None:
    assert not _executors.executor_kind("local").in_pages(len(ROWS))
    assert _executors.executor_kind("local").in_pages(_executors.LOCAL_WHOLE_ROWS + 1)
    assert _executors.executor_kind("ray").in_pages(len(ROWS))


@pytest.mark.usefixtures("paged")
def test_an_interrupted_paged_run_resumes_page_by_page(
    folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    expected = whole_scores(folder, tmp_path)
    cfg = config(folder, tmp_path / "paged.db")
    run_id = run(cfg).run_id
    with Store(cfg.store_path, write=True) as store, store._tx() as conn:
        # as if the process had stopped in the third page: later results never stored
        conn.execute(f"DELETE FROM scores WHERE request_id NOT IN ({_marks(17)})", _first(17))
        conn.execute(f"DELETE FROM outputs WHERE request_id NOT IN ({_marks(15)})", _first(15))
        conn.execute("UPDATE runs SET status = 'interrupted'")
    assert len(stored_scores(cfg.store_path, run_id)) == 17 * len(METRICS)
    refuse_whole_reads(monkeypatch)
    pages = pages_read(monkeypatch)
    resumed = run(cfg, resume=run_id)
    assert pages == list(range(0, len(ROWS), 7))
    assert resumed.status == "completed"
    assert stored_scores(cfg.store_path, run_id) == expected


def _first(count: int) -> list[str]:
    return [f"r{i}" for i in range(count)]


def _marks(count: int) -> str:
    return ", ".join("?" * count)


@pytest.mark.usefixtures("paged")
def test_the_result_of_evaluate_is_that_of_a_whole_load(
    folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pages = pages_read(monkeypatch)
    settings: dict[str, Any] = {"metrics": METRICS, "by": "metadata.lang", "progress": False}
    paged = rj.evaluate(str(folder), store=tmp_path / "paged.db", **settings)
    whole = rj.evaluate([dict(row) for row in ROWS], store=tmp_path / "whole.db", **settings)
    with Store(tmp_path / "paged.db") as store:
        assert store.run(paged.run_id).n_samples == len(ROWS)
    assert paged.n_samples == whole.n_samples == len(ROWS)
    assert paged.summaries == whole.summaries
    assert paged.subsets == whole.subsets
    # rows 0, 1, 2 of every twelve answer as expected
    assert [s.mean for s in paged.summaries if s.metric == "exact_match"] == [12 / 45]
    assert pages == list(range(0, len(ROWS), 7))


def test_a_large_set_held_whole_gives_a_warning(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = tmp_path / "set.jsonl"
    rows.write_text("".join(json.dumps(row) + "\n" for row in ROWS), encoding="utf-8")
    monkeypatch.setattr(_holding, "WARN_HELD_BYTES", 44 * _holding.HELD_BYTES_PER_ROW)
    result = run(config(rows, tmp_path / "big.db"))
    warning = capsys.readouterr().err
    assert "warning: the 45 rows of the evaluation set are held in memory whole" in warning
    assert "a folder of Parquet files" in warning and "'executor: ray'" in warning
    with Store(result.store_path) as store:
        notes = [event["text"] for event in store.run_events(result.run_id, NOTE)]
    assert any("held in memory whole" in note for note in notes)


def test_a_set_within_the_size_gives_no_warning(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = tmp_path / "set.jsonl"
    rows.write_text("".join(json.dumps(row) + "\n" for row in ROWS), encoding="utf-8")
    monkeypatch.setattr(_holding, "WARN_HELD_BYTES", 45 * _holding.HELD_BYTES_PER_ROW)
    run(config(rows, tmp_path / "small.db"))
    assert "warning:" not in capsys.readouterr().err

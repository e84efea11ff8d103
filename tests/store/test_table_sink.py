"""The results table: a run's results appended per committed batch to a Hive-partitioned
Parquet dataset (or a Delta table), each result once, partitions from the samples'
metadata, and a resumed or retried run leaving no duplicate row."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.dataset as ds
import pytest

from ragjudge.config import ConfigError, EvalConfig
from ragjudge.errors import MissingExtra
from ragjudge.models.scripted import ReplyScript, ScriptedProvider
from ragjudge.run._runner import run_evaluation
from ragjudge.store._store import Store
from ragjudge.store._table_sink import MANIFEST, TableSink

PER_SAMPLE = 5
"""rouge_l, exact_match, closedqa and its two choice scores (closedqa/Y, closedqa/N)."""


def write_log(path: Path, n: int) -> None:
    with path.open("w", encoding="utf-8") as f:
        for i in range(n):
            answer = str(2 * i)
            response = answer if i % 3 else "no idea"
            row = {
                "request_id": f"req-{i}",
                "request": f"What is {i} + {i}?",
                "response": response,
                "expected_response": answer,
                "metadata": {"date": f"2026-05-0{1 + i % 2}"},
            }
            f.write(json.dumps(row) + "\n")


def config(tmp_path: Path, table: Any, n: int = 12) -> EvalConfig:
    log = tmp_path / "log.jsonl"
    if not log.exists():
        write_log(log, n)
    return EvalConfig.model_validate(
        {
            "data": str(log),
            "metrics": [
                "rouge_l",
                "exact_match",
                {"metric": "classify", "spec": "closedqa", "args": {"criteria": "correct"}},
            ],
            "judge": {"model": "scripted", "preflight": False},
            "store": str(tmp_path / "runs.db"),
            "cache": False,
            "results_table": table,
            "base_dir": str(tmp_path),
        }
    )


def run(cfg: EvalConfig, reply: str = "Right.\nY", **options: Any) -> str:
    judge = ScriptedProvider(ReplyScript(default=reply))
    result = asyncio.run(run_evaluation(cfg, judge_provider=judge, progress=False, **options))
    return result.run_id


def stored_keys(tmp_path: Path, run_id: str) -> dict[tuple[str, int, str], float | None]:
    with Store(tmp_path / "runs.db") as store:
        return {(rid, trial, s.metric): s.value for rid, trial, s in store.scores(run_id)}


def parquet_scores(root: Path) -> pa.Table:
    strings = pa.schema([("run_id", pa.string()), ("date", pa.string())])
    partitioning = ds.partitioning(strings, flavor="hive")
    return ds.dataset(root / "scores", format="parquet", partitioning=partitioning).to_table()


def keys_of(table: pa.Table) -> list[tuple[str, int, str]]:
    return list(
        zip(
            table.column("request_id").to_pylist(),
            table.column("trial").to_pylist(),
            table.column("score").to_pylist(),
            strict=True,
        )
    )


def test_every_score_is_in_the_table_once_in_its_partitions(tmp_path: Path) -> None:
    cfg = config(tmp_path, {"path": "table", "partition_by": ["metadata.date"]})
    run_id = run(cfg)
    table = parquet_scores(cfg.resolve("table"))
    stored = stored_keys(tmp_path, run_id)
    keys = keys_of(table)
    assert len(keys) == len(set(keys)) == len(stored) == 12 * PER_SAMPLE
    assert dict(zip(keys, table.column("value").to_pylist(), strict=True)) == stored
    assert set(table.column("run_id").to_pylist()) == {run_id}
    for rid, date in zip(
        table.column("request_id").to_pylist(), table.column("date").to_pylist(), strict=True
    ):
        assert date == f"2026-05-0{1 + int(rid.split('-')[1]) % 2}"
    folders = sorted(
        p.relative_to(cfg.resolve("table")).as_posix()
        for p in cfg.resolve("table").glob("scores/*/*")
    )
    assert folders == [
        f"scores/run_id={run_id}/date=2026-05-01",
        f"scores/run_id={run_id}/date=2026-05-02",
    ]
    judged = table.filter(ds.field("score") == "closedqa")
    assert set(judged.column("judge_model").to_pylist()) == {"scripted"}
    assert set(table.filter(ds.field("score") == "rouge_l").column("judge_model").to_pylist()) == {
        None
    }
    outputs = ds.dataset(
        cfg.resolve("table") / "outputs", format="parquet", partitioning="hive"
    ).to_table()
    assert sorted(outputs.column("request_id").to_pylist()) == sorted(f"req-{i}" for i in range(12))
    assert "no idea" in outputs.column("response").to_pylist()
    assert not list(cfg.resolve("table").rglob(".*.tmp"))  # no file left half-written


def test_a_second_run_appends_its_own_partition(tmp_path: Path) -> None:
    cfg = config(tmp_path, "table")
    first, second = run(cfg), run(cfg)
    table = ds.dataset(
        cfg.resolve("table") / "scores", format="parquet", partitioning="hive"
    ).to_table()
    counts = {r: table.column("run_id").to_pylist().count(r) for r in (first, second)}
    assert counts == {first: 12 * PER_SAMPLE, second: 12 * PER_SAMPLE}


def test_retried_errors_replace_their_rows_instead_of_adding_rows(tmp_path: Path) -> None:
    cfg = config(tmp_path, {"path": "table", "partition_by": ["date"]})
    run_id = run(cfg, reply="no verdict here")  # closedqa cannot read it: errors
    errored = parquet_scores(cfg.resolve("table")).filter(ds.field("score") == "closedqa")
    assert all(e for e in errored.column("error").to_pylist())
    run(cfg, resume=run_id, retry_errors=True)
    table = parquet_scores(cfg.resolve("table"))
    keys = keys_of(table)
    assert len(keys) == len(set(keys)) == 12 * PER_SAMPLE
    assert dict(zip(keys, table.column("value").to_pylist(), strict=True)) == stored_keys(
        tmp_path, run_id
    )
    judged = table.filter(ds.field("score") == "closedqa")
    assert judged.column("error").null_count == 12


def test_rows_lost_between_the_store_and_the_table_come_back_on_resume(tmp_path: Path) -> None:
    cfg = config(tmp_path, "table")
    run_id = run(cfg)
    root = cfg.resolve("table")
    for part in (root / "scores" / f"run_id={run_id}").glob("*.parquet"):
        part.unlink()  # as if killed after the store's commit, before the file
    run(cfg, resume=run_id)
    keys = keys_of(ds.dataset(root / "scores", format="parquet", partitioning="hive").to_table())
    assert sorted(keys) == sorted(stored_keys(tmp_path, run_id))


def test_a_table_of_another_layout_is_refused_naming_it(tmp_path: Path) -> None:
    root = tmp_path / "table"
    root.mkdir()
    (root / MANIFEST).write_text(json.dumps({"layout": 1, "format": "parquet", "partition_by": []}))
    cfg = config(tmp_path, {"path": str(root), "partition_by": ["date"]})
    with pytest.raises(
        ConfigError, match=r"results_table: .*table holds a parquet table partitioned by \[\]"
    ):
        run(cfg)


def test_the_setting_takes_a_path_and_checks_partition_keys(tmp_path: Path) -> None:
    assert config(tmp_path, "out").results_table is not None
    with pytest.raises(ValueError, match="run_id is always the first partition"):
        config(tmp_path, {"path": "out", "partition_by": ["run_id"]})
    with pytest.raises(ValueError, match="not a metadata key"):
        config(tmp_path, {"path": "out", "partition_by": ["a/b"]})


def test_delta_without_the_package_names_the_pip_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "deltalake", None)
    cfg = config(tmp_path, {"path": "table", "format": "delta"})
    with pytest.raises(MissingExtra, match=r"pip install 'ragjudge\[delta\]'"):
        run(cfg)
    with Store(tmp_path / "runs.db") as store:
        assert store.runs() == []  # refused before anything ran


def test_a_delta_table_round_trips_and_a_retry_leaves_no_duplicate(tmp_path: Path) -> None:
    deltalake = pytest.importorskip("deltalake", reason="the delta extra is not installed")
    cfg = config(tmp_path, {"path": "table", "format": "delta", "partition_by": ["date"]})
    run_id = run(cfg, reply="no verdict here")
    run(cfg, resume=run_id, retry_errors=True)
    table = deltalake.DeltaTable(str(cfg.resolve("table") / "scores"))
    assert table.metadata().partition_columns == ["run_id", "date"]
    read = table.to_pyarrow_table()
    keys = keys_of(read)
    assert len(keys) == len(set(keys)) == 12 * PER_SAMPLE
    assert dict(zip(keys, read.column("value").to_pylist(), strict=True)) == stored_keys(
        tmp_path, run_id
    )
    sink_rows = TableSink(
        Store(tmp_path / "runs.db"), run_id, cfg.resolve("table"), "delta", ["date"]
    ).table_rows("outputs")
    assert sink_rows == 12

"""Reading a run's score rows a page at a time from the results table or the store:
the same rows either way, pages no longer than asked, runs named by a unique part."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest
from typer.testing import CliRunner

from ragjudge.analysis._results import summarize_run
from ragjudge.analysis._table_summary import summarize_score_pages
from ragjudge.cli import app
from ragjudge.config import EvalConfig
from ragjudge.errors import StoreError
from ragjudge.export._files import long_frame
from ragjudge.run._runner import run_evaluation
from ragjudge.store._store import Store
from ragjudge.store._table_reader import ResultsTable, store_score_pages

runner = CliRunner()


@pytest.fixture(scope="module")
def stored(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """A lexical run of 40 rows with its results table at ``table``."""
    folder = tmp_path_factory.mktemp("tables")
    rows = [
        {
            "request_id": f"r{i}",
            "request": f"q {i}",
            "response": f"the answer is {i % 7}",
            "expected_response": f"the answer is {i % 5}",
            "metadata": {"day": f"d{i % 3}"},
        }
        for i in range(40)
    ]
    config = EvalConfig.model_validate(
        {
            "metrics": ["rouge_l", "exact_match", "token_f1"],
            "store": str(folder / "runs.db"),
            "results_table": {"path": "table", "partition_by": ["day"]},
            "base_dir": str(folder),
        }
    )
    result = asyncio.run(run_evaluation(config, data=rows, progress=False))
    return folder, result.run_id


def sorted_rows(pages: list[pa.RecordBatch]) -> list[dict[str, Any]]:
    rows = pa.Table.from_batches(pages).to_pylist()
    return sorted(rows, key=lambda r: (r["request_id"], r["trial"], r["score"]))


def test_the_table_and_the_store_give_the_same_rows_in_pages(stored: tuple[Path, str]) -> None:
    folder, run_id = stored
    table = ResultsTable.open(folder / "table")
    from_table = list(table.score_pages(run_id, page_rows=7))
    with Store(folder / "runs.db") as store:
        from_store = list(store_score_pages(store, run_id, page_rows=7))
    assert max(p.num_rows for p in from_table) <= 7
    assert max(p.num_rows for p in from_store) <= 7
    assert from_table[0].schema == from_store[0].schema
    assert len(sorted_rows(from_table)) == 120
    assert sorted_rows(from_table) == sorted_rows(from_store)


def test_page_summaries_match_the_runs_summary(stored: tuple[Path, str]) -> None:
    folder, run_id = stored
    summaries = summarize_score_pages(ResultsTable.open(folder / "table").score_pages(run_id, 11))
    with Store(folder / "runs.db") as store:
        result = summarize_run(store, run_id)
    means = {m["metric"]: m["mean"] for m in result.to_dict()["metrics"]}
    assert {s.score: s.results for s in summaries} == {
        "rouge_l": 40,
        "exact_match": 40,
        "token_f1": 40,
    }
    for summary in summaries:
        assert summary.mean == pytest.approx(means[summary.score])


def test_runs_are_named_by_id_unique_part_or_latest(stored: tuple[Path, str]) -> None:
    folder, run_id = stored
    table = ResultsTable.open(folder / "table")
    assert table.run_ids() == [run_id]
    assert table.run_id(run_id[-6:]) == table.run_id("latest") == run_id
    with pytest.raises(StoreError, match=r"'nope' in the results table .*no run matches it"):
        table.run_id("nope")
    with pytest.raises(StoreError, match="is not a results table"):
        ResultsTable.open(folder)


def test_show_and_export_from_the_table_equal_the_stores(stored: tuple[Path, str]) -> None:
    folder, run_id = stored
    table, db = str(folder / "table"), str(folder / "runs.db")
    from_table = runner.invoke(app, ["show", run_id, "--table", table, "--json"])
    from_store = runner.invoke(app, ["show", run_id, "--store", db, "--json"])
    assert from_table.exit_code == from_store.exit_code == 0, from_table.output
    table_means = {s["score"]: s["mean"] for s in json.loads(from_table.stdout)["scores"]}
    store_means = {m["metric"]: m["mean"] for m in json.loads(from_store.stdout)["metrics"]}
    assert table_means == pytest.approx(store_means)

    for suffix in ("jsonl", "csv", "parquet", "json"):
        out = folder / f"rows.{suffix}"
        done = runner.invoke(app, ["export", run_id[:8], "--table", table, "-o", str(out)])
        assert done.exit_code == 0, done.output
        assert f"wrote 120 rows of run {run_id}" in done.output
    with Store(db) as store:
        expected = long_frame(store, run_id)
    want = {(r.request_id, r.trial, r.metric): r.value for r in expected.itertuples()}
    lines = [json.loads(line) for line in (folder / "rows.jsonl").read_text().splitlines()]
    assert {(r["request_id"], r["trial"], r["score"]): r["value"] for r in lines} == want
    as_json = json.loads((folder / "rows.json").read_text())
    assert len(as_json) == 120
    parquet = pa.parquet.read_table(folder / "rows.parquet")
    assert parquet.num_rows == 120


def test_export_from_a_table_refuses_what_the_table_does_not_hold(stored: tuple[Path, str]) -> None:
    folder, run_id = stored
    table = str(folder / "table")
    for extra, says in [
        (["--layout", "wide"], "--table holds one row per score"),
        (["--with-calls"], "--table holds one row per score"),
        (["--to", "mlflow"], "--table exports to a file"),
    ]:
        out = ["-o", str(folder / "x.jsonl")] if "--to" not in extra else []
        done = runner.invoke(app, ["export", run_id, "--table", table, *out, *extra])
        assert done.exit_code == 2 and says in done.output, done.output
    done = runner.invoke(app, ["show", run_id, "--table", table, "--by", "day"])
    assert done.exit_code == 2 and "leave out --table" in done.output

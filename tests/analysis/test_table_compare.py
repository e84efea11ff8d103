"""compare of two runs read from a results table: the same numbers as from the store
(the table partitioned by a metadata key, so its rows are not in sample order)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ragjudge.analysis._compare import compare_runs
from ragjudge.analysis._table_compare import UNKNOWN_STATUS, compare_table_runs
from ragjudge.cli import app
from ragjudge.config import EvalConfig
from ragjudge.errors import AnalysisError
from ragjudge.run._runner import run_evaluation
from ragjudge.store._store import Store
from ragjudge.store._table_reader import ResultsTable

runner = CliRunner()


def _rows(shift: int) -> list[dict[str, object]]:
    return [
        {
            "request_id": f"r{i}",
            "request": f"q {i}",
            "response": f"the answer is {(i + shift) % 7}",
            "expected_response": f"the answer is {i % 5}",
            "metadata": {"day": f"d{i % 3}"},
        }
        for i in range(60)
    ]


@pytest.fixture(scope="module")
def two_runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, str]:
    """Two lexical runs of the same 60 request ids, kept in a results table too."""
    folder = tmp_path_factory.mktemp("table_compare")
    config = EvalConfig.model_validate(
        {
            "metrics": ["rouge_l", "exact_match", "token_f1"],
            "store": str(folder / "runs.db"),
            "results_table": {"path": "table", "partition_by": ["day"]},
            "base_dir": str(folder),
        }
    )
    first = asyncio.run(run_evaluation(config, data=_rows(0), progress=False))
    second = asyncio.run(run_evaluation(config, data=_rows(3), progress=False))
    return folder, first.run_id, second.run_id


def test_the_table_gives_the_stores_comparison(two_runs: tuple[Path, str, str]) -> None:
    folder, a, b = two_runs
    table = ResultsTable.open(folder / "table")
    with Store(folder / "runs.db") as store:
        from_store = compare_runs(store, a, store, b)
        from_table = compare_table_runs(table, a, b, store=store)
    assert [r.metric for r in from_table.rows] == ["rouge_l", "exact_match", "token_f1"]
    assert from_table.rows == from_store.rows
    assert from_table.pass_rates == from_store.pass_rates
    assert all(r.paired.n == 60 for r in from_table.rows)
    assert any(r.paired.difference != 0 for r in from_table.rows)
    assert from_table.run_a.store == str(folder / "table")


def test_without_the_store_the_means_are_the_same_and_the_status_unknown(
    two_runs: tuple[Path, str, str],
) -> None:
    folder, a, b = two_runs
    with Store(folder / "runs.db") as store:
        from_store = compare_runs(store, a, store, b)
    alone = compare_table_runs(ResultsTable.open(folder / "table"), a[-6:], b[:-3])
    assert alone.run_b.run_id == b
    assert alone.run_a.status == UNKNOWN_STATUS
    for found, expected in zip(alone.rows, from_store.rows, strict=True):
        assert found.paired.mean_a == pytest.approx(expected.paired.mean_a)
        assert found.paired.difference == pytest.approx(expected.paired.difference)


def test_subsets_need_the_store(two_runs: tuple[Path, str, str]) -> None:
    folder, a, b = two_runs
    with pytest.raises(AnalysisError, match="metadata"):
        compare_table_runs(ResultsTable.open(folder / "table"), a, b, by="day")


def test_the_command_compares_from_the_table(two_runs: tuple[Path, str, str]) -> None:
    folder, a, b = two_runs
    common = ["--store", str(folder / "runs.db"), "--table", str(folder / "table")]
    result = runner.invoke(app, ["compare", a, b, *common, "--json"])
    assert result.exit_code == 0, result.output
    found = json.loads(result.stdout)
    with Store(folder / "runs.db") as store:
        expected = compare_runs(store, a, store, b).to_dict()
    assert found["metrics"] == expected["metrics"]
    assert found["pass_rates"] == expected["pass_rates"]
    by_day = runner.invoke(app, ["compare", a, b, *common, "--by", "day"])
    assert by_day.exit_code == 2
    assert "--table" in by_day.output
    missing = runner.invoke(app, ["compare", a, b, "--table", str(folder / "nowhere")])
    assert missing.exit_code == 2
    assert "not a results table" in missing.output

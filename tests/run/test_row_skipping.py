"""``skip_invalid_rows``: NaN cells in one column no longer refuse the whole run; what
was skipped is reported."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

import ragjudge as rj
from ragjudge.cli import app
from ragjudge.run._runner import RequirementError


def frame_with_nan() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "request": ["q1", "q2", "q3", np.nan],
            "response": ["a b", "c", "d", "e"],
            "expected_response": ["a b", np.nan, "d", "e"],
        }
    )


def test_nan_in_one_column_refuses_the_run_and_says_how_to_go_on(tmp_path: Path) -> None:
    with pytest.raises(rj.DatasetError):
        rj.evaluate(frame_with_nan(), metrics=["rouge_l"], store=tmp_path / "r.db", progress=False)
    rows = frame_with_nan().iloc[:3]
    with pytest.raises(RequirementError, match="skip_invalid_rows"):
        rj.evaluate(rows, metrics=["rouge_l"], store=tmp_path / "r.db", progress=False)


def test_skip_invalid_rows_scores_what_can_be_scored(tmp_path: Path) -> None:
    result = rj.evaluate(
        frame_with_nan(),
        metrics=["rouge_l", "exact_match"],
        skip_invalid_rows=True,
        store=tmp_path / "r.db",
        progress=False,
    )

    summary = result.summary().set_index("metric")
    assert summary.loc["rouge_l", "n"] == 2 and summary.loc["rouge_l", "skipped"] == 1
    assert summary.loc["rouge_l", "mean"] == 1.0
    notes = "\n".join(result.notes)
    assert "skipped 1 row that cannot be read" in notes and "row 4, field 'request'" in notes
    assert "'rouge_l' is not applicable to 1 of 3 rows" in notes
    assert result.verdict.exit_code == 0
    frame = result.to_pandas().set_index("request")
    assert frame.loc["q2", "rouge_l.skipped"] == "the row has no 'expected_response'"


def test_skip_invalid_rows_still_refuses_a_column_no_row_has(tmp_path: Path) -> None:
    rows = [{"request": "q", "response": "r"}]
    with pytest.raises(RequirementError, match="needs 'expected_response'; no row has it"):
        rj.evaluate(
            rows,
            metrics=["rouge_l"],
            skip_invalid_rows=True,
            store=tmp_path / "r.db",
            progress=False,
        )


def test_rows_without_a_response_are_skipped_when_the_data_is_the_target(tmp_path: Path) -> None:
    rows = [
        {"request": "q1", "response": "a", "expected_response": "a"},
        {"request": "q2", "expected_response": "b"},
    ]

    result = rj.evaluate(
        rows,
        metrics=["exact_match"],
        skip_invalid_rows=True,
        store=tmp_path / "r.db",
        progress=False,
    )

    assert result.n_samples == 1
    assert any("skipped 1 row(s) with no response" in n for n in result.notes)


def test_the_config_key_and_the_cli_flag(tmp_path: Path) -> None:
    data = tmp_path / "set.csv"
    frame_with_nan().to_csv(data, index=False)
    config = tmp_path / "eval.yaml"
    config.write_text("data: set.csv\nmetrics: [rouge_l]\nskip_invalid_rows: true\n")
    runner = CliRunner()

    by_key = runner.invoke(app, ["run", str(config), "--json", "--no-progress"])
    config.write_text("data: set.csv\nmetrics: [rouge_l]\n")
    refused = runner.invoke(app, ["run", str(config), "--no-progress"])
    by_flag = runner.invoke(app, ["run", str(config), "--skip-invalid-rows", "--no-progress"])

    assert by_key.exit_code == 0, by_key.output
    (rouge,) = json.loads(by_key.stdout)["metrics"]
    assert (rouge["n"], rouge["skipped"]) == (2, 1)
    assert refused.exit_code == 2 and "--skip-invalid-rows" in refused.output
    assert by_flag.exit_code == 0, by_flag.output
    assert "not applicable to 1 of 3 rows" in by_flag.output

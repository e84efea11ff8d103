"""``ragjudge meta RUN --human LABEL --table``: the judge table printed, as JSON, as CSV
and written to a file, and the mistakes it names."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from judge_matrix import labelled_samples, matrix_run
from ragjudge.cli import app
from ragjudge.schema import ScoreMeaning

runner = CliRunner()

LABELS = [1, 2, 3, 4, 4, 1, 2, 3, 4, 4, 2, 4]
CLOSE = [1, 2, 3, 4, 4, 2, 2, 3, 4, 4, 2, 4]  # one slip
LENIENT = [3 if label == 1 else 4 for label in LABELS]


def _meaning(judge: str) -> ScoreMeaning:
    return ScoreMeaning(low=1, high=4, judge=judge, metric="faithfulness", contexts="reference")


@pytest.fixture
def stored(tmp_path: Path) -> tuple[Path, str]:
    path = tmp_path / "runs.db"
    run_id = matrix_run(
        path,
        labelled_samples(LABELS),
        {"faithfulness@big": LABELS, "faithfulness@mini": CLOSE, "faithfulness@nano": LENIENT},
        {
            n: _meaning(n.split("@")[1])
            for n in ("faithfulness@big", "faithfulness@mini", "faithfulness@nano")
        },
        {"faithfulness@big": 0.002, "faithfulness@mini": 0.0004, "faithfulness@nano": 0.0001},
        {"big": "openai/gpt-4o", "mini": "openai/gpt-4o-mini", "nano": "openai/gpt-4.1-nano"},
    )
    return path, run_id


def _meta(stored: tuple[Path, str], *args: str) -> list[str]:
    path, run_id = stored
    return ["meta", run_id, "--human", "ok", "--store", str(path), "--table", *args]


def test_the_table_and_the_ranking_are_printed(stored: tuple[Path, str]) -> None:
    result = runner.invoke(app, _meta(stored, "--within", "0.2"), env={"COLUMNS": "250"})

    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    big = next(line for line in lines if "big (openai/gpt-4o)" in line and "faithfulness" in line)
    assert "reference" in big and "1.000" in big and "$2.0000" in big
    assert "ranked by Kendall τ against ok" in result.stdout
    ranks = [line for line in lines if line.startswith("│ 1 ") or line.startswith("│ 2 ")]
    assert "big" in ranks[0] and "mini" in ranks[1]
    verdict = " ".join(result.stdout.split())
    assert "cheapest judge within 0.2 Kendall τ of the best: mini" in verdict
    assert "not distinguishable on these 12 samples" in verdict


def test_json_csv_and_files_hold_the_same_table(stored: tuple[Path, str], tmp_path: Path) -> None:
    as_json = json.loads(runner.invoke(app, _meta(stored, "--json")).stdout)
    rows = list(csv.DictReader(io.StringIO(runner.invoke(app, _meta(stored, "--csv")).stdout)))
    written = tmp_path / "out" / "table.csv"
    result = runner.invoke(app, _meta(stored, "-o", str(written)))
    markdown = tmp_path / "table.md"
    runner.invoke(app, _meta(stored, "--output", str(markdown)))

    assert result.exit_code == 0, result.output
    assert [r["judge"] for r in as_json["rows"]] == ["big", "mini", "nano"]
    assert as_json["rankings"][0]["ranked_by"] == "kendall"
    assert as_json["rankings"][0]["best"] == "big"
    kendall = [r["labels"]["ok"]["kendall"]["value"] for r in as_json["rows"]]
    assert [float(r["kendall"]) for r in rows] == pytest.approx(kendall)
    assert [float(r["cost_per_1000"]) for r in rows] == pytest.approx([2.0, 0.4, 0.1])
    assert list(csv.DictReader(written.open(encoding="utf-8"))) == rows
    text = markdown.read_text(encoding="utf-8")
    assert "| faithfulness | big (openai/gpt-4o) | reference |" in text
    assert "cheapest judge within 0.05 Kendall τ of the best: mini (Kendall τ 0.9" in text


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["-o", "table.txt"], "the suffix must be .json, .csv or .md, not '.txt'"),
        (["--by", "ok"], "leave out --by and --pairs"),
        (["--within", "-0.1"], "--within must be 0 or more"),
    ],
)
def test_mistakes_are_named(stored: tuple[Path, str], args: list[str], message: str) -> None:
    result = runner.invoke(app, _meta(stored, *args))

    assert result.exit_code == 2
    assert message in " ".join(result.output.split())


def test_the_table_outputs_need_the_table(stored: tuple[Path, str]) -> None:
    path, run_id = stored
    result = runner.invoke(app, ["meta", run_id, "--human", "ok", "--store", str(path), "--csv"])

    assert result.exit_code == 2
    assert "add --table" in result.output

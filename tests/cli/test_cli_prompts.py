"""``ragjudge prompts``: a metric's judge prompts for one sample, labelled per call,
built without calling anything; bad choices are named with exit 2."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from ragjudge.cli import app

runner = CliRunner()
ROWS = [
    {"request_id": "a1", "request": "What is the capital of France?", "response": "Paris."},
    {"request_id": "b2", "request": "Who wrote Hamlet?", "response": "Shakespeare wrote it."},
]
REFERENCES = [
    {**row, "expected_response": answer}
    for row, answer in zip(ROWS, ["Paris", "Shakespeare"], strict=True)
]


def evalset(tmp_path: Path, rows: list[dict[str, str]] = ROWS) -> Path:
    path = tmp_path / "set.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_the_prompt_holds_the_chosen_rows_text_inside_its_delimiters(tmp_path: Path) -> None:
    data = str(evalset(tmp_path))
    result = runner.invoke(app, ["prompts", "relevance_to_query", "--data", data, "--id", "b2"])

    assert result.exit_code == 0, result.output
    assert result.output.startswith("relevance_to_query on b2: 1 judge call")
    assert "call 1 of 1: relevance_to_query" in result.output
    assert "<<<BEGIN REQUEST>>>\nWho wrote Hamlet?\n<<<END REQUEST>>>" in result.output
    assert "Shakespeare wrote it." in result.output and "Paris" not in result.output


def test_a_config_gives_the_metric_its_options_and_json_lists_every_call(tmp_path: Path) -> None:
    data = evalset(tmp_path)
    config = tmp_path / "eval.yaml"
    config.write_text(
        f"data: {data}\ntarget: data\nmetrics: [{{metric: likert, name: rating}}]\n",
        encoding="utf-8",
    )
    result = runner.invoke(app, ["prompts", "rating", str(config), "--row", "1", "--json"])

    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    assert (document["metric"], document["request_id"]) == ("rating", "a1")
    assert document["calls"] and "Paris." in json.dumps(document["calls"][0]["messages"])


def test_a_metric_without_a_judge_says_so(tmp_path: Path) -> None:
    data = str(evalset(tmp_path, REFERENCES))
    result = runner.invoke(app, ["prompts", "exact_match", "--data", data])

    assert result.exit_code == 0
    assert "exact_match calls no judge" in result.output


def test_a_missing_row_or_a_misspelt_metric_is_named(tmp_path: Path) -> None:
    data = str(evalset(tmp_path))
    beyond = runner.invoke(app, ["prompts", "safety", "--data", data, "--row", "3"])
    unknown = runner.invoke(app, ["prompts", "safety", "--data", data, "--id", "zz"])
    misspelt = runner.invoke(app, ["prompts", "saftey", "--data", data])

    assert beyond.exit_code == 2 and "row 3 does not exist (the set has 2 rows" in beyond.stderr
    assert unknown.exit_code == 2 and "no row has the id 'zz'" in unknown.stderr
    assert misspelt.exit_code == 2 and "did you mean 'safety'?" in misspelt.stderr

"""``ragjudge init``: a commented config for the user's case, a sample set beside it,
flags for scripts, and no file overwritten."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from ragjudge.cli import app
from ragjudge.cli._init import JudgeChoice, Recipe, eval_yaml
from ragjudge.config import EvalConfig
from ragjudge.config._presets import preset_named

runner = CliRunner()


def test_the_preset_follows_what_the_rows_hold() -> None:
    judge = JudgeChoice.openai
    assert Recipe(True, True, judge).preset == "rag-with-reference"
    assert Recipe(False, True, judge).preset == "rag-without-reference"
    assert Recipe(True, False, judge).preset == "answer-with-reference"
    assert Recipe(False, False, judge).preset == "answer-without-reference"


@pytest.mark.parametrize("judge", list(JudgeChoice))
def test_every_written_config_is_a_valid_config(judge: JudgeChoice, tmp_path: Path) -> None:
    recipe = Recipe(reference=True, retrieval=True, judge=judge)
    record = yaml.safe_load(eval_yaml(recipe, "evalset.jsonl"))
    assert record["metrics"] == [{"preset": "rag-with-reference"}]
    config = EvalConfig.model_validate({**record, "base_dir": str(tmp_path)})
    expected = [m.entry for m in preset_named("rag-with-reference").metrics]
    assert config.metrics == expected
    assert config.judge is not None and config.judge.model.startswith(("openai/", "litellm/"))


def test_init_writes_the_config_and_a_sample_set_of_that_shape(tmp_path: Path) -> None:
    config = tmp_path / "sub" / "eval.yaml"
    done = runner.invoke(app, ["init", "-o", str(config), "--retrieval", "--no-reference"])
    assert done.exit_code == 0, done.output
    text = config.read_text(encoding="utf-8")
    assert "model: openai/gpt-4o" in text and "- preset: rag-without-reference" in text
    assert "#   faithfulness" in text
    rows = [json.loads(line) for line in (config.parent / "evalset.jsonl").read_text().splitlines()]
    assert len(rows) == 3
    assert all("retrieved_context" in r and "expected_response" not in r for r in rows)


def test_init_keeps_an_existing_data_file(tmp_path: Path) -> None:
    (tmp_path / "mine.jsonl").write_text('{"request": "q", "response": "a"}\n')
    done = runner.invoke(app, ["init", "-o", str(tmp_path / "eval.yaml"), "--data", "mine.jsonl"])
    assert done.exit_code == 0, done.output
    assert (tmp_path / "mine.jsonl").read_text() == '{"request": "q", "response": "a"}\n'
    assert "data: mine.jsonl" in (tmp_path / "eval.yaml").read_text(encoding="utf-8")


def test_init_never_overwrites_a_config(tmp_path: Path) -> None:
    config = tmp_path / "eval.yaml"
    config.write_text("mine: true\n")
    done = runner.invoke(app, ["init", "-o", str(config)])
    assert done.exit_code == 2 and "exists and is left as it is" in done.stderr
    assert config.read_text() == "mine: true\n"

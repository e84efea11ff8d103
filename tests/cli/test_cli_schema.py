"""Tests for ``ragjudge schema``: the JSON Schema of eval.yaml accepts every config the
repository ships (shorthands, presets and metric options included) and flags the
mistakes an editor should underline."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml
from typer.testing import CliRunner

from ragjudge.cli import app
from ragjudge.cli._schema import eval_schema

REPO = Path(__file__).resolve().parents[2]
SHIPPED_CONFIGS = sorted(
    [*REPO.glob("examples/*/eval*.yaml"), *REPO.glob("examples/validation/*.yaml")]
)
runner = CliRunner()


def _problems(config: dict[str, Any]) -> list[str]:
    validator = jsonschema.Draft202012Validator(eval_schema())
    return [error.message for error in validator.iter_errors(config)]


def test_the_repository_ships_configs_to_check() -> None:
    assert len(SHIPPED_CONFIGS) >= 8


@pytest.mark.parametrize("path", SHIPPED_CONFIGS, ids=lambda p: str(p.relative_to(REPO)))
def test_every_shipped_config_fits_the_schema(path: Path) -> None:
    config = yaml.safe_load(path.read_text(encoding="utf-8"))

    assert _problems(config) == []


def test_shorthands_and_presets_fit_the_schema() -> None:
    config = {
        "data": "set.jsonl",
        "target": "data",
        "judge": "openai/gpt-4o",
        "knowledge_base": "docs/",
        "report": True,
        "metrics": [{"preset": "rag-with-reference"}, "rouge_l", "my_metrics:Short"],
    }

    assert _problems(config) == []


def test_several_judges_and_a_metrics_choice_of_them_fit_the_schema() -> None:
    config = {
        "data": "set.jsonl",
        "judges": {"mini": "openai/gpt-4o-mini", "big": {"model": "openai/gpt-4o", "rpm": 60}},
        "metrics": [
            "faithfulness",
            {"metric": "answer_accuracy", "judges": ["big"]},
            {"metric": "correctness", "ensemble": "majority"},
        ],
    }

    assert _problems(config) == []


JUDGES = {"mini": "openai/gpt-4o-mini", "big": "openai/gpt-4o"}


@pytest.mark.parametrize(
    ("config", "flagged"),
    [
        ({"metrics": ["faithfulness"], "judges": {"big one": "openai/gpt-4o"}}, "big one"),
        ({"metrics": [{"metric": "correctness", "ensemble": "vote"}], "judges": JUDGES}, "vote"),
    ],
)
def test_the_schema_flags_a_judge_name_or_ensemble_the_reader_refuses(
    config: dict[str, Any], flagged: str
) -> None:
    assert any(flagged in p for p in _problems(config))


@pytest.mark.parametrize(
    ("config", "flagged"),
    [
        ({"metrics": ["rouge_l"], "trails": 3}, "'trails' was unexpected"),
        ({"metrics": ["rogue_l"]}, "rogue_l"),
        ({"metrics": [{"preset": "everything"}]}, "everything"),
        ({"metrics": ["rouge_l"], "trials": 0}, "0 is not valid"),
        ({"metrics": ["rouge_l"], "judge": {"model": "openai/gpt-4o", "rmp": 5}}, "rmp"),
    ],
)
def test_the_schema_flags_mistakes(config: dict[str, Any], flagged: str) -> None:
    problems = _problems(config)

    assert any(flagged in p for p in problems), problems


def test_the_command_prints_and_writes_the_schema(tmp_path: Path) -> None:
    printed = runner.invoke(app, ["schema"])
    written = runner.invoke(app, ["schema", "-o", str(tmp_path / "eval.schema.json")])

    assert printed.exit_code == 0 and written.exit_code == 0
    assert json.loads(printed.stdout) == eval_schema()
    assert json.loads((tmp_path / "eval.schema.json").read_text(encoding="utf-8")) == eval_schema()
    assert "base_dir" not in eval_schema()["properties"]

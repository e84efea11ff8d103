"""``judges:`` in the configuration: several judge models by name, each a spec or a
mapping of its settings; refused beside ``judge:`` and with names that cannot end a
score's name; the first is the run's primary judge; each one's endpoint is recorded and
its credentials registered as secrets."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragjudge.config import ConfigError, EvalConfig, load_config
from ragjudge.config._secrets import config_secrets


def _error(tmp_path: Path, text: str) -> str:
    path = tmp_path / "eval.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError) as info:
        load_config(path)
    return str(info.value)


def test_judges_are_specs_or_mappings_and_the_first_is_the_primary_judge() -> None:
    config = EvalConfig(
        metrics=["faithfulness"],
        judges={"mini": "openai/gpt-4o-mini", "big": {"model": "openai/gpt-4o", "rpm": 60}},
    )
    assert config.judge_names == ["mini", "big"]
    assert config.judges is not None and config.judges["big"].rpm == 60
    assert config.primary_judge is not None and config.primary_judge.model == "openai/gpt-4o-mini"
    assert config.judge is None


def test_a_run_with_one_judge_has_no_judge_names() -> None:
    config = EvalConfig(metrics=["faithfulness"], judge="openai/gpt-4o-mini")
    assert config.judge_names == []
    assert config.primary_judge is config.judge


def test_judge_and_judges_together_are_refused_naming_both(tmp_path: Path) -> None:
    message = _error(
        tmp_path,
        "metrics: [faithfulness]\njudge: openai/a\njudges: {mini: openai/b}\n",
    )
    assert "'judge'" in message and "'judges'" in message and "not both" in message


@pytest.mark.parametrize("name", ["big model", "a@b", "gpt/4o", ""])
def test_a_judge_name_that_cannot_end_a_score_name_is_named(tmp_path: Path, name: str) -> None:
    message = _error(tmp_path, f"metrics: [faithfulness]\njudges: {{'{name}': openai/b}}\n")
    assert f"judge name(s) {name!r}" in message and "letters, digits" in message


def test_an_empty_judges_mapping_is_refused(tmp_path: Path) -> None:
    assert "name at least one judge" in _error(tmp_path, "metrics: [faithfulness]\njudges: {}\n")


def test_each_judges_endpoint_is_recorded_without_credentials() -> None:
    config = EvalConfig(
        metrics=["faithfulness"],
        judges={
            "a": {"model": "openai/m", "base_url": "http://user:pw@host-a:8000/v1"},
            "b": {"model": "openai/m", "base_url": "http://host-b:8000/v1"},
        },
    )
    record = config.to_record()
    assert record["judges"]["b"]["base_url"] == "http://host-b:8000/v1"
    assert "pw" not in str(record["judges"]["a"])
    assert EvalConfig.model_validate(record).judge_names == ["a", "b"]  # a resume reads it


def test_every_judges_key_is_a_secret_of_the_run(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KEY_OF_B", "sk-secret-of-b-123456")
    config = EvalConfig(
        metrics=["faithfulness"],
        judges={"a": "openai/m", "b": {"model": "openai/m", "api_key_env": "KEY_OF_B"}},
    )
    assert "sk-secret-of-b-123456" in config_secrets(config)


def test_judges_are_refused_on_ray_workers(tmp_path: Path) -> None:
    message = _error(tmp_path, "metrics: [faithfulness]\njudges: {mini: openai/b}\nexecutor: ray\n")
    assert "executor: local" in message

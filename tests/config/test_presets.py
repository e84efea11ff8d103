"""Tests for named metric presets: expansion in place when a config is read, the user's
own entry winning, unknown presets named with the list, and every preset's metrics
being metrics the registry knows and can build."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

import ragjudge as rj
from ragjudge.cli import app
from ragjudge.config import PRESETS, ConfigError, EvalConfig, load_config
from ragjudge.config._presets import Preset
from ragjudge.metrics._registry import available_metrics
from ragjudge.run._preparation import build_metrics

runner = CliRunner()


def _config(tmp_path: Path, metrics: str) -> Path:
    path = tmp_path / "eval.yaml"
    path.write_text(f"data: set.jsonl\nmetrics:\n{metrics}", encoding="utf-8")
    return path


def test_a_preset_expands_into_its_metrics_in_place(tmp_path: Path) -> None:
    config = load_config(_config(tmp_path, "  - rouge_l\n  - preset: lexical\n  - safety\n"))

    assert config.metrics == [
        "rouge_l",
        "exact_match",
        "token_f1",
        "word_recall",
        "safety",
    ]


def test_a_metric_listed_by_the_user_wins_over_the_presets_entry(tmp_path: Path) -> None:
    text = "  - preset: rag-with-reference\n  - {metric: answer_accuracy, k: 3}\n"

    config = load_config(_config(tmp_path, text))

    accuracy = [m for m in config.metrics if isinstance(m, dict)]
    assert accuracy == [{"metric": "answer_accuracy", "k": 3}]
    assert config.metrics[:3] == ["faithfulness", "context_recall", "context_precision"]


def test_a_metric_two_presets_share_is_kept_once(tmp_path: Path) -> None:
    text = "  - preset: rag-without-reference\n  - preset: answer-without-reference\n"

    config = load_config(_config(tmp_path, text))

    assert config.metrics.count("relevance_to_query") == 1
    assert config.metrics == [
        "relevance_to_query",
        "faithfulness",
        "context_utilization",
        "likert",
        "safety",
    ]


def test_an_unknown_preset_names_the_file_and_lists_the_presets(tmp_path: Path) -> None:
    path = _config(tmp_path, "  - preset: rag-with-references\n")

    with pytest.raises(ConfigError) as info:
        load_config(path)

    message = str(info.value)
    assert str(path) in message and "metrics" in message
    assert "unknown preset 'rag-with-references'" in message
    assert "did you mean 'rag-with-reference'" in message
    assert all(p.name in message for p in PRESETS)


def test_a_preset_entry_with_options_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="takes no other keys \\(k\\)"):
        load_config(_config(tmp_path, "  - {preset: lexical, k: 3}\n"))


def test_the_run_command_exits_2_on_an_unknown_preset(tmp_path: Path) -> None:
    path = _config(tmp_path, "  - preset: nope\n")

    result = runner.invoke(app, ["run", str(path), "--dry-run"])

    assert result.exit_code == 2
    assert "unknown preset 'nope'" in result.stderr
    assert "Traceback" not in result.output + result.stderr


@pytest.mark.parametrize("preset", PRESETS, ids=lambda p: p.name)
def test_every_preset_names_registered_metrics_that_build(preset: Preset) -> None:
    config = EvalConfig(data="set.jsonl", metrics=[{"preset": preset.name}])

    names = {m if isinstance(m, str) else m["metric"] for m in config.metrics}
    assert names <= set(available_metrics())
    built = build_metrics(config.metrics)
    assert [m.name for m in built] == [p.name for p in preset.metrics]


def test_metrics_presets_lists_every_preset_with_its_reasons() -> None:
    result = runner.invoke(app, ["metrics", "--presets", "--json"])

    assert result.exit_code == 0
    listed = json.loads(result.stdout)
    assert [p["name"] for p in listed] == [p.name for p in PRESETS]
    assert all(m["why"] for p in listed for m in p["metrics"])


def test_evaluate_takes_a_preset_beside_a_function_metric(tmp_path: Path) -> None:
    def brevity(sample: object, output: rj.Output) -> float:
        return float(len((output.response or "").split()) <= 5)

    rows = [
        {
            "request": "Which join keeps every left row?",
            "response": "A LEFT JOIN.",
            "expected_response": "A LEFT JOIN.",
        },
        {
            "request": "What does UNION ALL keep?",
            "response": "Duplicates too.",
            "expected_response": "UNION ALL keeps duplicate rows.",
        },
    ]

    result = rj.evaluate(
        rows, metrics=[{"preset": "lexical"}, brevity], store=tmp_path / "runs.db", progress=False
    )

    summary = result.summary().set_index("metric")
    assert list(summary.index) == ["exact_match", "token_f1", "rouge_l", "word_recall", "brevity"]
    assert summary.loc["exact_match", "mean"] == 0.5
    assert summary.loc["brevity", "mean"] == 1.0


def test_evaluate_names_an_unknown_preset() -> None:
    with pytest.raises(ConfigError, match="metrics: unknown preset 'lexicon'"):
        rj.evaluate([{"request": "q", "response": "a"}], metrics=[{"preset": "lexicon"}])

"""HealthBench's 30 examples under ``rubric``: loaded as landed (rubrics with their
tags, example tags in the metadata), a dry run with one judge call per criterion, and
one score per axis and theme."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from conftest import shared_data
from ragjudge.cli import app
from ragjudge.loading import load_samples
from ragjudge.metrics import create_metric

CONFIG = Path(__file__).resolve().parents[2] / "examples" / "validation" / "healthbench-rubric.yaml"


def test_dry_run_makes_one_call_per_criterion(monkeypatch: pytest.MonkeyPatch) -> None:
    data = shared_data("healthbench", "healthbench_30.jsonl")
    criteria = sum(len(json.loads(line)["rubrics"]) for line in data.read_text().splitlines())
    assert criteria == 352
    for name in ("OPENAI_BASE_URL", "OPENAI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    result = CliRunner().invoke(app, ["run", str(CONFIG), "--dry-run", "--json"])
    assert result.exit_code == 0, result.output
    plan = json.loads(result.output)
    assert plan["errors"] == [] and plan["samples"] == 30 and plan["target_calls"] == 30
    (rubric,) = plan["by_metric"]
    assert rubric["calls"] == criteria
    assert rubric["input_tokens"] > criteria * 200  # every prompt holds a conversation
    assert rubric["cost"] > 0


def test_axes_and_themes_get_scores_of_their_own() -> None:
    samples = load_samples(shared_data("healthbench", "healthbench_30.jsonl"))
    metric = create_metric({"metric": "rubric", "aggregate": "healthbench"})
    first = samples[0]
    assert first.rubric and first.rubric[0].tags == ["level:example", "axis:completeness"]
    assert first.metadata["example_tags"][0] == "theme:context_seeking"
    names = set(metric.meanings_for(samples))
    axes = {"completeness", "accuracy", "context_awareness", "communication_quality"}
    assert {f"rubric/axis:{a}" for a in axes} | {"rubric/axis:instruction_following"} <= names
    assert "rubric/theme:context_seeking" in metric.score_names_for(first)
    assert not any(n.startswith("rubric/level:") or "cluster:" in n for n in names)
    assert all(m.low == 0.0 and m.high == 1.0 for m in metric.meanings_for(samples).values())

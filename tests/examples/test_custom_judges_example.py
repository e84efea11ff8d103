"""The custom judges example (examples/custom-judges): the dry run prices one call per
sample and judge plus the one call that writes the steps; a run against the local
OpenAI-compatible test server stores each judge's verdicts, the tone judge's weighted by
the distribution the server sends, and the steps it wrote with every score."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from ragjudge.cli import app
from ragjudge.models.scripted import ReplyScript
from ragjudge.store import Store
from ragjudge.testing.server import OpenAITestServer

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "custom-judges"
REPLIES = ReplyScript(
    rules=[
        ("prepare the work of a judge", "1. Note the register.\n2. Look for dismissive words."),
        ("敬語", "文末が丁寧です。\nFinal answer: 丁寧"),
        ("reference answer", "Rationale: the same fact.\nAnswer: yes"),
    ],
    default="Courteous.\n[RESULT] 4",
)


def invoke(*args: str) -> Any:
    result = CliRunner().invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def test_the_dry_run_counts_the_steps_call_once(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OPENAI_BASE_URL", "OPENAI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    plan = invoke("run", str(EXAMPLE / "eval.yaml"), "--dry-run", "--json")

    calls = {p["purpose"]: p["calls"] for p in plan["by_metric"]}
    assert calls == {"tone": 4, "tone (steps)": 1, "politeness": 4, "grounded_in_reference": 4}


def test_a_run_stores_every_judges_verdicts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    chances = {"4": {"4": 0.5, "5": 0.3, "3": 0.2}}
    server = OpenAITestServer(replies=REPLIES, token_alternatives=chances)
    store = str(tmp_path / "runs.db")
    with server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "test-key")
        monkeypatch.setenv("RAGJUDGE_CACHE", str(tmp_path / "cache.db"))
        summary = invoke(
            "run", str(EXAMPLE / "eval.yaml"), "--store", store, "--json", "--no-progress"
        )

    assert summary["exit_code"] == 0 and summary["errors_by_cause"] == []
    with Store(store) as opened:
        scores = [s for _, _, s in opened.scores(str(summary["run_id"]))]
    by_name: dict[str, list[Any]] = {}
    for score in scores:
        by_name.setdefault(score.metric, []).append(score)
    assert [s.value for s in by_name["politeness"]] == [1.0] * 4
    assert [s.value for s in by_name["grounded_in_reference"]] == [1.0] * 4
    weighted = 4 * 0.5 + 5 * 0.3 + 3 * 0.2  # 4.1
    for score in by_name["tone"]:
        assert score.value == pytest.approx(weighted) and score.details["passed"] is True
        assert score.details["steps"] == ["Note the register.", "Look for dismissive words."]

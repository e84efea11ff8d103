"""The Databricks example: the seed's Spark evaluation set with facts, guidelines,
expected documents and a row that holds only MLflow's trace, runnable with ``--dry-run``
without any judge endpoint, and against one named by ``OPENAI_BASE_URL`` (the local
OpenAI-compatible test server)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from ragjudge.cli import app
from ragjudge.loading import load_samples
from ragjudge.models.scripted import ReplyScript
from ragjudge.testing.server import OpenAITestServer

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "databricks"


def rows() -> list[dict[str, Any]]:
    text = (EXAMPLE / "evalset.jsonl").read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def test_the_traced_row_holds_the_shipped_trace() -> None:
    traced = next(r for r in rows() if r["request_id"] == "traced")
    assert set(traced) == {"request_id", "request", "trace"}
    assert traced["trace"] == json.loads((EXAMPLE / "trace.json").read_text(encoding="utf-8"))


def test_the_set_shows_every_request_form_and_input() -> None:
    samples = {s.request_id: s for s in load_samples(EXAMPLE / "evalset.jsonl")}
    assert isinstance(samples["reduce"].request.original, str)
    assert samples["shuffle"].request.original["messages"]  # type: ignore[index]
    assert samples["broadcast"].request.history
    assert "last_user_request" in samples["history"].request.query
    assert samples["reduce"].guidelines == {
        "english": ["The response must be in English"],
        "clarity": ["The response must be clear, coherent, and concise"],
    }
    assert isinstance(samples["shuffle"].guidelines, list)
    assert samples["reduce"].expected_facts and samples["shuffle"].expected_response
    assert samples["reduce"].expected_retrieved_context


def test_dry_run_without_an_endpoint(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OPENAI_BASE_URL", "OPENAI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    result = CliRunner().invoke(app, ["run", str(EXAMPLE / "eval.yaml"), "--dry-run", "--json"])
    assert result.exit_code == 0, result.output
    plan = json.loads(result.output)
    assert plan["errors"] == [] and plan["target_calls"] == 0
    calls = {p["purpose"]: p["calls"] for p in plan["by_metric"]}
    # five rows; guideline sets: reduce 2 named + 2 global, shuffle 1 + 2, three rows 2 each;
    # chunks: reduce 2, shuffle 2, broadcast 1, traced 2 (from the trace's last retriever)
    assert calls == {
        "relevance_to_query": 5,
        "safety": 5,
        "groundedness": 4,
        "correctness": 2,
        "correctness.fact": 5,
        "guideline_adherence": 13,
        "chunk_relevance_precision": 7,
        "context_sufficiency": 3,
    }


def test_against_an_endpoint_named_by_openai_base_url(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    server = OpenAITestServer(replies=ReplyScript(default="Rationale: fine.\nAnswer: yes"))
    with server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "test-key")
        monkeypatch.setenv("RAGJUDGE_JUDGE_MODEL", server.model_id)
        args = ["run", str(EXAMPLE / "eval.yaml"), "--store", str(tmp_path / "runs.db")]
        result = CliRunner().invoke(app, [*args, "--json", "--no-progress"])
        requests = len(server.requests_log)
    assert result.exit_code == 0, result.output
    summary = {m["metric"]: m for m in json.loads(result.output)["metrics"]}
    overall = summary["response/overall_assessment/rating"]
    assert (overall["mean"], overall["n"], overall["errors"]) == (1.0, 5, 0)
    assert summary["retrieval/llm_judged/context_sufficiency/rating"]["skipped"] == 2
    # the 44 judge calls of the dry run less the 2 guideline calls whose prompt another
    # call of the run made at the same time (sent once), and the pre-flight question
    assert requests == 44 - 2 + 1

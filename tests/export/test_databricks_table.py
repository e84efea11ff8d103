"""The Databricks layout of a run: the ``eval_results`` columns and the MLflow metric
names exactly as Databricks Agent Evaluation documents them (its judges' pages and
its evaluation output schema), yes/no ratings as ``"yes"``/``"no"`` with their
rationales beside them, chunk relevance as per-chunk lists beside the precision."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

import ragjudge as rj
from ragjudge.analysis._results import EvaluationResult
from ragjudge.cli import app
from ragjudge.export._databricks_table import aggregate_name
from ragjudge.export._files import databricks_frame
from ragjudge.export._mlflow import metric_values
from ragjudge.models.scripted import ReplyScript, ScriptedProvider
from ragjudge.schema import ScoreMeaning
from ragjudge.store import Store

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "databricks" / "evalset.jsonl"
JUDGES = [
    "response/llm_judged/relevance_to_query",
    "response/llm_judged/safety",
    "response/llm_judged/groundedness",
    "response/llm_judged/correctness",
    "response/llm_judged/guideline_adherence/english",
    "response/llm_judged/guideline_adherence/clarity",
    "response/llm_judged/global_guideline_adherence/english",
]
EXPECTED_COLUMNS = [
    "request_id",
    "request",
    "response",
    "retrieved_context",
    "expected_response",
    "expected_facts",
    "expected_retrieved_context",
    "guidelines",
    "trace",
    *[f"{judge}/{part}" for judge in JUDGES for part in ("rating", "rationale")],
    "retrieval/llm_judged/chunk_relevance/ratings",
    "retrieval/llm_judged/chunk_relevance/rationales",
    "retrieval/llm_judged/chunk_relevance/precision",
    "retrieval/llm_judged/context_sufficiency/rating",
    "retrieval/llm_judged/context_sufficiency/rationale",
    "retrieval/ground_truth/document_recall",
    "retrieval/ground_truth/document_recall/rationale",
    "agent/total_token_count",
    "agent/total_input_token_count",
    "agent/total_output_token_count",
    "agent/latency_seconds",
    "response/overall_assessment/rating",
    "response/overall_assessment/rationale",
    "response/llm_judged/guideline_adherence/rating",
    "response/llm_judged/guideline_adherence/rationale",
]
EXPECTED_AGGREGATES = {
    "response/llm_judged/relevance_to_query/rating/percentage",
    "response/llm_judged/safety/rating/average",
    "response/llm_judged/groundedness/rating/percentage",
    "response/llm_judged/correctness/rating/percentage",
    "response/llm_judged/guideline_adherence/rating/percentage",
    "response/llm_judged/guideline_adherence/english/rating/percentage",
    "response/llm_judged/guideline_adherence/clarity/rating/percentage",
    "response/llm_judged/global_guideline_adherence/english/rating/percentage",
    "retrieval/llm_judged/chunk_relevance/precision/average",
    "retrieval/llm_judged/context_sufficiency/rating/percentage",
    "retrieval/ground_truth/document_recall/average",
    "agent/total_token_count/average",
    "agent/total_input_token_count/average",
    "agent/total_output_token_count/average",
    "agent/latency_seconds/average",
    "response/overall_assessment/rating/percentage",
}


@pytest.fixture(scope="module")
def result(tmp_path_factory: pytest.TempPathFactory) -> EvaluationResult:
    judge = ScriptedProvider(
        ReplyScript(rules=[("AMPLab|spark/tuning", "Off topic.\nAnswer: no")], default="Yes.")
    )
    return rj.evaluate(
        str(EXAMPLE),
        metrics=[{"metric": "databricks", "global_guidelines": {"english": ["In English."]}}],
        judge=judge,
        store=tmp_path_factory.mktemp("dbx") / "runs.db",
        progress=False,
    )


def table(result: EvaluationResult) -> list[dict[str, object]]:
    with Store(result.store_path) as store:
        frame = databricks_frame(store, result.run_id)
    assert list(frame.columns) == EXPECTED_COLUMNS
    return [{str(k): v for k, v in row.items()} for row in frame.to_dict(orient="records")]


def test_the_table_has_databricks_columns_and_yes_no_ratings(result: EvaluationResult) -> None:
    rows = {str(row["request_id"]): row for row in table(result)}
    assert len(rows) == 5
    ratings = {
        row[f"{judge}/rating"]
        for row in rows.values()
        for judge in JUDGES
        if row[f"{judge}/rating"]
    }
    assert ratings == {"yes", "no"}
    first = rows["reduce"]
    assert first["response/llm_judged/correctness/rating"] == "yes"
    assert first["response/llm_judged/correctness/rationale"] == "all 3 expected facts are present"
    assert first["retrieval/llm_judged/chunk_relevance/ratings"] == ["yes", "yes"]
    assert first["retrieval/llm_judged/chunk_relevance/precision"] == 1.0
    contexts = first["retrieved_context"]
    assert isinstance(contexts, list) and all(set(c) == {"doc_uri", "content"} for c in contexts)
    assert [c["doc_uri"] for c in contexts] == [
        "spark/rdd-reduce-by-key.md",
        "spark/rdd-group-by-key.md",
    ]
    said_no = [r for r in rows.values() if r["response/overall_assessment/rating"] == "no"]
    assert said_no and all(r["response/overall_assessment/rationale"] for r in said_no)


def test_a_judge_without_its_input_leaves_its_rating_empty(result: EvaluationResult) -> None:
    rows = {str(row["request_id"]): row for row in table(result)}
    no_expected = [
        r for r in rows.values() if not r["expected_facts"] and not r["expected_response"]
    ]
    assert no_expected
    for row in no_expected:
        assert row["response/llm_judged/correctness/rating"] is None


def test_mlflow_metrics_carry_exactly_the_documented_aggregate_names(
    result: EvaluationResult,
) -> None:
    names = set(metric_values(result))
    aggregates = {n for n in names if not n.endswith(("/ci_low", "/ci_high"))}
    assert aggregates == EXPECTED_AGGREGATES
    bounds = {n for n in names if n.endswith(("/ci_low", "/ci_high"))}
    assert "response/llm_judged/safety/rating/ci_low" in bounds
    summaries = {s.metric: s for s in result.summaries}
    assert metric_values(result)["response/llm_judged/safety/rating/average"] == (
        summaries["response/llm_judged/safety/rating"].mean
    )


def test_only_safety_averages_a_yes_no_rating() -> None:
    yes_no = ScoreMeaning(binary=True)
    assert aggregate_name("response/llm_judged/safety/rating", yes_no).endswith("/average")
    assert aggregate_name("response/llm_judged/groundedness/rating", yes_no).endswith("/percentage")
    assert aggregate_name("agent/latency_seconds", ScoreMeaning()).endswith("/average")


def test_the_cli_writes_the_databricks_layout_and_refuses_with_calls(
    result: EvaluationResult, tmp_path: Path
) -> None:
    args = ["export", result.run_id, "--store", str(result.store_path), "--layout", "databricks"]
    out = tmp_path / "eval_results.jsonl"
    written = CliRunner().invoke(app, [*args, "-o", str(out)])
    assert written.exit_code == 0, written.output
    lines = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert len(lines) == 5 and list(lines[0]) == EXPECTED_COLUMNS
    refused = CliRunner().invoke(app, [*args, "-o", str(out), "--with-calls"])
    assert refused.exit_code == 2
    assert "leave it out with --layout databricks" in refused.output

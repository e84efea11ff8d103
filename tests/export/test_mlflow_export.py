"""Logging runs to a real local MLflow tracking store, read back with MLflow's own
client: the metrics, params and the ``eval_results`` table equal ragjudge's. The tests
that need MLflow skip, saying so, when the ``mlflow`` extra is not installed."""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from typer.testing import CliRunner

import ragjudge as rj
from ragjudge._util.known_secrets import register_secrets
from ragjudge.analysis._results import EvaluationResult
from ragjudge.cli import app
from ragjudge.export._files import databricks_frame
from ragjudge.export._mlflow import (
    EVAL_RESULTS,
    MlflowExportError,
    export_to_mlflow,
    metric_values,
    mlflow_name,
)
from ragjudge.models.scripted import ReplyScript, ScriptedProvider
from ragjudge.store._store import Store

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "databricks"
GLOBAL = {"english": ["The response must be in English"], "clarity": ["Be clear"]}
NO_MLFLOW = "the mlflow extra is not installed (pip install 'ragjudge[mlflow]')"


@pytest.fixture(scope="module")
def mlflow() -> Any:
    return pytest.importorskip("mlflow", reason=NO_MLFLOW)


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A folder to work in: MLflow puts the artifacts of a SQLite store under ./mlruns."""
    folder = tmp_path_factory.mktemp("mlflow")
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(folder)
        yield folder


@pytest.fixture(scope="module")
def result(workdir: Path) -> EvaluationResult:
    judge = ScriptedProvider(
        ReplyScript(rules=[("AMPLab|spark/tuning", "Rationale: off.\nAnswer: no")], default="Yes.")
    )
    return rj.evaluate(
        str(EXAMPLE / "evalset.jsonl"),
        metrics=[{"metric": "databricks", "global_guidelines": GLOBAL}],
        judge=judge,
        store=workdir / "runs.db",
        name="spark-example",
        progress=False,
    )


def tracking(workdir: Path, name: str) -> str:
    return f"sqlite:///{workdir / name}"


def comparable(frame: pd.DataFrame) -> pd.DataFrame:
    """Missing values as None (JSON reads an all-empty column back as NaN)."""
    return frame.astype(object).where(frame.notna(), None)


def test_log_to_mlflow_reads_back_equal(
    mlflow: Any, workdir: Path, result: EvaluationResult, monkeypatch: pytest.MonkeyPatch
) -> None:
    uri = tracking(workdir, "api.db")
    # MLflow's load_table downloads through the default tracking URI, not the client's
    monkeypatch.setenv("MLFLOW_TRACKING_URI", uri)
    logged = rj.log_to_mlflow(result, tracking_uri=uri)
    client = mlflow.MlflowClient(tracking_uri=uri)
    run = client.get_run(logged.run_id)

    summaries = {s.metric: s for s in result.summaries}
    relevance = summaries["response/llm_judged/relevance_to_query/rating"]
    metrics = run.data.metrics
    assert metrics == metric_values(result) == logged.metrics
    assert metrics["response/llm_judged/relevance_to_query/rating/percentage"] == relevance.mean
    assert relevance.ci is not None
    assert metrics["response/llm_judged/relevance_to_query/rating/ci_low"] == relevance.ci.low
    assert metrics["response/llm_judged/relevance_to_query/rating/ci_high"] == relevance.ci.high
    assert (
        metrics["response/llm_judged/global_guideline_adherence/clarity/rating/percentage"] == 0.8
    )
    recall = summaries["retrieval/ground_truth/document_recall"].mean
    assert metrics["retrieval/ground_truth/document_recall/average"] == recall
    assert metrics["agent/total_token_count/average"] == 93.0
    assert "response/overall_assessment/rating/percentage" in metrics

    params = run.data.params
    assert re.fullmatch(r"[0-9a-f]{64}", params["dataset_digest"])
    assert params["judge_model"] == "scripted/scripted"  # as the judge calls name it
    assert params["n_samples"] == "5" and params["trials"] == "1"
    assert json.loads(params["config.metrics"])[0]["global_guidelines"] == GLOBAL
    assert run.data.tags["ragjudge.run_id"] == result.run_id
    assert run.info.status == "FINISHED" and run.info.run_name == "spark-example"
    assert client.get_experiment(run.info.experiment_id).name == "spark-example"

    table = client.load_table(run.info.experiment_id, EVAL_RESULTS, run_ids=[logged.run_id])
    with Store(result.store_path) as store:
        ours = databricks_frame(store, result.run_id)
    assert list(table.columns) == list(ours.columns) and len(table) == len(ours) == 5
    # MLflow writes tables as JSON with 10 significant digits
    pd.testing.assert_frame_equal(comparable(table), comparable(ours), check_exact=False, rtol=1e-9)
    files = {f.path for f in client.list_artifacts(logged.run_id, "ragjudge")}
    assert files == {"ragjudge/config.json", "ragjudge/summary.json"}


def test_the_cli_logs_once_to_the_uri_of_the_environment(
    mlflow: Any, workdir: Path, result: EvaluationResult, monkeypatch: pytest.MonkeyPatch
) -> None:
    uri = tracking(workdir, "cli.db")
    monkeypatch.setenv("MLFLOW_TRACKING_URI", uri)
    report = workdir / "report.html"
    report.write_text("<html><body>run report</body></html>", encoding="utf-8")
    args = ["export", result.run_id, "--store", str(result.store_path), "--to", "mlflow"]

    first = CliRunner().invoke(app, [*args, "--experiment", "cli", "--report", str(report)])
    assert first.exit_code == 0, first.output
    assert "logged run" in first.output and EVAL_RESULTS in first.output
    client = mlflow.MlflowClient(tracking_uri=uri)
    experiment = client.get_experiment_by_name("cli")
    (run,) = client.search_runs([experiment.experiment_id])
    assert run.data.metrics == metric_values(result)
    assert "report.html" in {f.path for f in client.list_artifacts(run.info.run_id)}

    again = CliRunner().invoke(app, [*args, "--experiment", "cli"])
    assert again.exit_code == 2
    assert f"already logged to MLflow as run {run.info.run_id}" in again.output
    assert len(client.search_runs([experiment.experiment_id])) == 1


def test_secrets_this_process_knows_are_masked_in_what_is_logged(
    mlflow: Any, workdir: Path, result: EvaluationResult, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a store written before the secrets were known (by an older version) still holds them
    uri = tracking(workdir, "secrets.db")
    monkeypatch.setenv("MLFLOW_TRACKING_URI", uri)
    register_secrets(["must be in English", "aggregates data before shuffling"])
    logged = rj.log_to_mlflow(result, tracking_uri=uri)
    client = mlflow.MlflowClient(tracking_uri=uri)
    run = client.get_run(logged.run_id)
    assert json.loads(run.data.params["config.metrics"])[0]["global_guidelines"] == {
        "english": ["The response ***"],
        "clarity": ["Be clear"],
    }
    table = client.load_table(run.info.experiment_id, EVAL_RESULTS, run_ids=[logged.run_id])
    assert table["response"].str.startswith("reduceByKey ***, whereas").any()
    config = Path(client.download_artifacts(logged.run_id, "ragjudge/config.json", str(workdir)))
    assert "must be in English" not in config.read_text(encoding="utf-8")
    assert "aggregates data before shuffling" not in table.to_csv()
    traces = client.search_traces(locations=[run.info.experiment_id], run_id=logged.run_id)
    logged_rows = json.dumps([t.to_dict() for t in traces])
    assert len(traces) == 5 and "reduceByKey ***, whereas" in logged_rows
    assert "aggregates data before shuffling" not in logged_rows


def test_cli_mistakes_are_messages(result: EvaluationResult) -> None:
    base = ["export", result.run_id, "--store", str(result.store_path)]
    cases = {
        "--tracking-uri go(es) with --to mlflow": [*base, "-o", "x.jsonl", "--tracking-uri", "u"],
        "give the file to write (-o FILE)": base,
        "--to mlflow writes no file": [*base, "--to", "mlflow", "-o", "x.jsonl"],
        "no report at": [*base, "--to", "mlflow", "--report", "missing.html"],
        "no run 'nope'": ["export", "nope", "--store", str(result.store_path), "--to", "mlflow"],
    }
    for message, args in cases.items():
        outcome = CliRunner().invoke(app, args)
        assert outcome.exit_code == 2 and message in outcome.output, (message, outcome.output)
        assert "Traceback" not in outcome.output


def test_without_mlflow_the_error_says_how_to_install_it(
    result: EvaluationResult, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "mlflow.tracking", None)
    with (
        Store(result.store_path) as store,
        pytest.raises(MlflowExportError, match=r"ragjudge\[mlflow\]"),
    ):
        export_to_mlflow(store, result.run_id)


def test_mlflows_own_failure_is_an_export_error(mlflow: Any, result: EvaluationResult) -> None:
    with (
        Store(result.store_path) as store,
        pytest.raises(MlflowExportError, match=r"MLflow: .*unsupported URI 'nosuchscheme://x'"),
    ):
        export_to_mlflow(store, result.run_id, tracking_uri="nosuchscheme://x")


def test_a_missing_report_is_an_export_error(result: EvaluationResult, tmp_path: Path) -> None:
    missing = tmp_path / "missing.html"
    with (
        Store(result.store_path) as store,
        pytest.raises(MlflowExportError, match=f"no report at {re.escape(str(missing))}"),
    ):
        export_to_mlflow(store, result.run_id, report=missing)


@pytest.mark.parametrize(
    ("name", "logged"),
    [
        ("response/llm_judged/safety/rating", "response/llm_judged/safety/rating"),
        ("v2.agent/latency_seconds", "v2.agent/latency_seconds"),
        (
            "response/llm_judged/guideline_adherence/日本語/rating",
            "response/llm_judged/guideline_adherence/日本語/rating",
        ),
        (
            "response/llm_judged/guideline_adherence/tone (formal)+/rating",
            "response/llm_judged/guideline_adherence/tone _formal__/rating",
        ),
        ("a//../b/./c", "a/_/_/b/_/c"),
    ],
)
def test_names_mlflow_accepts(name: str, logged: str) -> None:
    assert mlflow_name(name) == logged


def test_a_long_name_is_cut_with_a_digest() -> None:
    long = "response/llm_judged/guideline_adherence/" + "x" * 300 + "/rating"
    cut = mlflow_name(long)
    assert len(cut) + len("/percentage") <= 250 and cut != mlflow_name(long + "y")

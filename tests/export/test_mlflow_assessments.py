"""The rows of a run logged to MLflow, read back with MLflow's own client: one trace per
row linked to the run, each score a feedback equal to ragjudge's (value, rationale, the
judge model as source), the evaluation set as the run's dataset input, and the run
chosen as ``mlflow.evaluate`` chooses it (the active run, else a new one)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import ragjudge as rj
from ragjudge.analysis._results import EvaluationResult
from ragjudge.export._mlflow import dataset_digest
from ragjudge.export._mlflow_traces import CODE_SOURCE, _feedback, feedback_value
from ragjudge.models.scripted import ReplyScript, ScriptedProvider
from ragjudge.schema import Score, ScoreMeaning
from ragjudge.store._store import Store

RELEVANCE = "response/llm_judged/relevance_to_query/rating"
EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "databricks"
NO_MLFLOW = "the mlflow extra is not installed (pip install 'ragjudge[mlflow]')"


@pytest.fixture(scope="module")
def mlflow() -> Any:
    return pytest.importorskip("mlflow", reason=NO_MLFLOW)


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A folder to work in: MLflow puts the artifacts of a SQLite store under ./mlruns."""
    folder = tmp_path_factory.mktemp("mlflow-rows")
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(folder)
        yield folder


@pytest.fixture
def global_uri(mlflow: Any, workdir: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """A tracking store made MLflow's global one for one test, then put back."""
    uri = f"sqlite:///{workdir / 'global.db'}"
    monkeypatch.setenv("MLFLOW_TRACKING_URI", uri)
    mlflow.set_tracking_uri(uri)
    try:
        yield uri
    finally:
        while mlflow.active_run() is not None:
            mlflow.end_run()
        # back to no URI set in this process: MLflow also unsets the variable it had set
        mlflow.set_tracking_uri(None)
        mlflow.tracking.fluent._active_experiment_id = None


@pytest.fixture(scope="module")
def result(workdir: Path) -> EvaluationResult:
    judge = ScriptedProvider(
        ReplyScript(rules=[("AMPLab", "Rationale: off topic.\nAnswer: no")], default="Yes.")
    )
    return rj.evaluate(
        str(EXAMPLE / "evalset.jsonl"),
        metrics=["relevance_to_query", "token_f1"],
        judge=judge,
        store=workdir / "runs.db",
        name="rows-example",
        skip_invalid_rows=True,
        progress=False,
    )


@pytest.fixture(scope="module")
def logged(mlflow: Any, workdir: Path, result: EvaluationResult) -> tuple[Any, Any]:
    uri = f"sqlite:///{workdir / 'rows.db'}"
    return mlflow.MlflowClient(tracking_uri=uri), rj.log_to_mlflow(result, tracking_uri=uri)


def traces_of(client: Any, run: Any) -> dict[str, Any]:
    """The run's traces by ragjudge request id."""
    found = client.search_traces(locations=[run.experiment_id], run_id=run.run_id)
    return {t.info.trace_metadata["ragjudge.request_id"]: t for t in found}


def test_every_row_has_a_trace_linked_to_the_run(
    result: EvaluationResult, logged: tuple[Any, Any]
) -> None:
    client, run = logged
    traces = traces_of(client, run)
    with Store(result.store_path) as store:
        samples = store.samples(result.run_id)
    assert set(traces) == {s.request_id for s in samples}
    assert run.traces == len(samples) == 5
    for trace in traces.values():
        assert trace.info.trace_metadata["mlflow.sourceRun"] == run.run_id
        assert trace.info.experiment_id == run.experiment_id
    built = traces["reduce"]
    root = built.data._get_root_span()
    assert root.inputs == {"request": samples[0].request.original}
    assert root.outputs == samples[0].response
    # the row's own trace is copied under a new id, its retriever span kept
    copied = traces["traced"]
    assert copied.info.trace_id != "tr-e99fcee996699df3360d91a4209757d9"
    assert [s.span_type for s in copied.data.spans].count("RETRIEVER") >= 1


def test_each_score_is_a_feedback_equal_to_ragjudges(
    result: EvaluationResult, logged: tuple[Any, Any]
) -> None:
    client, run = logged
    traces = traces_of(client, run)
    with Store(result.store_path) as store:
        stored = store.scores(result.run_id)
    assert any(s.skipped for _, _, s in stored)  # a row without a reference
    for request_id, _trial, score in stored:
        if score.skipped:
            assert score.metric not in {a.name for a in traces[request_id].info.assessments}
            continue
        feedback = [a for a in traces[request_id].info.assessments if a.name == score.metric]
        assert len(feedback) == 1, (request_id, score.metric)
        got = feedback[0]
        assert got.metadata["mlflow.assessment.sourceRunId"] == run.run_id
        if score.metric == RELEVANCE:
            assert got.value == ("yes" if score.value == 1.0 else "no")
            assert got.rationale == score.rationale
            assert got.source.source_type == "LLM_JUDGE"
            assert got.source.source_id == "scripted/scripted"
        else:
            assert got.value == pytest.approx(score.value)
            assert got.source.source_type == "CODE" and got.source.source_id == CODE_SOURCE
    verdicts = {
        rid: a.value for rid, t in traces.items() for a in t.info.assessments if a.name == RELEVANCE
    }
    assert verdicts["history"] == "no" and verdicts["reduce"] == "yes"


def test_the_evaluation_set_is_the_runs_dataset_input(
    result: EvaluationResult, logged: tuple[Any, Any]
) -> None:
    client, run = logged
    inputs = client.get_run(run.run_id).inputs.dataset_inputs
    assert len(inputs) == 1
    with Store(result.store_path) as store:
        digest = dataset_digest(store, result.run_id)
    assert inputs[0].dataset.digest == digest[:36]
    assert {(t.key, t.value) for t in inputs[0].tags} == {("mlflow.data.context", "evaluation")}
    profile = json.loads(inputs[0].dataset.profile)
    assert profile["num_rows"] == 5


def test_a_row_whose_trace_the_server_holds_gets_its_feedback_on_that_trace(
    mlflow: Any, workdir: Path, global_uri: str
) -> None:
    uri = global_uri
    mlflow.set_experiment("app")
    with mlflow.start_span(name="app", span_type="CHAIN") as span:
        span.set_inputs({"question": "What does Spark cache?"})
        span.set_outputs("Spark caches RDDs in memory.")
    trace = mlflow.get_trace(span.trace_id, flush=True)
    row = {"request_id": "q1", "request": "What does Spark cache?", "trace": trace.to_dict()}
    run = rj.evaluate(
        [row],
        metrics=["relevance_to_query"],
        judge=ScriptedProvider(ReplyScript(default="Yes.")),
        store=workdir / "known-runs.db",
        name="app",  # logged to the experiment of the app's traces
        progress=False,
    )
    logged = rj.log_to_mlflow(run, tracking_uri=uri)
    again = mlflow.MlflowClient(uri).get_trace(span.trace_id)
    names = {a.name: a.value for a in again.info.assessments}
    assert names == {RELEVANCE: "yes"}
    assert again.info.trace_metadata.get("mlflow.sourceRun") is None  # the app's trace, linked
    linked = mlflow.MlflowClient(uri).search_traces(
        locations=[logged.experiment_id], run_id=logged.run_id
    )
    assert [t.info.trace_id for t in linked] == [span.trace_id]


def test_an_open_run_is_logged_into_and_a_second_export_nests(
    mlflow: Any, workdir: Path, result: EvaluationResult, global_uri: str
) -> None:
    uri = global_uri
    mlflow.set_experiment("mine")
    second = rj.evaluate(
        str(EXAMPLE / "evalset.jsonl"),
        metrics=["token_f1"],
        store=workdir / "runs.db",
        skip_invalid_rows=True,
        progress=False,
    )
    with mlflow.start_run() as active:
        first_logged = rj.log_to_mlflow(result)
        second_logged = rj.log_to_mlflow(second)
        assert mlflow.active_run().info.run_id == active.info.run_id
    client = mlflow.MlflowClient(uri)
    assert first_logged.run_id == active.info.run_id
    assert client.get_run(active.info.run_id).info.status == "FINISHED"
    child = client.get_run(second_logged.run_id)
    assert child.data.tags["mlflow.parentRunId"] == active.info.run_id
    assert child.data.tags["ragjudge.run_id"] == second.run_id
    assert child.info.experiment_id == active.info.experiment_id


def test_a_failed_score_is_a_feedback_with_its_error_and_no_value(mlflow: Any) -> None:
    failed = _feedback(Score.failed("faithfulness", "judge timed out"), 0, None, {}, "run1")
    assert failed.value is None
    assert failed.error.error_message == "judge timed out"
    skipped = Score.not_applicable("faithfulness", "no retrieved context")
    assert _feedback(skipped, 0, None, {}, "run1") is None
    judged = Score(metric="faithfulness", value=0.0, rationale="r", judge_call_ids=[3, 4])
    feedback = _feedback(judged, 1, ScoreMeaning(binary=True), {3: "a/m", 4: "b/n"}, "run1")
    assert feedback.value == "no" and feedback.source.source_id == "a/m, b/n"
    assert feedback.metadata["ragjudge.trial"] == "1"
    assert feedback_value(0.75, ScoreMeaning()) == 0.75

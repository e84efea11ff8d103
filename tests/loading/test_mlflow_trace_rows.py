"""MLflow traces as an evaluation set: traces made with MLflow's own tracing (a chain
with a retriever span) in a SQLite tracking store, read from ``mlflow.search_traces()``'s
frame and straight from the store as ``mlflow:EXPERIMENT``, then evaluated end to end
with the scripted judge."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import ragjudge as rj
from ragjudge.errors import DatasetError
from ragjudge.loading import load_samples
from ragjudge.loading._mlflow_traces import record_of_trace
from ragjudge.models.scripted import ReplyScript, ScriptedProvider

NO_MLFLOW = "the mlflow extra is not installed (pip install 'ragjudge[mlflow]')"
QUESTIONS = {
    "What does Spark cache?": ("Spark caches RDDs in memory.", "spark/cache"),
    "What is a broadcast variable?": ("A read-only value sent to every executor.", "spark/bc"),
}


@pytest.fixture(scope="module")
def mlflow() -> Any:
    return pytest.importorskip("mlflow", reason=NO_MLFLOW)


@pytest.fixture(scope="module")
def store_uri(mlflow: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A SQLite tracking store with one traced call of a small RAG app per question."""
    folder = tmp_path_factory.mktemp("traces")
    uri = f"sqlite:///{folder / 'mlflow.db'}"
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(folder)
        patch.setenv("MLFLOW_TRACKING_URI", uri)
        mlflow.set_tracking_uri(uri)
        try:
            mlflow.set_experiment("rag-app")
            ids = [_answer(mlflow, q) for q in QUESTIONS]
            for trace_id in ids:
                assert mlflow.get_trace(trace_id, flush=True) is not None
            yield uri
        finally:
            mlflow.set_tracking_uri(None)  # MLflow unsets the variable it had set
            mlflow.tracking.fluent._active_experiment_id = None


def _answer(mlflow: Any, question: str) -> str:
    answer, doc_uri = QUESTIONS[question]

    @mlflow.trace(span_type="RETRIEVER")
    def retrieve(query: str) -> list[dict[str, Any]]:
        return [{"page_content": f"About {query}", "metadata": {"doc_uri": doc_uri}}]

    @mlflow.trace(span_type="CHAIN")
    def app(question: str) -> str:
        retrieve(question)
        mlflow.update_current_trace(tags={"release": "v2"})
        return answer

    app(question)
    trace_id = mlflow.get_last_active_trace_id()
    assert trace_id is not None
    return str(trace_id)


def judge() -> ScriptedProvider:
    return ScriptedProvider(ReplyScript(default="Yes."))


def test_the_search_traces_frame_loads_one_row_per_trace(mlflow: Any, store_uri: str) -> None:
    frame = mlflow.search_traces(locations=[mlflow.get_experiment_by_name("rag-app").experiment_id])
    samples = {s.request.query: s for s in load_samples(frame)}
    assert set(samples) == set(QUESTIONS)
    for question, sample in samples.items():
        assert sample.request_id.startswith("tr-")
        assert sample.response == QUESTIONS[question][0]
        assert sample.metadata == {"release": "v2"}
        assert sample.trace["info"]["trace_id"] == sample.request_id


def test_traces_of_an_experiment_evaluate_end_to_end(store_uri: str, tmp_path: Path) -> None:
    result = rj.evaluate(
        f"mlflow:rag-app?tracking_uri={store_uri}",
        metrics=["relevance_to_query", "chunk_relevance_precision"],
        judge=judge(),
        store=tmp_path / "runs.db",
        progress=False,
    )
    frame = result.to_pandas()
    assert len(frame) == len(QUESTIONS)
    contexts = {c["doc_uri"] for text in frame["retrieved_context"] for c in json.loads(text)}
    assert contexts == {"spark/cache", "spark/bc"}  # read from the retriever spans
    summaries = {s.metric: s.mean for s in result.summaries}
    assert summaries["response/llm_judged/relevance_to_query/rating"] == 1.0


def test_the_server_form_takes_a_filter_and_a_limit(store_uri: str) -> None:
    one = load_samples(f"mlflow:rag-app?tracking_uri={store_uri}&max_results=1")
    assert len(one) == 1
    none = f"mlflow:rag-app?tracking_uri={store_uri}&filter=tags.release%3D'v9'"
    with pytest.raises(DatasetError, match="holds no trace that matches"):
        load_samples(none)


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("mlflow:nowhere", "no MLflow experiment named 'nowhere'"),
        ("mlflow:rag-app?limit=3", "unknown option 'limit'"),
        ("mlflow:rag-app?max_results=zero", "max_results must be a whole number"),
        ("mlflow:", "name the experiment"),
    ],
)
def test_a_bad_spec_is_named(store_uri: str, spec: str, message: str) -> None:
    with pytest.raises(DatasetError, match=message) as caught:
        load_samples(f"{spec}{'&' if '?' in spec else '?'}tracking_uri={store_uri}")
    assert caught.value.problems[0].source.startswith("mlflow:")


def test_a_root_span_input_becomes_the_request() -> None:
    def trace(inputs: str, outputs: str) -> dict[str, Any]:
        span = {
            "span_id": "a",
            "parent_span_id": None,
            "attributes": {"mlflow.spanInputs": inputs, "mlflow.spanOutputs": outputs},
        }
        return {"info": {"trace_id": "tr-1", "tags": {}}, "data": {"spans": [span]}}

    assert record_of_trace(trace('{"question": "Why?"}', '"Because."'))["request"] == "Why?"
    chat = record_of_trace(trace('{"messages": [{"role": "user", "content": "Hi"}]}', "{}"))
    assert chat["request"] == {"messages": [{"role": "user", "content": "Hi"}]}
    assert "response" not in chat  # an object: the data target reads it from the trace
    assert record_of_trace("not a trace") == {"trace": "not a trace"}

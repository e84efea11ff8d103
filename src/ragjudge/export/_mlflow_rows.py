"""The rows of a run logged to MLflow: the evaluation set as the run's dataset input
(:mod:`ragjudge.export._mlflow_dataset`) and each row's trace with its scores as
feedback (:mod:`ragjudge.export._mlflow_traces`)."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from ragjudge.analysis._meanings import run_meanings
from ragjudge.export._mlflow_dataset import log_dataset_input
from ragjudge.export._mlflow_traces import RowTraces, log_row_traces
from ragjudge.schema import Score
from ragjudge.store._store import RunInfo, Store

__all__ = ["log_rows"]


def log_rows(
    client: Any, store: Store, run: RunInfo, where: tuple[str, str], digest: str
) -> RowTraces:
    """Log the run's dataset input and its rows' traces and feedback into MLflow run
    ``where`` (run id, experiment id)."""
    mlflow_run_id, experiment_id = where
    samples = store.samples(run.run_id)
    log_dataset_input(client, mlflow_run_id, samples, run.name or run.run_id, digest)
    outputs = store.outputs(run.run_id)
    scores: dict[str, list[tuple[int, Score]]] = defaultdict(list)
    for request_id, trial, score in store.scores(run.run_id):
        scores[request_id].append((trial, score))
    rows = [(s, outputs.get(s.request_id), scores[s.request_id]) for s in samples]
    return log_row_traces(
        client, experiment_id, mlflow_run_id, rows, run_meanings(run), judge_of_calls(store, run)
    )


def judge_of_calls(store: Store, run: RunInfo) -> dict[int, str]:
    """The model that answered each judge call of the run (``provider/model``)."""
    calls = store.judge_calls(run.run_id)
    return {
        int(call_id): f"{provider}/{model}"
        for call_id, provider, model in zip(
            calls["call_id"], calls["provider"], calls["model"], strict=True
        )
    }

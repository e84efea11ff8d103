"""A run's per-row table as Databricks Agent Evaluation writes its ``eval_results``
table (``mlflow.evaluate(model_type="databricks-agent")``): the MLflow artifact
``eval_results.json`` and ``ragjudge export --layout databricks``.

One row per sample (and trial, with a ``trial`` column when the run has several):

- the inputs under the names of Databricks' input schema: ``request_id``, ``request``,
  ``response``, ``retrieved_context`` (a list of ``{doc_uri, content}``), and where the
  run has them ``expected_response``, ``expected_facts``, ``expected_retrieved_context``,
  ``guidelines``, ``trace``;
- a yes/no judge ``…/rating`` as ``"yes"`` or ``"no"``, its rationale in
  ``…/rationale`` and its failure in ``…/error_message``;
- chunk relevance as ``retrieval/llm_judged/chunk_relevance/ratings`` and
  ``…/rationales`` (a list per row, one entry per retrieved chunk) beside
  ``…/precision``;
- every other score (``retrieval/ground_truth/document_recall``,
  ``agent/total_token_count``, ``agent/latency_seconds``, ragjudge's own metrics) as its
  value, with ``NAME/rationale`` and ``NAME/error_message`` where it has them.

A score that does not apply to a row is empty there.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ragjudge._util.known_secrets import mask_secrets_in
from ragjudge.analysis._meanings import run_meanings
from ragjudge.schema import ContextChunk, Output, Sample, Score, ScoreMeaning
from ragjudge.store._store import RunInfo, Store

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["CHUNK_PRECISION", "aggregate_name", "databricks_table"]

CHUNK_PRECISION = "retrieval/llm_judged/chunk_relevance/precision"
_CHUNK_BASE = CHUNK_PRECISION.removesuffix("/precision")
_RATING = "/rating"
_INPUTS = (
    "request_id",
    "trial",
    "request",
    "response",
    "retrieved_context",
    "expected_response",
    "expected_facts",
    "expected_retrieved_context",
    "guidelines",
    "trace",
)
"""The input columns, first in the table in this order (those the run has)."""

_AVERAGED_RATINGS = frozenset({"response/llm_judged/safety/rating"})
"""Yes/no scores whose MLflow aggregate Databricks names ``/average`` (the share of yes
all the same), not ``/percentage``: safety, as its judge page lists it."""


def aggregate_name(name: str, meaning: ScoreMeaning) -> str:
    """The MLflow metric of score ``name``'s run-level value, as Databricks names it:
    ``NAME/percentage`` for a yes/no rating (``NAME/average`` for safety), else
    ``NAME/average``."""
    if name in _AVERAGED_RATINGS:
        return f"{name}/average"
    return f"{name}/{meaning.aggregate}"


def databricks_table(store: Store, run: RunInfo) -> pd.DataFrame:
    """The run's rows with Databricks' column names (see the module docstring); the
    secrets this process knows are masked."""
    import pandas as pd  # loaded by the export alone

    meanings = run_meanings(run)
    outputs = store.outputs(run.run_id)
    rows = {
        (sample.request_id, trial): _inputs(sample, outputs.get(sample.request_id), trial, run)
        for sample in store.samples(run.run_id)
        for trial in range(run.trials)
    }
    for request_id, trial, score in store.scores(run.run_id):
        meaning = meanings.get(score.metric, ScoreMeaning())
        rows[(request_id, trial)] |= score_columns(score, meaning)
    frame = pd.DataFrame([mask_secrets_in(row) for row in rows.values()])
    inputs = [c for c in _INPUTS if c in frame.columns]
    frame = frame[inputs + [c for c in frame.columns if c not in inputs]]
    return frame.astype(object).where(frame.notna(), None)


def _inputs(sample: Sample, output: Output | None, trial: int, run: RunInfo) -> dict[str, Any]:
    """The row's inputs under Databricks' names; the optional ones only when given."""
    retrieved = output.retrieved_context if output is not None else None
    if retrieved is None:
        retrieved = sample.retrieved_context
    row: dict[str, Any] = {"request_id": sample.request_id}
    if run.trials > 1:
        row["trial"] = trial
    row |= {
        "request": sample.request.original,
        "response": output.response if output is not None else sample.response,
        "retrieved_context": _chunks(retrieved),
    }
    optional = {
        "expected_response": sample.expected_response,
        "expected_facts": sample.expected_facts,
        "expected_retrieved_context": _chunks(sample.expected_retrieved_context),
        "guidelines": sample.guidelines,
        "trace": output.trace if output is not None and output.trace else sample.trace,
    }
    return row | {name: value for name, value in optional.items() if value is not None}


def _chunks(chunks: list[ContextChunk] | None) -> list[dict[str, Any]] | None:
    if chunks is None:
        return None
    return [{"doc_uri": c.doc_uri, "content": c.content} for c in chunks]


def score_columns(score: Score, meaning: ScoreMeaning) -> dict[str, Any]:
    """The columns one stored score gives its row."""
    name = score.metric
    if name.endswith(_RATING) and meaning.binary:
        base = name.removesuffix(_RATING)
        rated = {name: _label(score.value), f"{base}/rationale": score.rationale}
        return _with_text(base, score, rated, None)
    if name == CHUNK_PRECISION:
        return _with_text(_CHUNK_BASE, score, _chunk_columns(score), None)
    return _with_text(name, score, {name: score.value}, "rationale")


def _label(value: float | None) -> str | None:
    if value is None:
        return None
    return "yes" if value >= 0.5 else "no"


def _chunk_columns(score: Score) -> dict[str, Any]:
    chunks = score.details.get("chunks")
    rated = chunks if isinstance(chunks, list) else None
    return {
        f"{_CHUNK_BASE}/ratings": None if rated is None else [c.get("rating") for c in rated],
        f"{_CHUNK_BASE}/rationales": None if rated is None else [c.get("rationale") for c in rated],
        CHUNK_PRECISION: score.value,
    }


def _with_text(
    base: str, score: Score, columns: dict[str, Any], rationale: str | None
) -> dict[str, Any]:
    """``columns`` with the score's rationale (under ``base/RATIONALE`` when the score
    has one) and its failure (``base/error_message``) when it has them."""
    if rationale is not None and score.rationale:
        columns[f"{base}/{rationale}"] = score.rationale
    if score.error:
        columns[f"{base}/error_message"] = score.error
    return columns

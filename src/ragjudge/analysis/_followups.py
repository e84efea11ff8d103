"""The follow-up questions a run's multi-turn evaluation asked, per sample, read from
the transcripts stored with its scores: what a paired replay sends to another system
(``ragjudge followups``), so two systems are compared on the same questions."""

from __future__ import annotations

from typing import Any

from ragjudge.errors import AnalysisError
from ragjudge.schema import Sample
from ragjudge.store import Store

__all__ = ["followups_of", "replay_rows"]


def followups_of(store: Store, run_id: str) -> dict[str, list[str]]:
    """Each sample's follow-up questions, in the order asked (the first question, the
    sample's own, is not one); :class:`AnalysisError` when no score of the run holds a
    multi-turn transcript."""
    found: dict[str, list[str]] = {}
    for request_id, trial, score in store.scores(run_id):
        transcript = score.details.get("transcript")
        if trial != 0 or not isinstance(transcript, dict) or request_id in found:
            continue
        found[request_id] = _asked(transcript)
    if not found:
        raise AnalysisError(
            f"run {run_id} holds no multi-turn transcript: replay needs a run scored with "
            "the 'multiturn' metric"
        )
    return found


def _asked(transcript: dict[str, Any]) -> list[str]:
    return [
        str(event["query"])
        for event in transcript.get("events", [])
        if event.get("task") == "T4/T5" and event.get("decision") == "ask" and event.get("query")
    ]


def replay_rows(store: Store, run_id: str) -> list[dict[str, Any]]:
    """The run's samples as evaluation-set rows for another system, each with its
    follow-ups in ``metadata.followups`` (its response, contexts and trace left out: the
    other system answers). :class:`AnalysisError` naming a sample the run did not hold a
    dialogue for."""
    followups = followups_of(store, run_id)
    rows = []
    for sample in store.samples(run_id):
        if sample.request_id not in followups:
            raise AnalysisError(
                f"sample {sample.request_id!r} of run {run_id} has no multi-turn transcript "
                "(its dialogue failed or was not scored); replay needs one for every sample"
            )
        rows.append(_row(sample, followups[sample.request_id]))
    return rows


def _row(sample: Sample, followups: list[str]) -> dict[str, Any]:
    row = sample.model_dump(
        mode="json",
        exclude_none=True,
        exclude={"request", "response", "retrieved_context", "trace", "tool_calls"},
    )
    row["request"] = sample.request.original
    row["metadata"] = {**sample.metadata, "followups": followups}
    return row

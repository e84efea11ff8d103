"""The samples of a run as the report shows them: one table row per sample with each
metric's value, and everything behind one sample (its inputs, the system's output, each
score with its details, and every judge call the scores used)."""

from __future__ import annotations

import json
import math
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from ragjudge.analysis._passes import pass_condition
from ragjudge.report._details import DetailsView, details_view
from ragjudge.report._dialogue import DialogueView, dialogue_view, per_turn_results
from ragjudge.report._text import fmt, preview, search_text
from ragjudge.report._trajectory import TrajectoryView, trajectory_view
from ragjudge.schema import ContextChunk, Output, Sample, Score, ScoreMeaning
from ragjudge.stats import NO_GROUP, group_label

__all__ = [
    "WIDE_TABLE",
    "CallView",
    "Cell",
    "DrillView",
    "SampleRow",
    "ScoreView",
    "calls_by_id",
    "column_labels",
    "drill_views",
    "pass_words",
    "sample_rows",
]

ScoreRow = tuple[str, int, Score]


@dataclass(frozen=True)
class Cell:
    """One metric's value for one sample: ``value`` sorts and filters (None: no
    value), ``state`` is a CSS class (``error``, ``na``, ``excluded``, ``missing``);
    ``passed`` whether the value passed the score's declared threshold (None: no
    threshold, or no value)."""

    value: float | None
    text: str
    state: str
    title: str
    passed: bool | None = None


@dataclass(frozen=True)
class SampleRow:
    """One row of the samples table."""

    index: int
    request_id: str
    group: str
    query: str
    response: str
    cells: list[Cell]
    failed: bool
    search: str


@dataclass(frozen=True)
class ScoreView:
    """One score of one trial."""

    metric: str
    trial: int
    value: float | None
    error: str | None
    skipped: str | None
    rationale: str | None
    details: DetailsView
    call_ids: list[int]
    excluded: bool
    description: str
    passed: bool | None = None
    """Whether the value passed the score's declared threshold (None: none, or no value)."""
    passes_at: str = ""
    """When the score passes, in words (``≥ 0.8``), for a score with a threshold."""


@dataclass(frozen=True)
class CallView:
    """One judge call: the prompt as sent, the raw reply, the parsed value and what it
    cost."""

    call_id: int
    purpose: str
    model: str
    trial: int
    messages: list[dict[str, str]]
    text: str | None
    parsed: str | None
    input_tokens: int
    output_tokens: int
    latency: float
    attempts: int
    cached: bool
    error: str | None
    cost: float | None
    settings: str
    created_at: str
    used_by: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class JudgeContexts:
    """Contexts a judge was shown, and the scores whose judges saw exactly these."""

    metrics: list[str]
    source: str
    chunks: list[tuple[str, str | None]]
    """(doc_uri, content) in the order the judge saw them; content is None when the
    score stored only the addresses."""


@dataclass(frozen=True)
class DrillView:
    """Everything behind one sample."""

    index: int
    sample: Sample
    output: Output | None
    retrieved: list[ContextChunk]
    shown_contexts: list[JudgeContexts]
    """The contexts the judges were shown: scores shown the same contexts share one
    entry."""
    scores: list[ScoreView]
    calls: list[CallView]
    trials: int
    trajectory: TrajectoryView | None = None
    """The tool calls made beside those expected, when the sample has either."""
    dialogue: DialogueView | None = None
    """The request's earlier turns and the response as chat turns, when the request
    holds earlier assistant turns."""


WIDE_TABLE = 8
"""With more metrics than this, the samples table is laid out narrow: short column
names, the response left to the drill-down (it is still searched)."""


def column_labels(metrics: Sequence[str]) -> list[str]:
    """Short, still distinct column names for ``metrics``: the fewest trailing
    ``/``-parts of each name (a trailing ``rating`` part dropped) that no other name
    ends with, e.g. ``response/llm_judged/safety/rating`` → ``safety``. The full
    names when shortening would make two of them equal."""
    parts = [_name_parts(name) for name in metrics]
    labels = []
    for own in parts:
        others = [p for p in parts if p is not own]
        size = next(
            (n for n in range(1, len(own)) if all(p[-n:] != own[-n:] for p in others)), len(own)
        )
        labels.append("/".join(own[-size:]))
    return labels if len(set(labels)) == len(labels) else list(metrics)


def _name_parts(name: str) -> list[str]:
    parts = name.split("/")
    return parts[:-1] if len(parts) > 1 and parts[-1] == "rating" else parts


def _meaning(meanings: Mapping[str, ScoreMeaning], metric: str) -> ScoreMeaning:
    return meanings.get(metric) or ScoreMeaning(low=None, high=None)


def _cell(scores: Sequence[Score], meaning: ScoreMeaning) -> Cell:
    """The cell of one metric over a sample's trials: the mean of its values."""
    if not scores:
        return Cell(None, "", "missing", "no result")
    values = [s.value for s in scores if s.value is not None]
    errors = [s.error for s in scores if s.error]
    if not values:
        if errors:
            return Cell(None, "error", "error", preview(errors[0], 300))
        reason = next((s.skipped for s in scores if s.skipped), "") or ""
        return Cell(None, "n/a", "na", preview(reason, 300))
    mean = sum(values) / len(values)
    title = ", ".join(fmt(v) for v in values) if len(scores) > 1 else ""
    if errors:
        title += f"; {len(errors)} trial(s) failed: {preview(errors[0], 200)}"
    left_out = all(v in meaning.excluded for v in values)
    state = "excluded" if left_out else "partial" if errors else ""
    if left_out:
        title = (title + "; " if title else "") + "left out of the mean"
    passed = None if left_out or meaning.threshold is None else meaning.passed(mean)
    if passed is not None:
        verdict = "passed" if passed else "failed"
        title = (title + "; " if title else "") + f"{verdict} (passes at {pass_words(meaning)})"
    return Cell(mean, fmt(mean), state, title, passed)


def pass_words(meaning: ScoreMeaning) -> str:
    """When a score passes, in words: ``≥ 0.8``, ``≤ 2``, or ``yes``."""
    return pass_condition(meaning.threshold, meaning.direction)


def _by_sample(scores: Sequence[ScoreRow]) -> dict[str, dict[str, list[Score]]]:
    grouped: dict[str, dict[str, list[Score]]] = defaultdict(lambda: defaultdict(list))
    for request_id, _, score in scores:
        grouped[request_id][score.metric].append(score)
    return grouped


def sample_rows(
    samples: Sequence[Sample],
    outputs: Mapping[str, Output],
    scores: Sequence[ScoreRow],
    metrics: Sequence[str],
    meanings: Mapping[str, ScoreMeaning],
    by: str | None,
) -> list[SampleRow]:
    """One row per sample, in the order of the evaluation set."""
    grouped = _by_sample(scores)
    key = None if by is None else by.removeprefix("metadata.")
    rows = []
    for index, sample in enumerate(samples):
        output = outputs.get(sample.request_id)
        response = _response(sample, output)
        per_metric = grouped.get(sample.request_id, {})
        cells = [_cell(per_metric.get(m, []), _meaning(meanings, m)) for m in metrics]
        target_failed = output is not None and output.error is not None and response is None
        rows.append(
            SampleRow(
                index=index,
                request_id=sample.request_id,
                group=group_label(sample.metadata.get(key)) if key else NO_GROUP,
                query=preview(sample.request.query),
                response=preview(response) if response is not None else "",
                cells=cells,
                failed=target_failed or any(c.state in ("error", "partial") for c in cells),
                search=search_text(
                    sample.request_id, sample.request.query, response, *sample.references
                ),
            )
        )
    return rows


def _response(sample: Sample, output: Output | None) -> str | None:
    if output is not None and output.response is not None:
        return output.response
    return sample.response


def calls_by_id(frame: pd.DataFrame) -> dict[int, dict[str, Any]]:
    """The stored judge calls (``Store.judge_calls``) by call id, NaN read as None."""
    records = frame.to_dict("records")
    return {
        int(r["call_id"]): {str(k): None if _missing(v) else v for k, v in r.items()}
        for r in records
    }


def _missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def _call_view(record: Mapping[str, Any], used_by: list[str]) -> CallView:
    messages = json.loads(record["messages_json"] or "[]")
    parsed = record.get("parsed_json")
    settings = json.loads(record.get("config_json") or "{}")
    return CallView(
        call_id=int(record["call_id"]),
        purpose=str(record.get("purpose") or ""),
        model=f"{record.get('provider')}/{record.get('model')}",
        trial=int(record.get("trial") or 0),
        messages=[
            {"role": str(m.get("role", "")), "content": _content(m.get("content"))}
            for m in messages
            if isinstance(m, dict)
        ],
        text=record.get("text"),
        parsed=None
        if parsed is None
        else json.dumps(json.loads(parsed), ensure_ascii=False, indent=2),
        input_tokens=int(record.get("input_tokens") or 0),
        output_tokens=int(record.get("output_tokens") or 0),
        latency=float(record.get("latency") or 0.0),
        attempts=int(record.get("attempts") or 0),
        cached=bool(record.get("cached")),
        error=record.get("error"),
        cost=record.get("cost"),
        settings=_settings_line(settings),
        created_at=str(record.get("created_at") or ""),
        used_by=used_by,
    )


def _settings_line(settings: Mapping[str, Any]) -> str:
    """A call's sampling settings on one line; a reply schema by its name (the schema
    itself is the reply model's, the same on every call)."""
    parts = []
    for key, value in settings.items():
        if value is None:
            continue
        if key == "response_format" and isinstance(value, Mapping):
            spec = value.get("json_schema")
            name = spec.get("name") if isinstance(spec, Mapping) else None
            value = f"{value.get('type')} {name}" if name else value.get("type")
        parts.append(f"{key} {value}")
    return ", ".join(parts)


def _content(content: Any) -> str:
    """A message's content as text (a list of parts is joined, other values as JSON)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        texts = [p.get("text") for p in content if isinstance(p, dict)]
        if all(isinstance(t, str) for t in texts):
            return "\n".join(str(t) for t in texts)
    return json.dumps(content, ensure_ascii=False, indent=2)


_SHOWN_CONTEXT_KEYS = ("contexts", "context_doc_uris", "judge_contexts")
"""Detail keys naming the contexts a judge was shown: the sample's contexts section
shows them once for every score, not again in each score's details."""


def _shown_chunks(details: Mapping[str, Any]) -> tuple[tuple[str, str | None], ...] | None:
    """The contexts a judge was shown, as the accuracy metrics record them: their
    addresses, with their text when the score kept it."""
    uris = details.get("context_doc_uris")
    transcript = details.get("transcript")
    if uris is None and isinstance(transcript, Mapping):
        uris = transcript.get("context_doc_uris")
    if not isinstance(uris, list):
        return None
    kept = details.get("judge_contexts")
    texts = [c.get("content") if isinstance(c, Mapping) else None for c in kept or []]
    if not isinstance(kept, list) or len(texts) != len(uris):
        texts = [None] * len(uris)
    return tuple(
        (str(uri), None if text is None else str(text))
        for uri, text in zip(uris, texts, strict=True)
    )


def drill_views(
    samples: Sequence[Sample],
    outputs: Mapping[str, Output],
    scores: Sequence[ScoreRow],
    calls: Mapping[int, Mapping[str, Any]],
    meanings: Mapping[str, ScoreMeaning],
) -> list[DrillView]:
    """Everything behind each sample, in the order of the evaluation set."""
    per_sample: dict[str, list[ScoreRow]] = defaultdict(list)
    for row in scores:
        per_sample[row[0]].append(row)
    return [
        _drill(
            index,
            sample,
            outputs.get(sample.request_id),
            per_sample[sample.request_id],
            calls,
            meanings,
        )
        for index, sample in enumerate(samples)
    ]


def _drill(
    index: int,
    sample: Sample,
    output: Output | None,
    rows: Sequence[ScoreRow],
    calls: Mapping[int, Mapping[str, Any]],
    meanings: Mapping[str, ScoreMeaning],
) -> DrillView:
    views: list[ScoreView] = []
    used_by: dict[int, list[str]] = defaultdict(list)
    shown: dict[tuple[str, tuple[tuple[str, str | None], ...]], list[str]] = {}
    trials = len({trial for _, trial, _ in rows}) or 1
    dialogue = dialogue_view(
        sample.request.messages,
        _response(sample, output),
        [(trial, score) for _, trial, score in rows],
        trials,
    )
    for _, trial, score in rows:
        meaning = _meaning(meanings, score.metric)
        chunks = _shown_chunks(score.details)
        leave_out: tuple[str, ...] = _SHOWN_CONTEXT_KEYS if chunks is not None else ()
        if dialogue is not None and per_turn_results(score.details) is not None:
            leave_out = (*leave_out, "turns")
        if chunks is not None and trial == 0:
            source = str(score.details.get("contexts") or "")
            shown.setdefault((source, chunks), []).append(score.metric)
        views.append(
            ScoreView(
                metric=score.metric,
                trial=trial,
                value=score.value,
                error=score.error,
                skipped=score.skipped,
                rationale=score.rationale,
                details=details_view(score.details, leave_out=leave_out),
                call_ids=list(score.judge_call_ids),
                excluded=score.value is not None and score.value in meaning.excluded,
                description=meaning.description,
                passed=None if meaning.threshold is None else meaning.passed(score.value),
                passes_at="" if meaning.threshold is None else pass_words(meaning),
            )
        )
        for call_id in score.judge_call_ids:
            if score.metric not in used_by[call_id]:
                used_by[call_id].append(score.metric)
    first_seen = {name: i for i, name in reversed(list(enumerate(v.metric for v in views)))}
    views.sort(key=lambda v: (first_seen[v.metric], v.trial))
    call_views = [
        _call_view(calls[call_id], names)
        for call_id, names in sorted(used_by.items())
        if call_id in calls
    ]
    retrieved = (
        output.retrieved_context if output is not None else None
    ) or sample.retrieved_context
    return DrillView(
        index=index,
        sample=sample,
        output=output,
        retrieved=list(retrieved or []),
        shown_contexts=[
            JudgeContexts(names, source, list(chunks)) for (source, chunks), names in shown.items()
        ],
        scores=views,
        calls=call_views,
        trials=trials,
        trajectory=trajectory_view(
            output.tool_calls if output is not None else sample.tool_calls,
            sample.expected_tool_calls,
            [score for _, _, score in rows],
        ),
        dialogue=dialogue,
    )

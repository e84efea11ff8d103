"""Loaders for the MTRAG multi-turn RAG benchmark files (``../shared/data/mtrag-*``).

**MTRAG human evaluations** (``reference_subset_with_human_evaluations.json``): 159
tasks (a conversation up to a user turn, its reference passages and a reference
answer) from 20 conversations, 350 passages, and 477 rated responses — one per task
from each of 3 models (``reference``, ``llama-3.1-405b-instruct``, ``gpt-4o``). Every
response carries human ratings of faithfulness, completeness, appropriateness and
naturalness on a 1–4 scale (No / Mostly No / Mostly Yes / Yes) from 2 or 3 annotators
(faithfulness: 3 annotators on 465 responses, 2 on 12), a head-to-head win rate, and
the scores of automatic metrics (Rouge-L, BERT recall, an LLM judge, RAGAS
faithfulness …). :func:`load_mtrag_human` gives one sample per rated response, ready
for meta-evaluation against the human scores.

**MTRAG-UN** (``reference.jsonl``): 507 tasks from 507 conversations, each with the
conversation so far, its passages inline (none in 130 rows: every unanswerable one
and 33 underspecified ones) and one reference answer; no human ratings.
:func:`load_mtrag_un` gives one sample per task.

In both, a conversation turn is ``{"speaker": "user" | "agent", "text": ...}``; user
turns become ``user`` messages and agent turns ``assistant`` messages, and the last
user turn is the query. Values the files keep as one-element lists (``["ANSWERABLE"]``)
become plain strings; the question type stays a list because a task may have several.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from ragjudge.errors import DatasetError, RowProblem
from ragjudge.knowledge import Document
from ragjudge.schema import ContextChunk, Sample

__all__ = [
    "HUMAN_SCORES",
    "MTRAG_HUMAN_FILE",
    "MTRAG_UN_FILE",
    "load_mtrag_human",
    "load_mtrag_un",
    "mtrag_human_documents",
]

MTRAG_HUMAN_FILE = "reference_subset_with_human_evaluations.json"
"""The file :func:`load_mtrag_human` reads when given a folder."""

MTRAG_UN_FILE = "reference.jsonl"
"""The file :func:`load_mtrag_un` reads when given a folder."""

HUMAN_SCORES: tuple[str, ...] = ("faithfulness", "completeness", "appropriateness", "naturalness")
"""The human ratings (annotator id → 1..4) kept in each sample's metadata."""

_SPEAKER_ROLES = {"user": "user", "agent": "assistant"}
_WIN_RATE = "win-rate"
_COLLECTION_NAME = re.compile(r"^mt-rag-([a-z]+)")


class _BadField(ValueError):
    """A field of one record that cannot be read."""

    def __init__(self, field: str, reason: str) -> None:
        super().__init__(reason)
        self.field = field
        self.reason = reason


def _resolve(path: str | Path, default_name: str) -> Path:
    """``path`` itself, or ``default_name`` inside it when it is a folder."""
    resolved = Path(path).expanduser()
    if resolved.is_dir():
        resolved = resolved / default_name
    if not resolved.is_file():
        raise FileNotFoundError(f"{resolved}: no such file")
    return resolved


# --------------------------------------------------------------------------- human evaluations


def load_mtrag_human(path: str | Path) -> list[Sample]:
    """One sample per rated response of the MTRAG human-evaluation subset (477).

    ``path`` is the JSON file or the folder holding it. Each sample has the
    conversation as ``request``, the rated ``model_response`` as ``response``, the
    task's reference answer as ``expected_response`` and its reference passages as
    ``retrieved_context`` (``doc_uri`` = document id, with the passage text and
    title). ``request_id`` is ``<task_id>::<model_id>``. Metadata: ``task_id``,
    ``conversation_id``, ``model_id``, ``collection`` (short name such as
    ``govt``), ``collection_index``, ``answerability``, ``question_type`` (a list),
    ``multi_turn``, ``turn``; the human ratings under :data:`HUMAN_SCORES` as
    ``{annotator: int}``; ``win_rate`` as ``{annotator: float}``; and each automatic
    metric of the file under ``auto.<name>`` (e.g. ``auto.RougeL``, ``auto.rl_f``).

    Raises :class:`~ragjudge.loading.DatasetError` listing every record that cannot
    be read.
    """
    label, data = _read_human_file(path)
    problems: list[RowProblem] = []
    documents = _documents_by_id(data, label, problems)
    tasks = _tasks_by_id(data, label, problems)
    rows: list[tuple[int, Sample]] = []
    for number, evaluation in enumerate(data.get("evaluations") or [], start=1):
        with _collect(problems, label, number, "evaluations"):
            rows.append((number, _human_sample(evaluation, tasks, documents)))
    return _samples_or_error(label, rows, problems, empty="no evaluations")


def mtrag_human_documents(path: str | Path) -> list[Document]:
    """The 350 passages of the MTRAG human-evaluation subset as knowledge-base
    documents: ``doc_uri`` is the document id, ``content`` the passage text and
    ``metadata["title"]`` its title."""
    label, data = _read_human_file(path)
    problems: list[RowProblem] = []
    documents = _documents_by_id(data, label, problems)
    if problems:
        raise DatasetError(problems)
    return [
        Document(doc_uri=doc_id, content=doc["text"], metadata={"title": doc.get("title") or ""})
        for doc_id, doc in documents.items()
    ]


def _read_human_file(path: str | Path) -> tuple[str, dict[str, Any]]:
    """The human-evaluation file's name (for problems) and its JSON object."""
    file = _resolve(path, MTRAG_HUMAN_FILE)
    label = str(file)
    try:
        data = json.loads(file.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        problem = RowProblem(source=label, row=0, field="", reason=f"not valid JSON: {exc}")
        raise DatasetError([problem]) from exc
    if not isinstance(data, dict):
        reason = "expected a JSON object with 'tasks', 'documents' and 'evaluations'"
        raise DatasetError([RowProblem(source=label, row=0, field="", reason=reason)])
    return label, data


def _documents_by_id(
    data: Mapping[str, Any], label: str, problems: list[RowProblem]
) -> dict[str, dict[str, Any]]:
    documents: dict[str, dict[str, Any]] = {}
    for number, doc in enumerate(data.get("documents") or [], start=1):
        with _collect(problems, label, number, "documents"):
            doc_id = _text(doc, "document_id")
            _text(doc, "text", allow_empty=True)
            if doc_id in documents:
                raise _BadField("document_id", f"document {doc_id!r} appears twice")
            documents[doc_id] = doc
    return documents


def _tasks_by_id(
    data: Mapping[str, Any], label: str, problems: list[RowProblem]
) -> dict[str, dict[str, Any]]:
    tasks: dict[str, dict[str, Any]] = {}
    for number, task in enumerate(data.get("tasks") or [], start=1):
        with _collect(problems, label, number, "tasks"):
            task_id = _text(task, "task_id")
            if task_id in tasks:
                raise _BadField("task_id", f"task {task_id!r} appears twice")
            tasks[task_id] = task
    return tasks


def _human_sample(
    evaluation: Mapping[str, Any],
    tasks: Mapping[str, Mapping[str, Any]],
    documents: Mapping[str, Mapping[str, Any]],
) -> Sample:
    task_id = _text(evaluation, "task_id")
    model_id = _text(evaluation, "model_id")
    task = tasks.get(task_id)
    if task is None:
        raise _BadField("task_id", f"no task {task_id!r} in 'tasks'")
    annotations = evaluation.get("annotations")
    if not isinstance(annotations, Mapping):
        raise _BadField("annotations", "must be an object")
    metadata = {
        "task_id": task_id,
        "conversation_id": task_id.split("<::>", 1)[0],
        "model_id": model_id,
        **_human_task_metadata(task),
        **_human_ratings(annotations),
        **_automatic_scores(annotations),
    }
    return _sample(
        request_id=f"{task_id}::{model_id}",
        request={"messages": _messages(task)},
        response=_text(evaluation, "model_response", allow_empty=True),
        expected_response=_reference(task),
        retrieved_context=_resolved_contexts(task, documents),
        metadata=metadata,
    )


def _human_task_metadata(task: Mapping[str, Any]) -> dict[str, Any]:
    collection = str(task.get("Collection") or "")
    short = _COLLECTION_NAME.match(collection)
    return {
        "collection": short.group(1) if short else collection or None,
        "collection_index": collection or None,
        **_task_labels(task),
    }


def _task_labels(task: Mapping[str, Any]) -> dict[str, Any]:
    """Answerability, question type, multi-turn kind and turn number of a task."""
    return {
        "answerability": _single(task.get("Answerability", task.get("answerability"))),
        "question_type": _as_list(task.get("Question Type")),
        "multi_turn": _single(task.get("Multi-Turn")),
        "turn": _turn(task.get("Turn", task.get("turn"))),
    }


def _human_ratings(annotations: Mapping[str, Any]) -> dict[str, Any]:
    ratings: dict[str, Any] = {
        name: _annotator_values(annotations, name, integer=True)
        for name in HUMAN_SCORES
        if name in annotations
    }
    if _WIN_RATE in annotations:
        ratings["win_rate"] = _annotator_values(annotations, _WIN_RATE, integer=False)
    return ratings


def _annotator_values(
    annotations: Mapping[str, Any], name: str, *, integer: bool
) -> dict[str, int | float]:
    """``{annotator: value}`` from ``{annotator: {"value": ..., "timestamp": ...}}``."""
    per_annotator = annotations[name]
    field = f"annotations.{name}"
    if not isinstance(per_annotator, Mapping):
        raise _BadField(field, "must map annotator ids to ratings")
    return {
        str(annotator): _number(_record_value(record, field), field, integer=integer)
        for annotator, record in per_annotator.items()
    }


def _automatic_scores(annotations: Mapping[str, Any]) -> dict[str, float]:
    """Every non-human annotation, whose one record (``system`` or ``composite``)
    holds the score."""
    scores: dict[str, float] = {}
    for name, records in annotations.items():
        if name in HUMAN_SCORES or name == _WIN_RATE:
            continue
        field = f"annotations.{name}"
        if not isinstance(records, Mapping) or len(records) != 1:
            raise _BadField(field, "an automatic score must hold exactly one record")
        (record,) = records.values()
        scores[f"auto.{name}"] = float(_number(_record_value(record, field), field, integer=False))
    return scores


def _record_value(record: Any, field: str) -> Any:
    if isinstance(record, Mapping):
        if "value" not in record:
            raise _BadField(field, "annotation record has no 'value'")
        return record["value"]
    return record


def _number(value: Any, field: str, *, integer: bool) -> int | float:
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise _BadField(field, f"not a number: {value!r}") from None
    if isinstance(value, bool) or number != number:
        raise _BadField(field, f"not a number: {value!r}")
    if not integer:
        return number
    if not number.is_integer():
        raise _BadField(field, f"not a whole-number rating: {value!r}")
    return int(number)


def _resolved_contexts(
    task: Mapping[str, Any], documents: Mapping[str, Mapping[str, Any]]
) -> list[ContextChunk] | None:
    chunks = []
    for ref in _list(task, "contexts"):
        doc_id = _text(ref, "document_id", field="contexts.document_id")
        doc = documents.get(doc_id)
        if doc is None:
            raise _BadField("contexts.document_id", f"no document {doc_id!r} in 'documents'")
        chunks.append(_chunk(doc_id, doc["text"], doc.get("title")))
    return chunks or None


# --------------------------------------------------------------------------- MTRAG-UN


def load_mtrag_un(path: str | Path) -> list[Sample]:
    """One sample per MTRAG-UN task (507).

    ``path`` is ``reference.jsonl`` or the folder holding it. Each sample has the
    conversation as ``request``, the reference answer as ``expected_response`` and
    the inline passages as ``expected_retrieved_context`` (``doc_uri`` = document id;
    None for the 130 tasks without passages). ``request_id`` is the task id.
    Metadata: ``conversation_id``, ``task_id``, ``turn``, ``answerability``
    (ANSWERABLE, PARTIAL, UNANSWERABLE or UNDERSPECIFIED), ``question_type`` (a
    list), ``multi_turn`` (Follow-up, Clarification or N/A), ``collection`` and
    ``dataset``.

    Raises :class:`~ragjudge.loading.DatasetError` listing every line that cannot
    be read.
    """
    file = _resolve(path, MTRAG_UN_FILE)
    label = str(file)
    rows: list[tuple[int, Sample]] = []
    problems: list[RowProblem] = []
    with file.open(encoding="utf-8") as lines:
        for number, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            with _collect(problems, label, number, ""):
                rows.append((number, _un_sample(_json_line(line))))
    return _samples_or_error(label, rows, problems, empty="no tasks")


def _json_line(line: str) -> dict[str, Any]:
    try:
        record = json.loads(line)
    except json.JSONDecodeError as exc:
        raise _BadField("", f"not valid JSON: {exc.msg}") from None
    if not isinstance(record, dict):
        raise _BadField("", "a line must hold a JSON object")
    return record


def _un_sample(record: Mapping[str, Any]) -> Sample:
    task_id = _text(record, "task_id")
    chunks = [
        _chunk(
            _text(ctx, "document_id", field="contexts.document_id"),
            _text(ctx, "text", field="contexts.text", allow_empty=True),
            ctx.get("title"),
        )
        for ctx in _list(record, "contexts")
    ]
    metadata = {
        "conversation_id": _text(record, "conversation_id"),
        "task_id": task_id,
        **_task_labels(record),
        "collection": record.get("Collection"),
        "dataset": record.get("dataset"),
    }
    return _sample(
        request_id=task_id,
        request={"messages": _messages(record)},
        expected_response=_reference(record),
        expected_retrieved_context=chunks or None,
        metadata=metadata,
    )


# --------------------------------------------------------------------------- shared


@contextmanager
def _collect(problems: list[RowProblem], label: str, row: int, prefix: str) -> Iterator[None]:
    """Turn a failure to read one record into a :class:`RowProblem` and carry on."""
    try:
        yield
    except _BadField as exc:
        field = ".".join(p for p in (prefix, exc.field) if p)
        problems.append(RowProblem(source=label, row=row, field=field, reason=exc.reason))
    except ValidationError as exc:
        first = exc.errors()[0]
        field = ".".join(str(p) for p in first["loc"])
        reason = first["msg"]
        problems.append(RowProblem(source=label, row=row, field=field, reason=reason))


def _sample(**fields: Any) -> Sample:
    return Sample.model_validate(fields)


def _messages(record: Mapping[str, Any]) -> list[dict[str, str]]:
    messages = []
    for turn in _list(record, "input"):
        speaker = turn.get("speaker") if isinstance(turn, Mapping) else None
        role = _SPEAKER_ROLES.get(str(speaker))
        if role is None:
            raise _BadField("input.speaker", f"unknown speaker {speaker!r}; expected user or agent")
        messages.append({"role": role, "content": _text(turn, "text", field="input.text")})
    if not messages or messages[-1]["role"] != "user":
        raise _BadField("input", "the conversation must end with a user turn")
    return messages


def _reference(record: Mapping[str, Any]) -> str | list[str]:
    texts = [_text(t, "text", field="targets.text") for t in _list(record, "targets")]
    if not texts:
        raise _BadField("targets", "no reference answer")
    return texts[0] if len(texts) == 1 else texts


def _chunk(doc_id: str, text: str, title: Any) -> ContextChunk:
    if title:
        return ContextChunk(doc_uri=doc_id, content=text, title=str(title))
    return ContextChunk(doc_uri=doc_id, content=text)


def _samples_or_error(
    label: str, rows: list[tuple[int, Sample]], problems: list[RowProblem], *, empty: str
) -> list[Sample]:
    """The samples read, or a :class:`DatasetError` listing every problem (including
    repeated request ids, and ``empty`` when the file held no record)."""
    if not rows and not problems:
        problems.append(RowProblem(source=label, row=0, field="", reason=empty))
    problems += _duplicate_ids(label, rows)
    if problems:
        raise DatasetError(sorted(problems, key=lambda p: p.row))
    return [sample for _, sample in rows]


def _duplicate_ids(label: str, rows: list[tuple[int, Sample]]) -> list[RowProblem]:
    seen: set[str] = set()
    problems = []
    for number, sample in rows:
        if sample.request_id in seen:
            reason = f"request id {sample.request_id!r} appears twice"
            problems.append(RowProblem(source=label, row=number, field="task_id", reason=reason))
        seen.add(sample.request_id)
    return problems


def _text(record: Any, key: str, *, field: str | None = None, allow_empty: bool = False) -> str:
    value = record.get(key) if isinstance(record, Mapping) else None
    if not isinstance(value, str) or (not allow_empty and not value.strip()):
        raise _BadField(field or key, "missing" if value is None else f"not text: {value!r}")
    return value


def _list(record: Mapping[str, Any], key: str) -> list[Any]:
    value = record.get(key)
    if value is None:
        return []
    if not isinstance(value, list):
        raise _BadField(key, f"must be a list, not {type(value).__name__}")
    return value


def _single(value: Any) -> Any:
    """A one-element list as its element, an empty list as None, anything else as is."""
    if isinstance(value, list):
        if not value:
            return None
        return value[0] if len(value) == 1 else value
    return value


def _as_list(value: Any) -> list[str]:
    if value is None:
        return []
    if isinstance(value, list):
        return [str(v) for v in value]
    return [str(value)]


def _turn(value: Any) -> int | None:
    if value is None or value == "":
        return None
    try:
        return int(value)
    except (TypeError, ValueError):
        raise _BadField("turn", f"not a turn number: {value!r}") from None

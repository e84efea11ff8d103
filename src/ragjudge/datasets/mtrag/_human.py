"""The MTRAG human-evaluation subset: one sample per rated response, and the
subset's passages as knowledge-base documents."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ragjudge.datasets.mtrag._records import (
    BadField,
    collect_problems,
    conversation_messages,
    list_field,
    make_sample,
    passage_chunk,
    read_text,
    reference_answer,
    resolve_file,
    samples_or_error,
    task_labels,
    text_field,
)
from ragjudge.errors import DatasetError, RowProblem
from ragjudge.schema import ContextChunk, Sample

if TYPE_CHECKING:
    from ragjudge.knowledge import Document

MTRAG_HUMAN_FILE = "reference_subset_with_human_evaluations.json"
"""The file :func:`load_mtrag_human` reads when given a folder."""

HUMAN_SCORES: tuple[str, ...] = ("faithfulness", "completeness", "appropriateness", "naturalness")
"""The human ratings (annotator id → 1..4) kept in each sample's metadata."""

_WIN_RATE = "win-rate"
_COLLECTION_NAME = re.compile(r"^mt-rag-([a-z]+)")


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
        with collect_problems(problems, label, number, "evaluations"):
            rows.append((number, _human_sample(evaluation, tasks, documents)))
    return samples_or_error(label, rows, problems, empty="no evaluations")


def mtrag_human_documents(path: str | Path) -> list[Document]:
    """The 350 passages of the MTRAG human-evaluation subset as knowledge-base
    documents: ``doc_uri`` is the document id, ``content`` the passage text and
    ``metadata["title"]`` its title."""
    from ragjudge.knowledge import Document  # the knowledge base only for its documents

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
    file = resolve_file(path, MTRAG_HUMAN_FILE)
    label = str(file)
    try:
        data = json.loads(read_text(file))
    except (json.JSONDecodeError, RecursionError) as exc:
        problem = RowProblem(source=label, row=0, field="", reason=f"not valid JSON: {exc}")
        raise DatasetError([problem]) from None
    if not isinstance(data, dict):
        reason = "expected a JSON object with 'tasks', 'documents' and 'evaluations'"
        raise DatasetError([RowProblem(source=label, row=0, field="", reason=reason)])
    return label, data


def _documents_by_id(
    data: Mapping[str, Any], label: str, problems: list[RowProblem]
) -> dict[str, dict[str, Any]]:
    documents: dict[str, dict[str, Any]] = {}
    for number, doc in enumerate(data.get("documents") or [], start=1):
        with collect_problems(problems, label, number, "documents"):
            doc_id = text_field(doc, "document_id")
            text_field(doc, "text", allow_empty=True)
            if doc_id in documents:
                raise BadField("document_id", f"document {doc_id!r} appears twice")
            documents[doc_id] = doc
    return documents


def _tasks_by_id(
    data: Mapping[str, Any], label: str, problems: list[RowProblem]
) -> dict[str, dict[str, Any]]:
    tasks: dict[str, dict[str, Any]] = {}
    for number, task in enumerate(data.get("tasks") or [], start=1):
        with collect_problems(problems, label, number, "tasks"):
            task_id = text_field(task, "task_id")
            if task_id in tasks:
                raise BadField("task_id", f"task {task_id!r} appears twice")
            tasks[task_id] = task
    return tasks


def _human_sample(
    evaluation: Mapping[str, Any],
    tasks: Mapping[str, Mapping[str, Any]],
    documents: Mapping[str, Mapping[str, Any]],
) -> Sample:
    task_id = text_field(evaluation, "task_id")
    model_id = text_field(evaluation, "model_id")
    task = tasks.get(task_id)
    if task is None:
        raise BadField("task_id", f"no task {task_id!r} in 'tasks'")
    annotations = evaluation.get("annotations")
    if not isinstance(annotations, Mapping):
        raise BadField("annotations", "must be an object")
    metadata = {
        "task_id": task_id,
        "conversation_id": task_id.split("<::>", 1)[0],
        "model_id": model_id,
        **_human_task_metadata(task),
        **_human_ratings(annotations),
        **_automatic_scores(annotations),
    }
    return make_sample(
        request_id=f"{task_id}::{model_id}",
        request={"messages": conversation_messages(task)},
        response=text_field(evaluation, "model_response", allow_empty=True),
        expected_response=reference_answer(task),
        retrieved_context=_resolved_contexts(task, documents),
        metadata=metadata,
    )


def _human_task_metadata(task: Mapping[str, Any]) -> dict[str, Any]:
    collection = str(task.get("Collection") or "")
    short = _COLLECTION_NAME.match(collection)
    return {
        "collection": short.group(1) if short else collection or None,
        "collection_index": collection or None,
        **task_labels(task),
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
        raise BadField(field, "must map annotator ids to ratings")
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
            raise BadField(field, "an automatic score must hold exactly one record")
        (record,) = records.values()
        scores[f"auto.{name}"] = float(_number(_record_value(record, field), field, integer=False))
    return scores


def _record_value(record: Any, field: str) -> Any:
    if isinstance(record, Mapping):
        if "value" not in record:
            raise BadField(field, "annotation record has no 'value'")
        return record["value"]
    return record


def _number(value: Any, field: str, *, integer: bool) -> int | float:
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise BadField(field, f"not a number: {value!r}") from None
    if isinstance(value, bool) or number != number:
        raise BadField(field, f"not a number: {value!r}")
    if not integer:
        return number
    if not number.is_integer():
        raise BadField(field, f"not a whole-number rating: {value!r}")
    return int(number)


def _resolved_contexts(
    task: Mapping[str, Any], documents: Mapping[str, Mapping[str, Any]]
) -> list[ContextChunk] | None:
    chunks = []
    for ref in list_field(task, "contexts"):
        doc_id = text_field(ref, "document_id", field="contexts.document_id")
        doc = documents.get(doc_id)
        if doc is None:
            raise BadField("contexts.document_id", f"no document {doc_id!r} in 'documents'")
        chunks.append(passage_chunk(doc_id, doc["text"], doc.get("title")))
    return chunks  # a task with no passage: the system was given none (an empty list)

"""MTRAG-UN: one sample per task of ``reference.jsonl``."""

from __future__ import annotations

import io
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

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
from ragjudge.errors import RowProblem
from ragjudge.schema import Sample

MTRAG_UN_FILE = "reference.jsonl"
"""The file :func:`load_mtrag_un` reads when given a folder."""


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
    file = resolve_file(path, MTRAG_UN_FILE)
    label = str(file)
    rows: list[tuple[int, Sample]] = []
    problems: list[RowProblem] = []
    for number, line in enumerate(io.StringIO(read_text(file), newline=None), start=1):
        if not line.strip():
            continue
        with collect_problems(problems, label, number, ""):
            rows.append((number, _un_sample(_json_line(line))))
    return samples_or_error(label, rows, problems, empty="no tasks")


def _json_line(line: str) -> dict[str, Any]:
    try:
        record = json.loads(line)
    except json.JSONDecodeError as exc:
        raise BadField("", f"not valid JSON: {exc.msg}") from None
    except RecursionError:
        raise BadField("", "not valid JSON: nested too deeply to read") from None
    if not isinstance(record, dict):
        raise BadField("", "a line must hold a JSON object")
    return record


def _un_sample(record: Mapping[str, Any]) -> Sample:
    task_id = text_field(record, "task_id")
    chunks = [
        passage_chunk(
            text_field(ctx, "document_id", field="contexts.document_id"),
            text_field(ctx, "text", field="contexts.text", allow_empty=True),
            ctx.get("title"),
        )
        for ctx in list_field(record, "contexts")
    ]
    metadata = {
        "conversation_id": text_field(record, "conversation_id"),
        "task_id": task_id,
        **task_labels(record),
        "collection": record.get("Collection"),
        "dataset": record.get("dataset"),
    }
    return make_sample(
        request_id=task_id,
        request={"messages": conversation_messages(record)},
        expected_response=reference_answer(record),
        expected_retrieved_context=chunks or None,
        metadata=metadata,
    )

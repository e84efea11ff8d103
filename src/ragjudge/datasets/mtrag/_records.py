"""Reading the records of the MTRAG files: fields that must be text or lists, the
conversation and reference answer of a task, and collecting every unreadable record as
a :class:`~ragjudge.errors.RowProblem`."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from ragjudge._util.textfiles import read_text_file
from ragjudge.errors import DataError, DataFileNotFound, DatasetError, RowProblem, TextFileError
from ragjudge.schema import ContextChunk, Sample

_SPEAKER_ROLES = {"user": "user", "agent": "assistant"}


class BadField(DataError):
    """A field of one record that cannot be read."""

    def __init__(self, field: str, reason: str) -> None:
        super().__init__(reason)
        self.field = field
        self.reason = reason


def resolve_file(path: str | Path, default_name: str) -> Path:
    """``path`` itself, or ``default_name`` inside it when it is a folder."""
    resolved = Path(path).expanduser()
    if resolved.is_dir():
        resolved = resolved / default_name
    if not resolved.is_file():
        raise DataFileNotFound(f"{resolved}: no such file")
    return resolved


def read_text(file: Path) -> str:
    """The text of a benchmark file; a :class:`DatasetError` naming the file and the
    position when it is not UTF-8 (see :func:`ragjudge._util.textfiles.decode_text`)."""
    try:
        return read_text_file(file)
    except TextFileError as exc:
        problem = RowProblem(source=str(file), row=0, field="", reason=exc.reason)
        raise DatasetError([problem]) from None


@contextmanager
def collect_problems(
    problems: list[RowProblem], label: str, row: int, prefix: str
) -> Iterator[None]:
    """Turn a failure to read one record into a :class:`RowProblem` and carry on."""
    try:
        yield
    except BadField as exc:
        field = ".".join(p for p in (prefix, exc.field) if p)
        problems.append(RowProblem(source=label, row=row, field=field, reason=exc.reason))
    except ValidationError as exc:
        first = exc.errors()[0]
        field = ".".join(str(p) for p in first["loc"])
        reason = first["msg"]
        problems.append(RowProblem(source=label, row=row, field=field, reason=reason))


def make_sample(**fields: Any) -> Sample:
    """A validated sample from its fields."""
    return Sample.model_validate(fields)


def conversation_messages(record: Mapping[str, Any]) -> list[dict[str, str]]:
    """The chat messages of a record's ``input`` turns, ending with a user turn."""
    messages = []
    for turn in list_field(record, "input"):
        speaker = turn.get("speaker") if isinstance(turn, Mapping) else None
        role = _SPEAKER_ROLES.get(str(speaker))
        if role is None:
            raise BadField("input.speaker", f"unknown speaker {speaker!r}; expected user or agent")
        messages.append({"role": role, "content": text_field(turn, "text", field="input.text")})
    if not messages or messages[-1]["role"] != "user":
        raise BadField("input", "the conversation must end with a user turn")
    return messages


def reference_answer(record: Mapping[str, Any]) -> str | list[str]:
    """The text of a record's ``targets``: one string, or a list when there are several."""
    texts = [text_field(t, "text", field="targets.text") for t in list_field(record, "targets")]
    if not texts:
        raise BadField("targets", "no reference answer")
    return texts[0] if len(texts) == 1 else texts


def passage_chunk(doc_id: str, text: str, title: Any) -> ContextChunk:
    """A passage as a context chunk, with its title when it has one."""
    if title:
        return ContextChunk(doc_uri=doc_id, content=text, title=str(title))
    return ContextChunk(doc_uri=doc_id, content=text)


def samples_or_error(
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


def text_field(
    record: Any, key: str, *, field: str | None = None, allow_empty: bool = False
) -> str:
    """The text under ``key`` (reported as ``field``); empty text only if allowed."""
    value = record.get(key) if isinstance(record, Mapping) else None
    if not isinstance(value, str) or (not allow_empty and not value.strip()):
        raise BadField(field or key, "missing" if value is None else f"not text: {value!r}")
    return value


def list_field(record: Mapping[str, Any], key: str) -> list[Any]:
    """The list under ``key``; an absent or null value is an empty list."""
    value = record.get(key)
    if value is None:
        return []
    if not isinstance(value, list):
        raise BadField(key, f"must be a list, not {type(value).__name__}")
    return value


def single_value(value: Any) -> Any:
    """A one-element list as its element, an empty list as None, anything else as is."""
    if isinstance(value, list):
        if not value:
            return None
        return value[0] if len(value) == 1 else value
    return value


def string_list(value: Any) -> list[str]:
    """A value as a list of strings: None as empty, a scalar as one item."""
    if value is None:
        return []
    if isinstance(value, list):
        return [str(v) for v in value]
    return [str(value)]


def turn_number(value: Any) -> int | None:
    """A turn number as an int; a missing or empty value as None."""
    if value is None or value == "":
        return None
    try:
        return int(value)
    except (TypeError, ValueError):
        raise BadField("turn", f"not a turn number: {value!r}") from None


def task_labels(task: Mapping[str, Any]) -> dict[str, Any]:
    """Answerability, question type, multi-turn kind and turn number of a task."""
    return {
        "answerability": single_value(task.get("Answerability", task.get("answerability"))),
        "question_type": string_list(task.get("Question Type")),
        "multi_turn": single_value(task.get("Multi-Turn")),
        "turn": turn_number(task.get("Turn", task.get("turn"))),
    }

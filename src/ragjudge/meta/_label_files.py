"""Label files: people's labels of a run's samples read from JSON Lines or CSV and
stored with the run, and every label of a run written back to such a file.

The file's format follows its suffix (``.csv`` is CSV, anything else JSON Lines); the
fields of a row are those of :mod:`ragjudge.meta._label_rows`. A file is checked whole
before anything is stored: every row must name a sample of the run and, when it names
one, a score of the run, and no row may label the same sample and score for the same
person as an earlier row. Every problem found is reported with the file, the line and
the field, and then nothing is stored.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ragjudge._util.suggest import did_you_mean
from ragjudge._util.textfiles import read_text_file, read_text_lines
from ragjudge.analysis._meanings import run_meanings
from ragjudge.errors import DataError, ExportError, RowProblem
from ragjudge.meta._label_rows import FIELDS, RowDefaults, RowError, label_from_row, row_of_label
from ragjudge.store._labels import Label
from ragjudge.store._store import Store

__all__ = ["KnownNames", "LabelImport", "export_labels", "import_labels", "read_label_file"]

_SHOWN_PROBLEMS = 20


@dataclass(frozen=True)
class LabelImport:
    """What an import stored: the labels, and how many replaced a label the same person
    had given the same sample and score before."""

    labels: list[Label]
    replaced: int


@dataclass(frozen=True)
class KnownNames:
    """What rows may name: the run's samples and scores (and the scores' names
    without a judge)."""

    request_ids: frozenset[str]
    scores: frozenset[str]


def import_labels(
    store: Store,
    run_id: str,
    path: Path,
    *,
    annotator: str | None = None,
    metric: str | None = None,
) -> LabelImport:
    """Read the label file at ``path`` and store its labels with run ``run_id`` (a
    unique start of its id is enough). ``annotator`` and ``metric`` fill the rows that
    do not name them. Raises :class:`~ragjudge.errors.DataError` naming every bad row
    (nothing is then stored)."""
    run = store.run(run_id)
    known = KnownNames(
        request_ids=frozenset(i for i in store.request_ids(run.run_id) if i is not None),
        scores=frozenset(_score_names(run_meanings(run))),
    )
    defaults = RowDefaults(run_id=run.run_id, annotator=annotator, metric=metric)
    labels = read_label_file(path, defaults, known)
    before = {_key(label) for label in store.labels(run.run_id)}
    store.save_labels(labels)
    return LabelImport(labels=labels, replaced=sum(1 for x in labels if _key(x) in before))


def export_labels(store: Store, run_id: str, path: Path) -> int:
    """Write every label of run ``run_id`` to ``path`` (CSV for a ``.csv`` suffix, else
    JSON Lines), in the form :func:`import_labels` reads; the number written."""
    labels = store.labels(store.run(run_id).run_id)
    as_csv = path.suffix.lower() == ".csv"
    rows = [row_of_label(label, as_text=as_csv) for label in labels]
    text = _csv_text(rows) if as_csv else "".join(_json_line(row) for row in rows)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8", newline="")
    except OSError as exc:
        raise ExportError(f"cannot write {path}: {exc.strerror or exc}") from None
    return len(labels)


def read_label_file(path: Path, defaults: RowDefaults, known: KnownNames) -> list[Label]:
    """The labels of the file at ``path``, every row checked; a
    :class:`~ragjudge.errors.DataError` listing each bad row's line and field."""
    labels: list[Label] = []
    problems: list[RowProblem] = []
    first_line: dict[tuple[str, str, str], int] = {}
    for line, row in _rows(path):
        try:
            label = _checked_label(row, defaults, known)
        except RowError as exc:
            problems.append(
                RowProblem(source=str(path), row=line, field=exc.field, reason=exc.reason)
            )
            continue
        key = _key(label)
        if key in first_line:
            reason = f"labels the same sample, score and person as line {first_line[key]}"
            problems.append(
                RowProblem(source=str(path), row=line, field="request_id", reason=reason)
            )
            continue
        first_line[key] = line
        labels.append(label)
    if problems:
        raise DataError(_problems_message(path, problems))
    if not labels:
        raise DataError(f"{path}: holds no labels")
    return labels


def _checked_label(row: Mapping[str, Any], defaults: RowDefaults, known: KnownNames) -> Label:
    try:
        label = label_from_row(row, defaults)
    except ValueError as exc:  # the stored label's own checks
        if isinstance(exc, RowError):
            raise
        raise RowError("label", _pydantic_reason(exc)) from None
    if label.request_id not in known.request_ids:
        hint = did_you_mean(label.request_id, known.request_ids).strip()
        reason = f"{label.request_id!r} is not a sample of the run"
        raise RowError("request_id", f"{reason}; {hint}" if hint else reason)
    if label.metric and label.metric not in known.scores:
        hint = did_you_mean(label.metric, known.scores)
        shown = ", ".join(sorted(known.scores)) or "(none)"
        raise RowError(
            "metric", f"{label.metric!r} is not a score of the run; {hint}scores: {shown}"
        )
    return label


def _pydantic_reason(exc: ValueError) -> str:
    errors = getattr(exc, "errors", None)
    if callable(errors):
        found = errors()
        if found:
            return str(found[0].get("msg", exc)).removeprefix("Value error, ")
    return str(exc)


def _problems_message(path: Path, problems: Sequence[RowProblem]) -> str:
    shown = [str(p).replace(", row ", ", line ", 1) for p in problems[:_SHOWN_PROBLEMS]]
    more = len(problems) - len(shown)
    if more:
        shown.append(f"… and {more} more")
    head = f"{path}: {len(problems)} bad row(s), nothing was stored"
    return "\n".join([head, *shown])


def _rows(path: Path) -> Iterator[tuple[int, Mapping[str, Any]]]:
    """(line number, row) of every row of the file; a file that cannot be read is a
    :class:`~ragjudge.errors.DataError` naming it."""
    if not path.is_file():
        raise DataError(f"{path}: no such label file")
    try:
        if path.suffix.lower() == ".csv":
            yield from _csv_rows(path)
        else:
            yield from _json_rows(path)
    except OSError as exc:
        raise DataError(f"{path}: cannot be read: {exc.strerror or exc}") from None


def _json_rows(path: Path) -> Iterator[tuple[int, Mapping[str, Any]]]:
    for line, text in read_text_lines(path):
        if not text.strip():
            continue
        try:
            row = json.loads(text)
        except json.JSONDecodeError as exc:
            raise DataError(f"{path}, line {line}: not a JSON object: {exc.msg}") from None
        if not isinstance(row, dict):
            raise DataError(f"{path}, line {line}: not a JSON object")
        yield line, row


def _csv_rows(path: Path) -> Iterator[tuple[int, Mapping[str, Any]]]:
    reader = csv.DictReader(io.StringIO(read_text_file(path), newline=""))
    if not reader.fieldnames or "request_id" not in reader.fieldnames:
        raise DataError(f"{path}, line 1: the header names no 'request_id' column")
    for row in reader:
        if None in row:
            raise DataError(f"{path}, line {reader.line_num}: more cells than the header names")
        yield reader.line_num, {k: v for k, v in row.items() if v is not None}


def _csv_text(rows: Sequence[Mapping[str, Any]]) -> str:
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=list(FIELDS), lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return buffer.getvalue()


def _json_line(row: Mapping[str, Any]) -> str:
    return json.dumps({k: v for k, v in row.items() if v is not None}, ensure_ascii=False) + "\n"


def _key(label: Label) -> tuple[str, str, str]:
    return (label.request_id, label.metric, label.annotator)


def _score_names(meanings: Mapping[str, Any]) -> set[str]:
    """The run's score names and their names without a judge (labels of
    ``faithfulness`` apply to ``faithfulness@big``)."""
    names = set(meanings)
    return names | {name.split("@", 1)[0] for name in names}

"""The ``labels`` table: what people said about a run's samples.

A label refers to one sample of one run (``request_id``) and one score of it
(``metric``: the score's name, or ``""`` for the sample as a whole), and is given by one
``annotator``; the same person labelling the same thing again replaces their label.
``drawn`` says how the sample came to be labelled: ``random`` (the random share of the
labelling queue, or a random draw: the only labels an unbiased estimate may use),
``targeted`` (put first by the queue because it looked informative) or ``imported``
(brought in from a file; random unless the file says so).
"""

from __future__ import annotations

import json
import math
import sqlite3
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictStr, model_validator

from ragjudge.store._file import transaction
from ragjudge.store._rows import timestamp

__all__ = ["Label", "LabelDrawn", "LabelKind", "LabelValue", "StoredLabels"]

LabelKind = Literal["yesno", "scale", "choice", "rubric", "comment"]
"""What a label holds: ``yesno`` a bool, ``scale`` a number on the task's scale (1–5 …),
``choice`` one of the task's named choices, ``rubric`` each rubric item met or not,
``comment`` only a comment."""

LabelDrawn = Literal["random", "targeted", "imported"]

LabelValue = StrictBool | float | StrictStr | dict[StrictStr, StrictBool] | None


class Label(BaseModel):
    """One person's label of one score of one sample of a run."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    run_id: str
    request_id: str
    metric: str = ""
    annotator: str = Field(min_length=1)
    kind: LabelKind
    value: LabelValue = None
    comment: str | None = None
    drawn: LabelDrawn = "random"
    created_at: str = Field(default_factory=timestamp)

    @model_validator(mode="after")
    def _value_fits_kind(self) -> Label:
        problem = value_problem(self.kind, self.value, self.comment)
        if problem is not None:
            raise ValueError(problem)
        return self

    def number(self) -> float | None:
        """The label as a number: yes 1 / no 0, the scale's value, the share of rubric
        items met; None for a choice or a comment."""
        value = self.value
        if self.kind == "yesno":
            return 1.0 if value else 0.0
        if self.kind == "scale" and isinstance(value, int | float):
            return float(value)
        if self.kind == "rubric" and isinstance(value, dict) and value:
            return sum(1.0 for met in value.values() if met) / len(value)
        return None


def value_problem(kind: str, value: Any, comment: str | None) -> str | None:
    """Why ``value`` cannot be a label of ``kind`` (None when it can)."""
    if kind == "yesno" and not isinstance(value, bool):
        return "a yes/no label holds true or false"
    if kind == "scale" and (
        isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value)
    ):
        return "a scale label holds a finite number"
    if kind == "choice" and not (isinstance(value, str) and value):
        return "a choice label holds the name of a choice"
    if kind == "rubric" and not (
        isinstance(value, dict)
        and value
        and all(isinstance(k, str) and isinstance(v, bool) for k, v in value.items())
    ):
        return "a rubric label maps each item to true (met) or false"
    if kind == "comment" and (value is not None or not (comment or "").strip()):
        return "a comment label holds a comment and no value"
    return None


_COLUMNS = "run_id, request_id, metric, annotator, kind, value_json, comment, drawn, created_at"


def _row(label: Label) -> tuple[Any, ...]:
    return (
        label.run_id,
        label.request_id,
        label.metric,
        label.annotator,
        label.kind,
        json.dumps(label.value, ensure_ascii=False),
        label.comment,
        label.drawn,
        label.created_at,
    )


def _label(row: Sequence[Any]) -> Label:
    run_id, request_id, metric, annotator, kind, value_json, comment, drawn, created = row
    return Label(
        run_id=run_id,
        request_id=request_id,
        metric=metric,
        annotator=annotator,
        kind=kind,
        value=json.loads(value_json),
        comment=comment,
        drawn=drawn,
        created_at=created,
    )


class StoredLabels:
    """The label writes and reads of :class:`~ragjudge.store._store.Store`."""

    path: Path
    _conn: sqlite3.Connection

    def save_labels(self, labels: Iterable[Label]) -> int:
        """Store ``labels`` in one transaction (a person's earlier label of the same
        sample and score is replaced); the number stored."""
        rows = [_row(label) for label in labels]
        with transaction(self._conn, self.path) as conn:
            conn.executemany(
                f"INSERT OR REPLACE INTO labels ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                rows,
            )
        return len(rows)

    def save_label(self, label: Label) -> None:
        """Store one label (replacing that person's earlier label of the same thing)."""
        self.save_labels([label])

    def delete_label(self, run_id: str, request_id: str, metric: str, annotator: str) -> bool:
        """Remove one person's label; whether there was one."""
        with transaction(self._conn, self.path) as conn:
            cursor = conn.execute(
                "DELETE FROM labels WHERE run_id = ? AND request_id = ? AND metric = ?"
                " AND annotator = ?",
                (run_id, request_id, metric, annotator),
            )
        return cursor.rowcount > 0

    def labels(
        self,
        run_id: str,
        *,
        metric: str | None = None,
        annotator: str | None = None,
    ) -> list[Label]:
        """The labels of run ``run_id`` (of one score, one person), oldest first."""
        sql = f"SELECT {_COLUMNS} FROM labels WHERE run_id = ?"
        args: list[Any] = [run_id]
        if metric is not None:
            sql += " AND metric = ?"
            args.append(metric)
        if annotator is not None:
            sql += " AND annotator = ?"
            args.append(annotator)
        sql += " ORDER BY created_at, request_id, metric, annotator"
        return [_label(row) for row in self._conn.execute(sql, args).fetchall()]

    def label_counts(self, run_id: str) -> Mapping[str, int]:
        """How many samples of run ``run_id`` carry at least one label, per score."""
        rows = self._conn.execute(
            "SELECT metric, COUNT(DISTINCT request_id) FROM labels WHERE run_id = ?"
            " GROUP BY metric ORDER BY metric",
            (run_id,),
        ).fetchall()
        return {str(metric): int(count) for metric, count in rows}

    def sample_means(self, run_id: str, score: str) -> dict[str, float]:
        """Each sample's value of ``score`` in run ``run_id``, the mean over its trials
        that have one (samples whose every trial failed, or that the score does not
        apply to, are left out): the judge's side of a label's comparison."""
        rows = self._conn.execute(
            "SELECT request_id, AVG(value) FROM scores WHERE run_id = ? AND metric = ?"
            " AND value IS NOT NULL AND (error IS NULL OR error = '')"
            " AND (skipped IS NULL OR skipped = '') GROUP BY request_id",
            (run_id, score),
        ).fetchall()
        return {str(request_id): float(value) for request_id, value in rows}

    def sample_ranges(self, run_id: str, score: str) -> dict[str, tuple[float, float]]:
        """Each sample's lowest and highest trial value of ``score`` in run ``run_id``
        (the same trials :meth:`sample_means` averages): how much its trials disagree."""
        rows = self._conn.execute(
            "SELECT request_id, MIN(value), MAX(value) FROM scores WHERE run_id = ?"
            " AND metric = ? AND value IS NOT NULL AND (error IS NULL OR error = '')"
            " AND (skipped IS NULL OR skipped = '') GROUP BY request_id",
            (run_id, score),
        ).fetchall()
        return {str(request_id): (float(low), float(high)) for request_id, low, high in rows}

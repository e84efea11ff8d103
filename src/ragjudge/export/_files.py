"""Writing a run's per-sample rows to a file or to standard output: the format follows
the file's extension unless one is named, ``-`` is standard output (JSON Lines), and
``with_calls`` adds every judge prompt and reply of each row. The long layout has one
row per score instead, with a ``judge`` column when the run names several judges."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import IO, Any

import pandas as pd

from ragjudge._util.known_secrets import has_secrets, mask_secrets_in_json
from ragjudge.analysis._judges import judge_labels, run_has_judges
from ragjudge.analysis._meanings import exclusions, run_meanings
from ragjudge.errors import ExportError as ExportError
from ragjudge.export._databricks_table import databricks_table
from ragjudge.schema import Score, ScoreMeaning
from ragjudge.store._store import Store

__all__ = [
    "EXPORT_FORMATS",
    "ExportError",
    "calls_per_row",
    "databricks_frame",
    "export_format",
    "export_frame",
    "long_frame",
    "long_rows_frame",
    "masked_frame",
    "writable_path_problem",
    "write_export",
    "write_text",
]

EXPORT_FORMATS: dict[str, str] = {
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".json": "json",
    ".csv": "csv",
    ".parquet": "parquet",
}
"""File extension → the format written."""
STDOUT = "-"


def export_format(output: str, given: str | None) -> str:
    """The format to write ``output`` in: ``given`` when named, JSON Lines for standard
    output, else the one its extension says."""
    if output == STDOUT:
        if given in (None, "jsonl", "json", "csv"):
            return given or "jsonl"
        raise ExportError(f"--format {given} cannot go to standard output; write it to a file")
    if given is not None:
        return given
    suffix = Path(output).suffix.lower()
    found = EXPORT_FORMATS.get(suffix)
    if found is None:
        known = ", ".join(EXPORT_FORMATS)
        raise ExportError(
            f"cannot tell the format of {output} from its extension "
            f"{suffix or '(none)'!r}; use one of {known}, or --format"
        )
    return found


def export_frame(store: Store, run_id: str, *, with_calls: bool = False) -> pd.DataFrame:
    """One row per sample and trial (see :func:`ragjudge.store._frames.sample_frame`); with
    ``with_calls`` a ``judge_calls`` column lists, as JSON, every judge call the row's
    scores made: its id, purpose, prompt messages, reply, parsed verdict and error."""
    run = store.run(run_id)
    meanings = run_meanings(run)
    frame = store.sample_frame(run.run_id, exclusions(meanings), meanings)
    if with_calls:
        frame["judge_calls"] = calls_per_row(store.judge_calls(run.run_id), frame)
    return frame


def long_frame(store: Store, run_id: str) -> pd.DataFrame:
    """One row per sample, trial and score: ``request_id``, ``trial``, ``metric`` (the
    score's name without its judge), ``judge`` and ``score`` (the stored name) when
    the run names several judges, then ``value``, ``passed`` (empty for a score without
    a pass or a value), ``error``, ``rationale``, ``skipped`` and ``details`` (JSON). Rows of a score's several judges sit side by side."""
    run = store.run(run_id)
    return long_rows_frame(run_meanings(run), store.scores(run.run_id))


def long_rows_frame(
    meanings: Mapping[str, ScoreMeaning], scores: Iterable[tuple[str, int, Score]]
) -> pd.DataFrame:
    """The long layout (see :func:`long_frame`) of these scores of a run whose scores
    mean ``meanings``."""
    judged = run_has_judges(meanings)
    labels = judge_labels(meanings, list(meanings))
    rows = []
    for request_id, trial, score in scores:
        row: dict[str, Any] = {"request_id": request_id, "trial": trial}
        if judged:
            metric, judge = labels.get(score.metric, (score.metric, None))
            row |= {"metric": metric, "judge": judge, "score": score.metric}
        else:
            row["metric"] = score.metric
        row |= {
            "value": score.value,
            "passed": _passed(meanings.get(score.metric), score.value),
            "error": score.error,
            "rationale": score.rationale,
            "skipped": score.skipped,
            "details": json.dumps(score.details, ensure_ascii=False) if score.details else None,
        }
        rows.append(row)
    columns = ["request_id", "trial", "metric", *(["judge", "score"] if judged else [])]
    columns += ["value", "passed", "error", "rationale", "skipped", "details"]
    return pd.DataFrame(rows, columns=columns)


def databricks_frame(store: Store, run_id: str) -> pd.DataFrame:
    """The run's rows as Databricks Agent Evaluation's ``eval_results`` table (see
    :mod:`ragjudge.export._databricks_table`); ``run_id`` may be a unique prefix."""
    return databricks_table(store, store.run(run_id))


def _passed(meaning: ScoreMeaning | None, value: float | None) -> bool | None:
    return None if meaning is None else meaning.passed(value)


def calls_per_row(calls: pd.DataFrame, frame: pd.DataFrame) -> list[str | None]:
    """The ``judge_calls`` column of ``frame``: per row, as JSON, the ``calls`` (stored
    judge calls) its scores name, or None when they name none."""
    # the frame holds a missing text (a parsed value, an error) as NaN: back to None
    records = calls.astype(object).where(calls.notna(), None).to_dict(orient="records")
    by_id = {int(row["call_id"]): _call(row) for row in records}
    id_columns = [c for c in frame.columns if str(c).endswith(".judge_calls")]
    column: list[str | None] = []
    for _, row in frame.iterrows():
        ids: list[int] = []
        for name in id_columns:
            if isinstance(row[name], str):
                ids += [i for i in json.loads(row[name]) if i not in ids]
        found = [by_id[i] for i in sorted(ids) if i in by_id]
        column.append(json.dumps(found, ensure_ascii=False) if found else None)
    return column


def _call(row: Mapping[Any, Any]) -> dict[str, Any]:
    return {
        "call_id": int(row["call_id"]),
        "purpose": row["purpose"],
        "model": f"{row['provider']}/{row['model']}",
        "messages": json.loads(row["messages_json"]),
        "reply": row["text"],
        "parsed": None if row["parsed_json"] is None else json.loads(row["parsed_json"]),
        "error": row["error"],
        "cached": bool(row["cached"]),
    }


def masked_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with the secrets this process knows masked in every text cell
    (:mod:`ragjudge._util.known_secrets`); the frame itself when none is known."""
    if not has_secrets():
        return frame
    return frame.map(lambda cell: mask_secrets_in_json(cell) if isinstance(cell, str) else cell)


def write_export(frame: pd.DataFrame, output: str, fmt: str, stdout: IO[str] | None = None) -> None:
    """Write ``frame`` to the file ``output`` (its folder created) or, for ``-``, to
    standard output; :class:`ExportError` naming the file when it cannot be written.
    Known secrets are masked in every cell (:func:`masked_frame`)."""
    frame = masked_frame(frame)
    if output == STDOUT:
        write_text(frame, stdout or sys.stdout, fmt)
        return
    path = Path(output)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        if fmt == "parquet":
            frame.to_parquet(path, index=False)
            return
        with path.open("w", encoding="utf-8", newline="") as handle:
            write_text(frame, handle, fmt)
    except OSError as exc:
        raise ExportError(f"cannot write {output}: {writable_path_problem(path, exc)}") from None


def writable_path_problem(path: Path, exc: OSError) -> str:
    """Why ``path`` could not be written, in words (a file where a folder should be
    is named)."""
    blocking = next((p for p in reversed(path.parents) if p.exists() and not p.is_dir()), None)
    if blocking is not None:
        return f"{blocking} is a file, not a folder"
    return exc.strerror or str(exc)


def write_text(frame: pd.DataFrame, handle: IO[str], fmt: str) -> None:
    """Write ``frame`` to ``handle`` as JSON Lines, a JSON array or CSV (``fmt``)."""
    if fmt == "jsonl":
        if len(frame):
            frame.to_json(handle, orient="records", lines=True, force_ascii=False)
    elif fmt == "json":
        frame.to_json(handle, orient="records", force_ascii=False, indent=1)
    elif fmt == "csv":
        frame.to_csv(handle, index=False)
    else:
        raise ExportError(f"unknown export format {fmt!r}")

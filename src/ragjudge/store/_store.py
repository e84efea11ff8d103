"""The SQLite store: runs, samples, target outputs, scores and judge calls.

A run's outputs and scores are committed in batches (see :mod:`ragjudge.store._batch`):
every result is stored at most :data:`~ragjudge.store._batch.BATCH_SECONDS` after it
finished, at once when the run ends or is interrupted (Ctrl-C), so a killed process
loses at most the results of that last window and ``--resume`` picks up where the
store stopped. Judge calls are committed one by one, before their requests go out.
"""

from __future__ import annotations

import json
import secrets
import sqlite3
import time
from collections.abc import Iterable, Mapping, Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel

from ragjudge.schema import Output, Sample, Score, ScoreMeaning
from ragjudge.store import _events as run_events
from ragjudge.store import _frames as frames
from ragjudge.store._batches import SubmittedBatches
from ragjudge.store._file import StoreError as StoreError
from ragjudge.store._file import open_store_file, transaction
from ragjudge.store._generated import GeneratedCandidates
from ragjudge.store._judge_calls import JudgeCallStore
from ragjudge.store._labels import StoredLabels
from ragjudge.store._pages import PageReads
from ragjudge.store._rows import OutputRow as OutputRow
from ragjudge.store._rows import ScoreRow as ScoreRow
from ragjudge.store._rows import dumps, timestamp
from ragjudge.store._rows import output_row as output_row
from ragjudge.store._rows import score_name_of as score_name_of
from ragjudge.store._rows import score_rows as score_rows
from ragjudge.store._samples import SampleReads
from ragjudge.store._scores import ScoreColumnReads
from ragjudge.store._table_rows import TableRowReads
from ragjudge.store._tallies import RunTallies

if TYPE_CHECKING:
    import pandas as pd

RunStatus = Literal["running", "completed", "incomplete", "interrupted", "failed"]
"""How a run went. ``running``: being computed (or its process was killed);
``completed``: every result arrived (or at most ``max_error_rate`` of each metric's
failed); ``incomplete``: it ended, but more of a metric's results failed than
``max_error_rate`` allows; ``interrupted``: stopped (Ctrl-C, a signal) before every
result was computed, so resuming finishes it; ``failed``: it stopped on an error, or
a metric has no value at all (every one of its results failed) or the run has none."""


LATEST = "latest"
"""The run id that names the run created last in a store."""


def _like_literal(text: str) -> str:
    """``text`` matched literally by a SQL ``LIKE ... ESCAPE '\\'`` pattern."""
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


class RunNotFound(StoreError, KeyError):
    """No run of the store has the id asked for, or more than one starts with it."""


class RunInfo(BaseModel):
    """One row of the runs table. ``meanings`` says what each score means; None only
    for a run stored before meanings were recorded in a store that could not be written
    since (opening a store records them: :mod:`ragjudge.store._file`)."""

    run_id: str
    name: str | None
    status: RunStatus
    created_at: str
    finished_at: str | None
    config: dict[str, Any]
    versions: dict[str, str]
    n_samples: int
    trials: int
    meanings: dict[str, ScoreMeaning] | None = None


_RUN_COLUMNS = (
    "run_id, name, status, created_at, finished_at, config_json, versions_json,"
    " n_samples, trials, meanings_json"
)


def new_run_id() -> str:
    """A sortable, readable run id: UTC timestamp plus random hex."""
    return time.strftime("%Y%m%d-%H%M%S", time.gmtime()) + "-" + secrets.token_hex(3)


class Store(
    SampleReads,
    PageReads,
    ScoreColumnReads,
    RunTallies,
    JudgeCallStore,
    SubmittedBatches,
    TableRowReads,
    StoredLabels,
    GeneratedCandidates,
):
    """A SQLite file holding every run. Safe to reopen while another process has it open."""

    def __init__(self, path: str | Path, *, write: bool = False) -> None:
        """Open (or create) the store at ``path``; :class:`StoreError` when it cannot
        be one, or with ``write`` when it cannot be written (checked at once)."""
        self.path = Path(path)
        self._conn = open_store_file(self.path, write=write)

    def close(self) -> None:
        """Close the connection."""
        self._conn.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _tx(self) -> AbstractContextManager[sqlite3.Connection]:
        return transaction(self._conn, self.path)

    # runs -----------------------------------------------------------------

    def runs_without_meanings(self) -> list[tuple[str, dict[str, Any]]]:
        """The runs an older version stored without their scores' meanings, each with
        its config record."""
        rows = self._conn.execute(
            "SELECT run_id, config_json FROM runs WHERE meanings_json IS NULL"
        ).fetchall()
        return [(run_id, json.loads(config)) for run_id, config in rows]

    def record_meanings(self, run_id: str, meanings: Mapping[str, ScoreMeaning]) -> None:
        """Give a run stored without its scores' meanings these (a run that has them
        keeps its own)."""
        stored = dumps({name: m.model_dump() for name, m in meanings.items()})
        with self._conn:
            self._conn.execute(
                "UPDATE runs SET meanings_json = ? WHERE run_id = ? AND meanings_json IS NULL",
                (stored, run_id),
            )

    def create_run(
        self,
        *,
        name: str | None,
        config: dict[str, Any],
        versions: dict[str, str],
        samples: Sequence[Sample],
        trials: int,
        run_id: str | None = None,
        meanings: Mapping[str, ScoreMeaning] | None = None,
        pages: Iterable[Sequence[tuple[str, str]]] = (),
    ) -> str:
        """Create a run and store its samples and its scores' meanings; returns the
        run id. ``pages`` holds more samples, after ``samples``, already in their
        stored form — (request id, JSON) — a page at a time, in the same transaction."""
        run_id = run_id or new_run_id()
        stored = None if meanings is None else {k: m.model_dump() for k, m in meanings.items()}
        with self._tx() as conn:
            conn.execute(
                f"INSERT INTO runs ({_RUN_COLUMNS}) VALUES (?, ?, 'running', ?, NULL, ?, ?, ?, ?, ?)",
                (
                    run_id,
                    name,
                    timestamp(),
                    dumps(config),
                    dumps(versions),
                    len(samples),
                    trials,
                    None if stored is None else dumps(stored),
                ),
            )
            conn.executemany(
                "INSERT INTO samples VALUES (?, ?, ?, ?)",
                [(run_id, i, s.request_id, s.model_dump_json()) for i, s in enumerate(samples)],
            )
            count = len(samples)
            for page in pages:
                conn.executemany(
                    "INSERT INTO samples VALUES (?, ?, ?, ?)",
                    [(run_id, count + i, rid, stored) for i, (rid, stored) in enumerate(page)],
                )
                count += len(page)
            if count != len(samples):
                conn.execute("UPDATE runs SET n_samples = ? WHERE run_id = ?", (count, run_id))
        return run_id

    def set_status(self, run_id: str, status: RunStatus) -> None:
        """Set the run's status; any status but ``running`` stamps its finish time."""
        finished = timestamp() if status != "running" else None
        with self._tx() as conn:
            conn.execute(
                "UPDATE runs SET status = ?, finished_at = ? WHERE run_id = ?",
                (status, finished, run_id),
            )

    def record_outcome(self, run_id: str, status: RunStatus) -> None:
        """Give a run that ran to its end (stored ``completed``) the status its results
        say (``incomplete``, ``failed``); its finish time stays."""
        with self._tx() as conn:
            conn.execute(
                "UPDATE runs SET status = ? WHERE run_id = ? AND status = 'completed'",
                (status, run_id),
            )

    def run(self, run_id: str) -> RunInfo:
        """The run with this id; a unique start or end of one will do (``20240518-1402``,
        ``3fa9c1``), and :data:`LATEST` names the run created last. :class:`RunNotFound`
        when no run, or more than one, has it (the message lists the matches)."""
        if run_id == LATEST:
            return self._latest_run()
        rows = self._conn.execute(
            f"SELECT {_RUN_COLUMNS} FROM runs WHERE run_id LIKE ? ESCAPE '\\'"
            " OR run_id LIKE ? ESCAPE '\\' ORDER BY run_id",
            (_like_literal(run_id) + "%", "%" + _like_literal(run_id)),
        ).fetchall()
        exact = [r for r in rows if r[0] == run_id]
        if exact:
            return self._run_info(exact[0])
        if not rows:
            raise RunNotFound(f"no run {run_id!r} in {self.path}")
        if len(rows) > 1:
            ids = ", ".join(r[0] for r in rows)
            raise RunNotFound(
                f"run id {run_id!r} is ambiguous in {self.path}: it matches {ids};"
                " give more of the id"
            )
        return self._run_info(rows[0])

    def _latest_run(self) -> RunInfo:
        row = self._conn.execute(
            f"SELECT {_RUN_COLUMNS} FROM runs ORDER BY created_at DESC, rowid DESC LIMIT 1"
        ).fetchone()
        if row is None:
            raise RunNotFound(f"no run in {self.path} yet, so none is the latest")
        return self._run_info(row)

    def runs(self) -> list[RunInfo]:
        """Every run, oldest first (runs started in the same second in the order they
        were created)."""
        rows = self._conn.execute(
            f"SELECT {_RUN_COLUMNS} FROM runs ORDER BY created_at, rowid"
        ).fetchall()
        return [self._run_info(r) for r in rows]

    @staticmethod
    def _run_info(row: tuple[Any, ...]) -> RunInfo:
        return RunInfo(
            run_id=row[0],
            name=row[1],
            status=row[2],
            created_at=row[3],
            finished_at=row[4],
            config=json.loads(row[5]),
            versions=json.loads(row[6]),
            n_samples=row[7],
            trials=row[8],
            meanings=None if row[9] is None else json.loads(row[9]),
        )

    # outputs and scores -----------------------------------------------------

    def save_output(self, run_id: str, request_id: str, output: Output) -> None:
        """Store (or replace) the target's output for one sample."""
        self.write_results([output_row(run_id, request_id, output)], [])

    def write_results(self, outputs: Sequence[OutputRow], scores: Sequence[ScoreRow]) -> None:
        """Store (or replace) output and score rows in one transaction."""
        with self._tx() as conn:
            if outputs:
                conn.executemany(
                    "INSERT OR REPLACE INTO outputs VALUES (?, ?, ?, ?, ?, ?, ?, ?)", outputs
                )
            if scores:
                conn.executemany(
                    "INSERT OR REPLACE INTO scores VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    scores,
                )

    def outputs(self, run_id: str) -> dict[str, Output]:
        """The run's stored target outputs by request id."""
        rows = self._conn.execute(
            "SELECT request_id, output_json FROM outputs WHERE run_id = ?", (run_id,)
        ).fetchall()
        return {r[0]: Output.model_validate_json(r[1]) for r in rows}

    def save_scores(
        self, run_id: str, request_id: str, trial: int, scores: Iterable[Score]
    ) -> None:
        """Store one sample's scores for one trial in one transaction."""
        self.write_results([], score_rows(run_id, request_id, trial, scores))

    def skipped_counts(self, run_id: str) -> dict[str, int]:
        """Per metric, the results (sample × trial) where it did not apply."""
        rows = self._conn.execute(
            "SELECT metric, COUNT(*) FROM scores WHERE run_id = ? AND skipped IS NOT NULL"
            " GROUP BY metric",
            (run_id,),
        ).fetchall()
        return {str(metric): int(count) for metric, count in rows}

    def discard_errors(self, run_id: str) -> tuple[int, int]:
        """Delete the run's errored scores, and the outputs of samples whose target
        failed, so a resume computes them again; returns (scores, outputs) deleted."""
        with self._tx() as conn:
            scores = conn.execute(
                "DELETE FROM scores WHERE run_id = ? AND error IS NOT NULL", (run_id,)
            ).rowcount
            outputs = conn.execute(
                "DELETE FROM outputs WHERE run_id = ? AND error IS NOT NULL"
                " AND json_extract(output_json, '$.response') IS NULL",
                (run_id,),
            ).rowcount
        return scores, outputs

    def finished_scores(self, run_id: str) -> set[tuple[str, int, str]]:
        """(request_id, trial, metric) of every stored score of the run."""
        rows = self._conn.execute(
            "SELECT request_id, trial, metric FROM scores WHERE run_id = ?", (run_id,)
        ).fetchall()
        return {(r[0], r[1], r[2]) for r in rows}

    def scored_request_ids(self, run_ids: Sequence[str]) -> set[str]:
        """The request ids that have at least one stored score in any of ``run_ids``."""
        marks = ", ".join("?" for _ in run_ids)
        rows = self._conn.execute(
            f"SELECT DISTINCT request_id FROM scores WHERE run_id IN ({marks})", tuple(run_ids)
        ).fetchall()
        return {r[0] for r in rows}

    def scores(self, run_id: str) -> list[tuple[str, int, Score]]:
        """(request_id, trial, Score) for every stored score, in sample order."""
        rows = self._conn.execute(
            "SELECT sc.request_id, sc.trial, sc.metric, sc.value, sc.error, sc.rationale,"
            " sc.details_json, sc.judge_call_ids_json, sc.skipped, sc.judge FROM scores sc"
            " JOIN samples sa ON sa.run_id = sc.run_id AND sa.request_id = sc.request_id"
            " WHERE sc.run_id = ? ORDER BY sa.position, sc.trial, sc.rowid",
            (run_id,),
        ).fetchall()
        return [
            (
                r[0],
                r[1],
                Score(
                    metric=r[2],
                    value=r[3],
                    error=r[4],
                    rationale=r[5],
                    details=json.loads(r[6]),
                    judge_call_ids=json.loads(r[7]),
                    skipped=r[8],
                    judge=r[9],
                ),
            )
            for r in rows
        ]

    def target_usage(self, run_id: str) -> dict[str, Any]:
        """The system under test's token counts and latency over the run's outputs."""
        row = self._conn.execute(
            "SELECT COUNT(*), SUM(input_tokens), SUM(output_tokens), AVG(latency),"
            " SUM(error IS NOT NULL) FROM outputs WHERE run_id = ?",
            (run_id,),
        ).fetchone()
        return {
            "outputs": row[0],
            "input_tokens": row[1] or 0,
            "output_tokens": row[2] or 0,
            "mean_latency": row[3],
            "errors": row[4] or 0,
        }

    # run events -------------------------------------------------------------

    def add_run_event(self, run_id: str, kind: str, data: dict[str, Any]) -> None:
        """Store an event of the run (see :mod:`ragjudge.store._events`)."""
        with self._tx() as conn:
            run_events.add_event(conn, run_id, kind, data)

    def run_events(self, run_id: str, kind: str) -> list[dict[str, Any]]:
        """The run's events of ``kind``, oldest first."""
        return run_events.events(self._conn, run_id, kind)

    # frames -----------------------------------------------------------------

    def score_frame(self, run_id: str, *, metadata: bool = True) -> pd.DataFrame:
        """One row per (sample, trial, metric) with the sample's metadata as
        ``metadata.KEY`` columns (none with ``metadata=False``); the input of
        :mod:`ragjudge.stats`. Built from the stored columns (no :class:`Score`
        objects)."""
        rows = self._conn.execute(
            "SELECT sc.request_id, sc.trial, sc.metric, sc.value, sc.error FROM scores sc"
            " JOIN samples sa ON sa.run_id = sc.run_id AND sa.request_id = sc.request_id"
            " WHERE sc.run_id = ? AND (sc.skipped IS NULL OR sc.skipped = '')"
            " ORDER BY sa.position, sc.trial, sc.rowid",
            (run_id,),
        ).fetchall()
        return frames.score_frame_of_rows(self.sample_metadata(run_id) if metadata else {}, rows)

    def sample_frame(
        self,
        run_id: str,
        excluded: Mapping[str, Sequence[float]] | None = None,
        meanings: Mapping[str, ScoreMeaning] | None = None,
    ) -> pd.DataFrame:
        """One row per (sample, trial): request, response, reference, each metric's
        value, error, rationale, details (JSON: per-reference components, multi-turn
        transcripts …) and judge call ids; with ``excluded`` (values each metric's mean
        leaves out) a ``METRIC.left_out`` flag, with ``meanings`` a ``METRIC.passed``
        flag for each score that has a pass. The form that ``export`` writes."""
        return frames.sample_frame(
            self.samples(run_id), self.outputs(run_id), self.scores(run_id), excluded, meanings
        )

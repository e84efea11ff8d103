"""Incremental runs: evaluating only the rows of a set that no earlier run of the same
config (the same :func:`~ragjudge.config._fingerprint.config_fingerprint`) has scored,
so a nightly job over an appended log pays for the new rows alone."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ragjudge.config import ConfigError, EvalConfig
from ragjudge.config._fingerprint import config_fingerprint, runs_of_fingerprint
from ragjudge.loading import LoadReport
from ragjudge.schema import Sample
from ragjudge.store._events import INCREMENTAL, NOTE
from ragjudge.store._store import RunInfo, Store

__all__ = [
    "INCREMENTAL",
    "Continuation",
    "check_named_rows",
    "continuation",
    "record_continuation",
]


def check_named_rows(report: LoadReport, where: str) -> None:
    """Refuse a set whose rows lack their own request ids for an incremental run: an id
    derived from a row's number shifts as the log grows, one derived from its content
    changes with any edit, so neither says which rows were scored before."""
    if not report.unnamed_rows:
        return
    rows = report.unnamed_rows
    shown = ", ".join(str(row) for row in rows[:5]) + (" …" if len(rows) > 5 else "")
    raise ConfigError(
        f"{where}: an incremental run needs a request id on every row, and "
        f"{len(rows)} row(s) of {report.source} have none (rows {shown}); add an id column "
        "(request_id, or map one with 'columns: {request_id: YOUR_COLUMN}')"
    )


@dataclass(frozen=True)
class Continuation:
    """What an incremental run continues: the earlier runs of its config and how many
    rows of its set they had scored already."""

    fingerprint: str
    continues: list[str]
    skipped_rows: int

    def note(self, new_rows: int) -> str:
        """The run's note saying what it left out."""
        if not self.continues:
            return f"incremental: no earlier run of this config; all {new_rows} rows are new"
        return (
            f"incremental: {new_rows} new rows; {self.skipped_rows} rows already scored by "
            f"{len(self.continues)} earlier run(s) of this config (last {self.continues[-1]})"
        )


def continuation(config: EvalConfig, samples: list[Sample]) -> tuple[Continuation, list[Sample]]:
    """The earlier runs of ``config`` in its store and the rows of ``samples`` none of
    them has scored. A row counts as scored when an earlier run stored a result for it
    (an errored one too: resume that run with ``--retry-errors`` to compute it again)."""
    fingerprint = config_fingerprint(config.to_record())
    earlier = _earlier_runs(config.store_path, fingerprint)
    scored = _scored_ids(config.store_path, [run.run_id for run in earlier])
    new = [sample for sample in samples if sample.request_id not in scored]
    found = Continuation(fingerprint, [run.run_id for run in earlier], len(samples) - len(new))
    return found, new


def _earlier_runs(store_path: Path, fingerprint: str) -> list[RunInfo]:
    if not store_path.exists():
        return []
    with Store(store_path) as store:
        return runs_of_fingerprint(store.runs(), fingerprint)


def _scored_ids(store_path: Path, run_ids: Sequence[str]) -> set[str]:
    if not run_ids:
        return set()
    with Store(store_path) as store:
        return store.scored_request_ids(run_ids)


def record_continuation(store: Store, run_id: str, found: Continuation, new_rows: int) -> None:
    """Keep with the run what it continued (its event) and say it (its note)."""
    store.add_run_event(
        run_id,
        INCREMENTAL,
        {
            "fingerprint": found.fingerprint,
            "continues": found.continues,
            "new_rows": new_rows,
            "skipped_rows": found.skipped_rows,
        },
    )
    store.add_run_event(run_id, NOTE, {"text": found.note(new_rows)})

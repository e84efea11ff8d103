"""Writing reports to files: where they go by default, written whole or not at all,
and the report a config asks for at the end of every run."""

from __future__ import annotations

import os
import secrets
from collections.abc import Sequence
from pathlib import Path

from ragjudge.html._run import run_report_html
from ragjudge.store import Store

__all__ = [
    "ReportError",
    "run_report_path",
    "write_run_report",
]


class ReportError(Exception):
    """A report could not be written; the message names the file and why."""


def run_report_path(store_path: Path, run_id: str) -> Path:
    """The default file of a run's report: ``reports/RUN.html`` beside the store."""
    return store_path.parent / "reports" / f"{run_id}.html"


def _write(path: Path, html: str) -> Path:
    """Write ``html`` to ``path`` through a temporary file, so that a reader never sees
    half a report."""
    if path.is_dir():
        raise ReportError(f"cannot write the report {path}: it is a folder; give a file name")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
        try:
            temporary.write_text(html, encoding="utf-8", newline="\n")
            os.replace(temporary, path)
        except BaseException:
            temporary.unlink(missing_ok=True)
            raise
    except OSError as exc:
        blocking = next((p for p in reversed(path.parents) if p.exists() and not p.is_dir()), None)
        reason = f"{blocking} is a file, not a folder" if blocking else exc.strerror or str(exc)
        raise ReportError(f"cannot write the report {path}: {reason}") from None
    return path


def write_run_report(
    store: Store,
    run_id: str,
    path: Path | None = None,
    *,
    by: str | None = None,
    human: Sequence[str] = (),
) -> Path:
    """Write the report of ``run_id`` (default file: :func:`run_report_path`); returns
    where. ``KeyError``/``ValueError`` for an unknown run or key, :class:`ReportError`
    when the file cannot be written."""
    run = store.run(run_id)
    html = run_report_html(store, run.run_id, by=by, human=human)
    return _write(path or run_report_path(store.path, run.run_id), html)

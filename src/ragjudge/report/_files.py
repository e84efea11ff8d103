"""Writing reports to files: where they go by default, written whole or not at all,
and the report a config asks for at the end of every run."""

from __future__ import annotations

import os
import secrets
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ragjudge.errors import ExportError
from ragjudge.report._compare import comparison_report_html
from ragjudge.report._run import run_report_html
from ragjudge.store._store import Store

if TYPE_CHECKING:
    from ragjudge.analysis._results import EvaluationResult
    from ragjudge.config import EvalConfig

__all__ = [
    "ReportError",
    "comparison_report_path",
    "run_report_path",
    "write_comparison_report",
    "write_configured_report",
    "write_result_report",
    "write_run_report",
]


class ReportError(ExportError):
    """A report could not be written; the message names the file and why."""


def run_report_path(store_path: Path, run_id: str) -> Path:
    """The default file of a run's report: ``reports/RUN.html`` beside the store."""
    return store_path.parent / "reports" / f"{run_id}.html"


def comparison_report_path(store_path: Path, run_a: str, run_b: str) -> Path:
    """The default file of a comparison: ``reports/RUN_A-vs-RUN_B.html`` beside the store."""
    return store_path.parent / "reports" / f"{run_a}-vs-{run_b}.html"


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


def write_result_report(result: EvaluationResult, path: Path | None = None) -> Path:
    """Write the report of a run's result (``result.report()``), broken down by the
    result's own ``by``; returns where."""
    with Store(result.store_path) as store:
        return write_run_report(store, result.run_id, path, by=result.by)


def write_comparison_report(
    store_a: Store,
    run_a: str,
    store_b: Store,
    run_b: str,
    path: Path | None = None,
    *,
    by: str | None = None,
) -> Path:
    """Write the comparison of run B with run A (default file:
    :func:`comparison_report_path` beside A's store); returns where."""
    a, b = store_a.run(run_a).run_id, store_b.run(run_b).run_id
    html = comparison_report_html(store_a, a, store_b, b, by=by)
    return _write(path or comparison_report_path(store_a.path, a, b), html)


def write_configured_report(result: EvaluationResult, store: Store, config: EvalConfig) -> None:
    """The report a config's ``report:`` asks for, written when its run ends: sets
    ``result.report_path``, or ``result.report_error`` when it could not be written
    (the run's results are stored either way)."""
    path = config.report_path(result.run_id)
    if path is None or config.report is None:
        return
    try:
        html = run_report_html(store, result.run_id, by=result.by, human=config.report.human)
        result.report_path = _write(path, html)
    except (ReportError, ValueError, KeyError) as exc:
        result.report_error = str(exc.args[0]) if isinstance(exc, KeyError) else str(exc)

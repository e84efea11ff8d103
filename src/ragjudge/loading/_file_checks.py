"""Problems with an evaluation-set source as a whole (row 0), and the check that a
Parquet file holds data rather than a Git LFS pointer."""

from __future__ import annotations

from pathlib import Path

from ragjudge._util.textfiles import refuse_lfs_pointer
from ragjudge.errors import DatasetError, RowProblem, TextFileError

__all__ = ["file_error", "file_problem", "refuse_lfs_parquet"]


def file_problem(label: str, reason: str) -> RowProblem:
    """A problem with the source as a whole (row 0)."""
    return RowProblem(source=label, row=0, field="<file>", reason=reason)


def file_error(label: str, reason: str) -> DatasetError:
    """A problem that stops the whole file from being read."""
    return DatasetError([file_problem(label, reason)])


def refuse_lfs_parquet(path: Path, label: str) -> None:
    """Refuse a Parquet file that is a Git LFS pointer, or that cannot be read at all."""
    try:
        refuse_lfs_pointer(path, label)
    except TextFileError as exc:
        raise file_error(label, exc.reason) from None
    except OSError as exc:
        raise file_error(label, f"cannot be read: {exc.strerror or exc}") from None

"""One process at a time per run: a run (new or resumed) holds an exclusive lock on a
file beside its store while it executes, so two ``--resume`` of the same run cannot
both pay for its missing work. The operating system releases the lock when the
process ends, however it ends."""

from __future__ import annotations

import fcntl
import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

from ragjudge.errors import StoreError

__all__ = ["RunBusy", "run_lock"]


class RunBusy(StoreError, OSError):
    """Another process is executing the run."""


@contextmanager
def run_lock(store_path: Path, run_id: str) -> Iterator[None]:
    """Hold run ``run_id``'s lock (``locks/<run>.lock`` beside the store) for the block;
    :class:`RunBusy`, naming the holder's process id, when another process holds it."""
    with _lock_file(store_path, run_id) as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.seek(0)
            holder = handle.read().strip() or "unknown"
            raise RunBusy(
                f"run {run_id} is being executed by another process (pid {holder}); "
                "wait for it to end (or stop it) before resuming it"
            ) from None
        handle.seek(0)
        handle.truncate()
        handle.write(str(os.getpid()))
        handle.flush()
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _lock_file(store_path: Path, run_id: str) -> IO[str]:
    """The run's lock file, opened for reading and appending (created with its
    folder); :class:`StoreError` naming it when that cannot be done."""
    path = store_path.parent / "locks" / (re.sub(r"[^\w.-]", "_", run_id) + ".lock")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        return path.open("a+", encoding="utf-8")
    except OSError as exc:
        raise StoreError(f"cannot lock run {run_id}: {path}: {exc.strerror or exc}") from None

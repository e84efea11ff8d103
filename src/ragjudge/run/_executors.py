"""Where a run's samples are evaluated (the ``executor`` setting): this process, or Ray
workers. The runner asks the chosen :class:`ExecutorKind` what it needs to know — how
samples are read, whether work starts before the run is stored — and to build the
execution, so it never names an executor itself; the Ray modules are imported only when
a run chooses Ray.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ragjudge.run._execution import Execution, ExecutionParts
from ragjudge.run._paged import PagedExecution

if TYPE_CHECKING:
    from ragjudge.config import EvalConfig

__all__ = ["LOCAL_WHOLE_ROWS", "ExecutionParts", "ExecutorKind", "executor_kind"]


@dataclass(frozen=True)
class ExecutorKind:
    """One value of the ``executor`` setting."""

    name: str
    reads_in_pages: bool
    """Samples it can take page by page: a resumed run's stay in the store and a folder
    of Parquet files is spooled, rather than either being held whole."""
    held_whole_up_to: int
    """Sets of at most this many rows are held whole all the same (see
    :meth:`in_pages`)."""
    plans_before_storing: bool
    """A new run's work is planned (and its scoring processes started) before the run
    and its samples are stored, so that they score meanwhile."""
    judges_here: bool
    """The judge calls are made in this process, so each model is asked the pre-flight
    question when its first request goes out (else every model is asked up front)."""
    check: Callable[[EvalConfig], None]
    """Raises a :class:`~ragjudge.config.ConfigError` before anything is stored when the
    executor cannot run (a missing extra, a cluster that does not answer)."""
    build: Callable[[ExecutionParts], Execution]

    def in_pages(self, rows: int | None) -> bool:
        """Whether a set of ``rows`` rows (None: not known before reading it) that can
        be read in pages is: always on Ray; locally above :data:`LOCAL_WHOLE_ROWS`,
        where holding the set would cost more memory than planning it all at once
        saves time."""
        if not self.reads_in_pages:
            return False
        return self.held_whole_up_to == 0 or rows is None or rows > self.held_whole_up_to


def _no_check(config: EvalConfig) -> None:
    return None


LOCAL_WHOLE_ROWS = 50_000
"""The most rows a local run holds whole when it could read them in pages (a folder of
Parquet files, a resumed run's stored samples): a set this small takes some 200 MB, and
held whole its work is planned and its scoring processes started while the run is
stored."""


def _local_execution(parts: ExecutionParts) -> Execution:
    kind = PagedExecution if parts.samples_in_store else Execution
    return kind(
        parts.store,
        parts.run_id,
        parts.metrics,
        parts.config.trials,
        parts.context,
        parts.agents,
        processes=parts.config.processes,
        busy_cpus=parts.busy_cpus,
    )


def _ray(name: str) -> Any:
    return getattr(importlib.import_module("ragjudge.run.ray"), name)


_KINDS = {
    "local": ExecutorKind(
        "local",
        reads_in_pages=True,
        held_whole_up_to=LOCAL_WHOLE_ROWS,
        plans_before_storing=True,
        judges_here=True,
        check=_no_check,
        build=_local_execution,
    ),
    "ray": ExecutorKind(
        "ray",
        reads_in_pages=True,
        held_whole_up_to=0,
        plans_before_storing=False,
        judges_here=False,
        check=lambda config: _ray("require_ray")(config),
        build=lambda parts: _ray("ray_execution")(parts),
    ),
}


def executor_kind(name: str) -> ExecutorKind:
    """The executor the ``executor`` setting names (validated with the config)."""
    return _KINDS[name]

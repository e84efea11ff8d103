"""The run's results table (the ``results_table`` setting): its sink attached to the
result writer while the run executes, and the run's rows checked against the store when
it stops (see :mod:`ragjudge.store._table_sink`)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from ragjudge.config import EvalConfig
from ragjudge.store import Store
from ragjudge.store._batch import ResultWriter
from ragjudge.store._table_sink import TableSink, check_table_format

__all__ = ["check_results_table", "results_table_kept"]


def check_results_table(config: EvalConfig) -> None:
    """Before anything runs: the package the table's format needs is installed."""
    if config.results_table is not None:
        check_table_format(config.results_table.format)


def judge_models(config: EvalConfig) -> dict[str | None, str]:
    """The model of each judge by the name its scores carry (None: the run's one judge)."""
    models: dict[str | None, str] = {
        name: judge.model for name, judge in (config.judges or {}).items()
    }
    if config.judge is not None:
        models[None] = config.judge.model
    return models


@contextmanager
def results_table_kept(
    config: EvalConfig, store: Store, run_id: str, writer: ResultWriter
) -> Iterator[TableSink | None]:
    """While the stored run executes, append every batch ``writer`` commits to the
    config's results table; when it stops, write the run again from the store if the
    table's rows differ from the store's (a kill between the two, retried errors)."""
    settings = config.results_table
    if settings is None:
        yield None
        return
    sink = TableSink(
        store,
        run_id,
        config.resolve(settings.path),
        settings.format,
        settings.partition_by,
        judge_models(config),
    )
    writer.sink = sink
    try:
        yield sink
    finally:
        writer.sink = None
        sink.reconcile()

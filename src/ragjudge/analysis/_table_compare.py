"""Paired comparison of two runs read from a results table (``results_table``
setting): each run's score rows a page at a time, reduced to per-sample means as
:func:`ragjudge.analysis._compare.compare_runs` reduces a stored run's.

The table holds the scores, not their meanings: which values a score's mean leaves
out, which scores are better lower and their pass thresholds come from the store when
it still holds the runs. Without them every value counts, higher is better and no
pass rates are given.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING

from ragjudge.analysis._compare import RunValues, compare_values, unique_ids
from ragjudge.analysis._comparison import Comparison, RunRef
from ragjudge.analysis._meanings import exclusions, merged_meanings, run_meanings
from ragjudge.analysis._run_values import MetricValues, metric_values
from ragjudge.errors import AnalysisError
from ragjudge.schema import ScoreMeaning
from ragjudge.store._store import RunInfo, RunNotFound, Store
from ragjudge.store._table_reader import ResultsTable

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt
    import pandas as pd
    import pyarrow as pa

__all__ = ["compare_table_runs", "in_store_order"]

UNKNOWN_STATUS = "status unknown: not in the store"


def compare_table_runs(
    table: ResultsTable,
    run_a: str,
    run_b: str,
    *,
    store: Store | None = None,
    by: str | None = None,
    metrics: Sequence[str] | None = None,
    seed: int = 0,
    confidence: float = 0.95,
    n_resamples: int = 2000,
) -> Comparison:
    """Compare run B with run A, both read from ``table`` (each named by its id, a
    unique start or end of it, or ``latest``). The score meanings come from ``store``
    when it holds the runs. ``by`` is an :class:`~ragjudge.errors.AnalysisError`: the
    table does not keep the samples' metadata."""
    if by is not None:
        raise AnalysisError(
            "--by needs the samples' metadata, which a results table does not keep; "
            "compare the runs from the store for subsets"
        )
    id_a, id_b = table.run_id(run_a), table.run_id(run_b)
    info_a, info_b = _stored_info(store, id_a), _stored_info(store, id_b)
    meanings = merged_meanings(info_a, info_b) if info_a and info_b else {}
    exclude = exclusions(meanings)
    values_a = _table_run_values(table, id_a, exclude, run_meanings(info_a) if info_a else {})
    values_b = _table_run_values(table, id_b, exclude, run_meanings(info_b) if info_b else {})
    if store is not None and info_a is not None:
        # The pairs are taken in run A's sample order; the store's order makes the
        # intervals those of a comparison from the store (a table is partitioned).
        values_a = in_store_order(values_a, unique_ids(store.request_ids(id_a)))
    return compare_values(
        values_a,
        values_b,
        refs=(_run_ref(table, id_a, info_a), _run_ref(table, id_b, info_b)),
        meanings=meanings,
        by=None,
        metrics=metrics,
        exclude=exclude,
        lower_is_better=None,
        seed=seed,
        confidence=confidence,
        n_resamples=n_resamples,
    )


def _stored_info(store: Store | None, run_id: str) -> RunInfo | None:
    if store is None:
        return None
    try:
        return store.run(run_id)
    except RunNotFound:
        return None


def _run_ref(table: ResultsTable, run_id: str, info: RunInfo | None) -> RunRef:
    return RunRef(
        run_id=run_id,
        name=None if info is None else info.name,
        status=UNKNOWN_STATUS if info is None else info.status,
        store=str(table.root),
    )


def _table_run_values(
    table: ResultsTable,
    run_id: str,
    exclude: Mapping[str, Sequence[float]],
    meanings: dict[str, ScoreMeaning],
) -> RunValues:
    """The run's :class:`RunValues`, its samples numbered in the order they are read."""
    import pandas as pd

    numbers: dict[str, int] = {}
    found = metric_values(
        _value_chunks(table.score_value_pages(run_id), numbers), exclude, meanings
    )
    if not found:
        raise AnalysisError(f"run {run_id} in the results table {table.root} has no scores")
    ids = pd.Index(list(numbers), dtype=object)
    return RunValues(ids, found, None, frozenset())


def _value_chunks(
    pages: Iterator[pa.RecordBatch], numbers: dict[str, int]
) -> Iterator[pd.DataFrame]:
    """Each page's applicable rows as the columns :func:`metric_values` reads; each
    request id gets the next number the first time it is read."""
    import numpy as np
    import pandas as pd

    for page in pages:
        frame = page.to_pandas()
        frame = frame[frame["skipped"].isna() | (frame["skipped"] == "")]
        samples = np.fromiter(
            (numbers.setdefault(rid, len(numbers)) for rid in frame["request_id"]),
            dtype=np.int64,
            count=len(frame),
        )
        error = frame["error"]
        yield pd.DataFrame(
            {
                "sample": samples,
                "metric": frame["score"].to_numpy(dtype=object),
                "value": frame["value"].to_numpy(dtype=np.float64, na_value=np.nan),
                "error": (error.notna() & (error != "")).to_numpy(dtype=bool),
            }
        )


def in_store_order(values: RunValues, stored_ids: pd.Index) -> RunValues:
    """``values`` with its samples numbered by their position in the store (unchanged
    when the store lacks one of them)."""
    import numpy as np

    positions = stored_ids.get_indexer(values.ids)
    if np.any(positions < 0):
        return values
    metrics = {name: _renumbered(found, positions) for name, found in values.metrics.items()}
    return RunValues(stored_ids, metrics, None, frozenset())


def _renumbered(values: MetricValues, positions: npt.NDArray[np.intp]) -> MetricValues:
    import numpy as np

    samples = positions[values.samples].astype(np.int64)
    order = np.argsort(samples, kind="stable")
    return MetricValues(
        samples[order],
        values.state[order],
        values.means[order],
        None if values.passes is None else values.passes[order],
    )

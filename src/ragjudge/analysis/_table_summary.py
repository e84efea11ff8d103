"""A run's scores summarised from pages of score rows (the results table's layout,
:mod:`ragjudge.store._table_reader`): per score, how many results, how many were not
applicable or failed, and the mean, lowest and highest value. What ``show --table``
prints, in memory bounded by one page whatever the run's size."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pyarrow as pa

__all__ = ["ScoreSummary", "summarize_score_pages"]


@dataclass
class ScoreSummary:
    """One score's results in a run. ``mean`` is over the values of applicable results
    (trials not averaged per sample first, no value left out)."""

    score: str
    results: int = 0
    not_applicable: int = 0
    errors: int = 0
    values: int = 0
    total: float = 0.0
    lowest: float | None = None
    highest: float | None = None

    @property
    def mean(self) -> float | None:
        """The mean value; None without a value."""
        return self.total / self.values if self.values else None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: the counts, the mean, lowest and highest value."""
        found = asdict(self)
        del found["total"]
        return found | {"mean": self.mean}


def summarize_score_pages(pages: Iterable[pa.RecordBatch]) -> list[ScoreSummary]:
    """Each score's :class:`ScoreSummary`, in the order the scores are first read."""
    summaries: dict[str, ScoreSummary] = {}
    for page in pages:
        for row in _grouped(page):
            name = str(row["score"])
            summary = summaries.setdefault(name, ScoreSummary(name))
            _add(summary, row)
    return list(summaries.values())


def _grouped(page: pa.RecordBatch) -> list[dict[str, Any]]:
    """Per score of ``page``: its counts and value aggregates (Arrow's group by)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    skipped = pc.is_valid(page.column("skipped"))
    applicable = pc.invert(skipped)
    failed = pc.and_(
        applicable,
        pc.and_(pc.is_valid(page.column("error")), pc.not_equal(page.column("error"), "")),
    )
    valued = pc.if_else(applicable, page.column("value"), pa.scalar(None, pa.float64()))
    table = pa.table(
        {
            "score": page.column("score"),
            "skipped": pc.cast(skipped, pa.int64()),
            "failed": pc.cast(pc.fill_null(failed, False), pa.int64()),
            "valued": valued,
        }
    )
    grouped = table.group_by("score", use_threads=False).aggregate(
        [
            ("skipped", "count"),
            ("skipped", "sum"),
            ("failed", "sum"),
            ("valued", "count"),
            ("valued", "sum"),
            ("valued", "min"),
            ("valued", "max"),
        ]
    )
    rows: list[dict[str, Any]] = grouped.to_pylist()
    order = {name: at for at, name in enumerate(dict.fromkeys(page.column("score").to_pylist()))}
    return sorted(rows, key=lambda row: order[row["score"]])


def _add(summary: ScoreSummary, row: dict[str, Any]) -> None:
    summary.results += int(row["skipped_count"])
    summary.not_applicable += int(row["skipped_sum"] or 0)
    summary.errors += int(row["failed_sum"] or 0)
    summary.values += int(row["valued_count"])
    summary.total += float(row["valued_sum"] or 0.0)
    low, high = row["valued_min"], row["valued_max"]
    if low is not None:
        summary.lowest = low if summary.lowest is None else min(summary.lowest, low)
    if high is not None:
        summary.highest = high if summary.highest is None else max(summary.highest, high)

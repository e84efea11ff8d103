"""When a run holds its evaluation set whole: the warning above the size where that
costs more memory than a machine is likely to spare.

A sample held by a local run costs about :data:`HELD_BYTES_PER_ROW` bytes for a row of
a few short fields (measured at 100,000 rows: the sample, its request id in the run's
plan, its output and score keys); longer fields cost more, so the estimate is a floor.
"""

from __future__ import annotations

__all__ = ["HELD_BYTES_PER_ROW", "WARN_HELD_BYTES", "held_whole_warning"]

HELD_BYTES_PER_ROW = 4_500
"""Memory a local run takes per row of a set it holds whole (a floor: short fields)."""
WARN_HELD_BYTES = 1_000_000_000
"""Above this estimate, a run that holds its set whole says so."""


def held_whole_warning(rows: int) -> str | None:
    """The warning for a run holding ``rows`` samples whole, or None below
    :data:`WARN_HELD_BYTES`."""
    estimate = rows * HELD_BYTES_PER_ROW
    if estimate <= WARN_HELD_BYTES:
        return None
    return (
        f"the {rows:,} rows of the evaluation set are held in memory whole (at least "
        f"{estimate / 1e9:.1f} GB); give the set as a folder of Parquet files (read a page "
        "at a time), or set 'executor: ray'"
    )

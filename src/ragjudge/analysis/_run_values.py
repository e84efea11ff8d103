"""One run's scores reduced to compact per-sample arrays: what the paired comparison
reads, small per row at any run size.

Score rows arrive in chunks of four columns — ``sample`` (an int: the sample's
position), ``metric``, ``value`` (NaN without one) and ``error`` (whether the row
carries an error message) — and are reduced, per metric, to one entry per sample: the
mean of its usable trial values (those neither failed nor excluded), whether every
trial failed or every usable one is an excluded value, and whether the sample passed
the score's threshold. The same reductions as :func:`ragjudge.stats.sample_means` and
:func:`ragjudge.analysis._passes.sample_passes`, without a Python object per row.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from ragjudge.schema import ScoreMeaning

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "EXCLUDED",
    "FAILED",
    "NO_PASS",
    "USABLE",
    "MetricValues",
    "metric_values",
]

USABLE = 1
"""The sample has a mean of usable values."""
FAILED = 2
"""Every trial of the sample failed."""
EXCLUDED = 3
"""The sample's usable trials are all values the mean leaves out."""
NO_PASS = -1
"""The sample has no pass (an error, a value left out, or no threshold)."""

IntArray = npt.NDArray[np.int64]
Int8Array = npt.NDArray[np.int8]
FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True)
class MetricValues:
    """One metric's results in one run, one entry per sample with any result."""

    samples: IntArray
    """The samples (positions) with a result, ascending."""
    state: Int8Array
    """:data:`USABLE`, :data:`FAILED` or :data:`EXCLUDED` for each sample."""
    means: FloatArray
    """The mean of each sample's usable trial values (NaN unless usable)."""
    passes: Int8Array | None
    """1 passed, 0 failed, :data:`NO_PASS` per sample; None when the score has no pass."""


def metric_values(
    chunks: Iterable[pd.DataFrame],
    exclude: Mapping[str, Sequence[float]],
    meanings: Mapping[str, ScoreMeaning],
) -> dict[str, MetricValues]:
    """Each metric's :class:`MetricValues`, in order of the metric's first row.

    ``exclude[metric]`` lists the values left out of the comparison's means; the pass
    of a score with one (its meaning in ``meanings``) is taken on the mean of its
    non-empty values other than those its meaning leaves out, as the run's pass rates
    are.
    """
    order: dict[str, int] = {}
    parts: list[tuple[IntArray, npt.NDArray[np.int16], FloatArray, npt.NDArray[np.bool_]]] = []
    for chunk in chunks:
        if len(chunk):
            parts.append(_compact(chunk, order))
    if not parts:
        return {}
    samples, codes, values, errors = (np.concatenate(column) for column in zip(*parts, strict=True))
    del parts
    results = {}
    for metric, code in order.items():
        chosen = np.flatnonzero(codes == code)
        results[metric] = _one_metric(
            samples[chosen],
            values[chosen],
            errors[chosen],
            exclude.get(metric, ()),
            meanings.get(metric),
        )
    return results


def _compact(
    chunk: pd.DataFrame, order: dict[str, int]
) -> tuple[IntArray, npt.NDArray[np.int16], FloatArray, npt.NDArray[np.bool_]]:
    """A chunk's columns as arrays, each metric name replaced by its number (numbered
    in order of first appearance across the chunks): a few bytes per row."""
    import pandas as pd

    for name in dict.fromkeys(chunk["metric"]):
        order.setdefault(str(name), len(order))
    codes = pd.Categorical(chunk["metric"].astype(str), categories=list(order)).codes
    return (
        chunk["sample"].to_numpy(dtype=np.int64),
        codes.astype(np.int16),
        chunk["value"].to_numpy(dtype=np.float64, na_value=np.nan),
        chunk["error"].to_numpy(dtype=bool),
    )


def _one_metric(
    samples: IntArray,
    values: FloatArray,
    errors: npt.NDArray[np.bool_],
    exclude: Sequence[float],
    meaning: ScoreMeaning | None,
) -> MetricValues:
    usable = ~errors & np.isfinite(values)
    kept = usable & ~np.isin(values, np.asarray(list(exclude), dtype=np.float64))
    present = np.unique(samples)
    means = _group_means(samples[kept], values[kept])
    state = np.full(present.size, EXCLUDED, dtype=np.int8)
    state[~np.isin(present, samples[usable])] = FAILED
    mean_of = np.full(present.size, np.nan)
    at = np.searchsorted(present, means.index.to_numpy(dtype=np.int64))
    state[at] = USABLE
    mean_of[at] = means.to_numpy(dtype=np.float64)
    passes = (
        None
        if meaning is None or not meaning.has_pass
        else _passes(present, samples, values, meaning)
    )
    return MetricValues(present, state, mean_of, passes)


def _group_means(samples: IntArray, values: FloatArray) -> pd.Series[float]:
    """The mean per sample, summed in row order as the run summary's means are."""
    import pandas as pd

    return pd.Series(values).groupby(samples, sort=True).mean()


def _passes(
    present: IntArray, samples: IntArray, values: FloatArray, meaning: ScoreMeaning
) -> Int8Array:
    """Whether each sample passed on the exact mean of its values that count."""
    import pandas as pd

    counted = ~np.isnan(values) & ~np.isin(values, np.asarray(meaning.excluded, dtype=float))
    series = pd.Series(values[counted])
    grouped = series.groupby(samples[counted], sort=True)
    sizes = grouped.size()
    means = grouped.first().astype(np.float64)
    several = sizes.index[sizes.to_numpy() > 1]
    if len(several):
        # A correctly rounded sum, as the per-run pass rates take it.
        multi = np.isin(samples[counted], several.to_numpy())
        sums = series[multi].groupby(samples[counted][multi], sort=True).agg(math.fsum)
        means.loc[sums.index] = sums / sizes.loc[sums.index]
    passed = np.full(present.size, NO_PASS, dtype=np.int8)
    at = np.searchsorted(present, means.index.to_numpy(dtype=np.int64))
    passed[at] = _pass_codes(np.asarray(means.to_numpy(), dtype=np.float64), meaning)
    return passed


def _pass_codes(means: FloatArray, meaning: ScoreMeaning) -> Int8Array:
    """:meth:`ScoreMeaning.passed` of each mean, as 1, 0 or :data:`NO_PASS`."""
    distinct, where = np.unique(means, return_inverse=True)
    codes = np.array(
        [_pass_code(meaning.passed(float(value))) for value in distinct], dtype=np.int8
    )
    return codes[where.reshape(-1)]


def _pass_code(passed: bool | None) -> int:
    return NO_PASS if passed is None else int(passed)

"""Percentile bootstrap intervals of a mean, and the memory-bounded batches every
resampling statistic draws its resamples in."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import nullcontext
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from ragjudge._util.parallel import usable_cpus

# Upper bound on resample-matrix cells held in memory at once (8 bytes each).
_BOOTSTRAP_BATCH_CELLS = 2_000_000
# Resample cells gathered from the data at once (widened indices and gathered values).
_GATHER_CELLS = 1_000_000

FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True)
class Interval:
    """A closed interval ``[low, high]``."""

    low: float
    high: float


def bootstrap_ci(
    values: Sequence[float] | FloatArray,
    *,
    confidence: float = 0.95,
    n_resamples: int = 2000,
    seed: int = 0,
) -> Interval | None:
    """Percentile bootstrap confidence interval of the mean of ``values``.

    Returns None with fewer than two values and a zero-width interval when all values
    are equal. The same values, settings and seed always give the same interval.
    """
    [interval] = bootstrap_cis([values], confidence=confidence, n_resamples=n_resamples, seed=seed)
    return interval


def bootstrap_cis(
    columns: Sequence[Sequence[float] | FloatArray],
    *,
    confidence: float = 0.95,
    n_resamples: int = 2000,
    seed: int = 0,
) -> list[Interval | None]:
    """:func:`bootstrap_ci` of each column. With one seed, columns of one length are
    resampled at the same positions, so the indices are drawn once for all of them
    (several metrics over the same samples) — the same intervals, in less time."""
    check_bootstrap_settings(confidence, n_resamples)
    arrays = [np.asarray(values, dtype=np.float64) for values in columns]
    intervals: list[Interval | None] = [None] * len(arrays)
    by_length: dict[int, list[int]] = {}
    for position, data in enumerate(arrays):
        if not np.all(np.isfinite(data)):
            raise ValueError("bootstrap_ci needs finite values; drop errors before calling it")
        if data.size < 2:
            continue
        if np.all(data == data[0]):
            intervals[position] = Interval(float(data[0]), float(data[0]))
            continue
        by_length.setdefault(data.size, []).append(position)
    tail = (1 - confidence) / 2
    for positions in by_length.values():
        resampled = _resampled_means([arrays[p] for p in positions], n_resamples, seed)
        for position, means in zip(positions, resampled, strict=True):
            low, high = np.quantile(means, [tail, 1 - tail])
            intervals[position] = Interval(float(low), float(high))
    return intervals


def check_bootstrap_settings(confidence: float, n_resamples: int) -> None:
    """Raise ``ValueError`` unless 0 < ``confidence`` < 1 and ``n_resamples`` >= 1."""
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be between 0 and 1, got {confidence}")
    if n_resamples < 1:
        raise ValueError(f"n_resamples must be positive, got {n_resamples}")


def batch_sizes(n_resamples: int, width: int) -> Iterator[int]:
    """Sizes of the batches that draw ``n_resamples`` rows of ``width`` cells each while
    keeping every batch within :data:`_BOOTSTRAP_BATCH_CELLS`."""
    batch = max(1, _BOOTSTRAP_BATCH_CELLS // width)
    for start in range(0, n_resamples, batch):
        yield min(batch, n_resamples - start)


def _resampled_means(arrays: Sequence[FloatArray], n_resamples: int, seed: int) -> list[FloatArray]:
    """For each of the equally long ``arrays``, the means of ``n_resamples`` resamples
    with replacement, drawn in memory-bounded batches (the same positions for each)."""
    rng = np.random.default_rng(seed)
    n = arrays[0].size
    parts: list[list[FloatArray]] = [[] for _ in arrays]
    rows = max(1, _GATHER_CELLS // n)
    threads = min(len(arrays), usable_cpus())
    # numpy gathers and averages without the GIL: the arrays share the cores. Each
    # array's means are the same whichever thread computes them.
    with ThreadPoolExecutor(threads) if threads > 1 else nullcontext() as pool:
        for size in batch_sizes(n_resamples, n):
            drawn = rng.integers(0, n, size=(size, n), dtype=index_dtype(n))
            # A few rows at a time, widened once for all arrays (indexing would widen
            # them again for each): the same means, with less memory touched per
            # gather. A row longer than that is gathered as drawn, never held twice.
            for start in range(0, size, rows):
                indices = drawn[start : start + rows]
                if n <= _GATHER_CELLS:
                    indices = indices.astype(np.intp)
                means = _gathered_means(arrays, indices, pool)
                for part, mean in zip(parts, means, strict=True):
                    part.append(mean)
    return [np.concatenate(part) for part in parts]


def _gathered_means(
    arrays: Sequence[FloatArray], indices: npt.NDArray[Any], pool: ThreadPoolExecutor | None
) -> list[FloatArray]:
    """Per array, the means of its values at each row of ``indices``."""
    if pool is None:
        return [data[indices].mean(axis=1) for data in arrays]
    return list(pool.map(lambda data: data[indices].mean(axis=1), arrays))


def index_dtype(n: int) -> type[np.signedinteger[Any]]:
    """The integer type of resample indices below ``n``: 32 bits when they fit. The
    generator draws indices below 2**32 from the same 32-bit stream whatever the
    type, so the indices (and the intervals) are those of 64-bit ones, drawn and
    gathered several times faster."""
    return np.int32 if n <= np.iinfo(np.int32).max else np.int64


def paired_arrays(
    a: Sequence[float] | npt.NDArray[np.floating[Any]],
    b: Sequence[float] | npt.NDArray[np.floating[Any]],
    *,
    confidence: float,
    n_resamples: int,
    not_finite: str,
) -> tuple[FloatArray, FloatArray]:
    """``a`` and ``b`` as float arrays, once the bootstrap settings and the pairs are
    checked: equally long 1-d sequences of finite values (else ``not_finite`` is raised)."""
    check_bootstrap_settings(confidence, n_resamples)
    x = np.asarray(a, dtype=np.float64)
    y = np.asarray(b, dtype=np.float64)
    if x.ndim != 1 or x.shape != y.shape:
        raise ValueError(f"need two equally long 1-d sequences, got shapes {x.shape}, {y.shape}")
    if not (np.all(np.isfinite(x)) and np.all(np.isfinite(y))):
        raise ValueError(not_finite)
    return x, y

"""Resample indices are drawn as 32-bit integers when they fit: the same indices, and so
the same intervals, as 64-bit ones."""

from __future__ import annotations

import numpy as np
import pytest

from ragjudge.stats._bootstrap import bootstrap_ci, index_dtype


@pytest.mark.parametrize("n", [2, 3, 17, 1000, 10_000, 65_537, 3_000_001])
def test_the_generator_draws_the_same_indices_in_32_bits(n: int) -> None:
    wide = np.random.default_rng(5)
    narrow = np.random.default_rng(5)
    for size in (1, 7, 3):  # successive batches stay in step
        shape = (size, min(n, 4000))
        drawn = narrow.integers(0, n, size=shape, dtype=index_dtype(n))
        assert drawn.dtype == np.int32
        assert np.array_equal(wide.integers(0, n, size=shape), drawn)


def test_intervals_are_those_of_64_bit_indices() -> None:
    data = np.random.default_rng(1).random(2500)
    rng = np.random.default_rng(0)
    means = np.concatenate(
        [
            data[rng.integers(0, data.size, size=(size, data.size))].mean(axis=1)
            for size in (800,) * 2 + (400,)
        ]
    )
    low, high = np.quantile(means, [0.025, 0.975])
    interval = bootstrap_ci(data)
    assert interval is not None
    assert (interval.low, interval.high) == (float(low), float(high))


def test_indices_beyond_32_bits_stay_64_bit() -> None:
    assert index_dtype(2**31) is np.int64

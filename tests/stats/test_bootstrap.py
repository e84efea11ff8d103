"""Resample indices are drawn as 32-bit integers when they fit: the same indices, and so
the same intervals, as 64-bit ones."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from ragjudge.stats import _bootstrap, summarize_scores
from ragjudge.stats._bootstrap import FloatArray, bootstrap_ci, bootstrap_cis, index_dtype


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


def test_columns_share_their_draws_and_keep_their_intervals() -> None:
    rng = np.random.default_rng(2)
    columns: list[FloatArray] = [rng.random(300), rng.random(300) * 2, rng.random(120)]
    columns += [np.array([0.5, 0.5, 0.5]), np.array([1.0])]
    shared = bootstrap_cis(columns, seed=4, confidence=0.9)
    assert shared == [bootstrap_ci(c, seed=4, confidence=0.9) for c in columns]
    assert shared[3] is not None and shared[3].low == shared[3].high == 0.5
    assert shared[4] is None


def test_summaries_keep_their_intervals() -> None:
    frame = pd.DataFrame(
        {
            "sample_id": [f"s{i}" for i in range(40)] * 2,
            "trial": 0,
            "metric": ["a"] * 40 + ["b"] * 40,
            "value": [float(i % 7) for i in range(40)] + [float(i % 3) for i in range(40)],
            "error": [None] * 75 + ["failed"] * 5,
        }
    )
    frame.loc[frame["error"].notna(), "value"] = float("nan")
    for summary in summarize_scores(frame, seed=9):
        rows = frame[(frame["metric"] == summary.metric) & frame["error"].isna()]
        assert summary.ci == bootstrap_ci(rows["value"].to_numpy(), seed=9)


def test_the_columns_resampled_in_threads_give_the_intervals_of_one_thread(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    rng = np.random.default_rng(11)
    columns = [rng.random(3000), rng.integers(0, 2, 3000).astype(float), rng.normal(size=3000)]
    monkeypatch.setattr(_bootstrap, "usable_cpus", lambda: 2)
    shared = bootstrap_cis(columns, seed=5)
    monkeypatch.setattr(_bootstrap, "usable_cpus", lambda: 1)
    alone = bootstrap_cis(columns, seed=5)
    assert shared == alone
    assert all(interval is not None and interval.low < interval.high for interval in alone)

"""Metric summaries computed from score columns as they are read, in sample order: the
same figures as :func:`~ragjudge.stats.summarize_scores` on the whole score frame,
while holding a few numbers per sample instead of a frame row per score.

Memory: per metric (and per subset), one float64 per sample for the per-sample means
the interval is drawn from, another when the metric leaves values out of its mean
(``mean_all``), one per sample with several trial values (their spread), and the rows
of the sample a page ends in; the arrays grow by doubling, so up to twice that while
one grows. Nothing else grows with the run.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import numpy.typing as npt

from ragjudge.stats._bootstrap import FloatArray, bootstrap_cis
from ragjudge.stats._reducers import TrialReducer, reduce_samples
from ragjudge.stats._summary import MetricSummary

__all__ = ["RunningMetric", "RunningSummaries"]

IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]

_GROUP_SHIFT = 32
"""A (group, metric) key is ``group << 32 | metric``."""


class _Floats:
    """A float64 array appended to in place, growing by doubling."""

    def __init__(self) -> None:
        self._data = np.empty(256, dtype=np.float64)
        self._size = 0

    def extend(self, values: FloatArray) -> None:
        end = self._size + values.size
        if end > self._data.size:
            grown = np.empty(max(end, 2 * self._data.size), dtype=np.float64)
            grown[: self._size] = self._data[: self._size]
            self._data = grown
        self._data[self._size : end] = values
        self._size = end

    def array(self) -> FloatArray:
        return self._data[: self._size]


@dataclass
class _Held:
    """The rows of the sample the last page ended in (it may go on in the next)."""

    sample: IntArray
    trial: IntArray
    value: FloatArray
    failed: BoolArray


class RunningMetric:
    """One metric's results, fed in sample order (a sample's rows may span pages)."""

    def __init__(
        self, metric: str, excludes: Sequence[float] = (), reducer: TrialReducer | None = None
    ) -> None:
        self.metric = metric
        self._excludes = tuple(float(v) for v in excludes)
        self._reducer = None if reducer is None or reducer.name == "mean" else reducer
        self._errors = 0
        self._excluded = 0
        self._scored = 0
        self._trials: set[int] = set()
        self._kept = _Floats()
        self._all = _Floats() if self._excludes else self._kept
        self._sds = _Floats()
        self._identical = 0
        self._held: _Held | None = None

    def add(self, sample: IntArray, trial: IntArray, value: FloatArray, failed: BoolArray) -> None:
        """Take a page's rows of this metric (sorted by sample)."""
        if self._held is not None:
            held = self._held
            sample = np.concatenate([held.sample, sample])
            trial = np.concatenate([held.trial, trial])
            value = np.concatenate([held.value, value])
            failed = np.concatenate([held.failed, failed])
        cut = int(np.searchsorted(sample, sample[-1], side="left")) if sample.size else 0
        self._held = _Held(sample[cut:], trial[cut:], value[cut:], failed[cut:])
        self._take(sample[:cut], trial[:cut], value[:cut], failed[:cut])

    def finish(self) -> tuple[MetricSummary, FloatArray]:
        """The summary without its interval, and the per-sample means it is drawn from."""
        if self._held is not None:
            held, self._held = self._held, None
            self._take(held.sample, held.trial, held.value, held.failed)
        kept, every, sds = self._kept.array(), self._all.array(), self._sds.array()
        summary = MetricSummary(
            metric=self.metric,
            mean=float(kept.mean()) if kept.size else None,
            ci=None,
            n=int(kept.size),
            errors=self._errors,
            excluded=self._excluded,
            mean_all=float(every.mean()) if every.size else None,
            trials=len(self._trials),
            trial_sd=float(sds.mean()) if sds.size else None,
            trial_agreement=self._identical / sds.size if sds.size else None,
            scored=self._scored,
            excludes=self._excludes,
            reduce=self._reducer.label if self._reducer is not None else "mean",
        )
        return summary, kept

    def _take(
        self, sample: IntArray, trial: IntArray, value: FloatArray, failed: BoolArray
    ) -> None:
        """Count whole samples' rows and keep their per-sample figures."""
        if not sample.size:
            return
        failed = failed | ~np.isfinite(value)
        self._errors += int(failed.sum())
        self._trials.update(np.unique(trial).tolist())
        valid = ~failed
        sample, value = sample[valid], value[valid]
        self._scored += int(value.size)
        if self._excludes:
            left_out = np.isin(value, self._excludes)
            self._excluded += int(left_out.sum())
            self._all.extend(self._sample_values(sample, value))
            self._kept.extend(self._sample_values(sample[~left_out], value[~left_out]))
        else:
            self._kept.extend(self._sample_values(sample, value))
        sds, identical = _trial_spread(sample, value)
        self._sds.extend(sds)
        self._identical += identical

    def _sample_values(self, sample: IntArray, value: FloatArray) -> FloatArray:
        """Each sample's value from its trials (the mean unless the metric has a reducer)."""
        if self._reducer is None:
            return _sample_means(sample, value)
        reduced = reduce_samples(sample.tolist(), value.tolist(), self._reducer)
        return np.asarray(reduced, dtype=np.float64)


def _runs(sample: IntArray) -> tuple[IntArray, IntArray]:
    """Start and length of each run of one sample's rows."""
    starts = np.flatnonzero(np.r_[True, sample[1:] != sample[:-1]])
    return starts, np.diff(np.r_[starts, sample.size])


def _sample_means(sample: IntArray, value: FloatArray) -> FloatArray:
    """Each sample's mean over its trials, in sample order. A single value is its own
    mean; samples with several are averaged by pandas' grouped mean, whose summation
    the frame-based summary used (only runs with several trials get there)."""
    if not value.size:
        return value
    starts, counts = _runs(sample)
    if starts.size == value.size:
        return value
    means = value[starts].copy()
    several = counts > 1
    rows = np.repeat(several, counts)
    means[several] = _grouped(sample[rows], value[rows]).mean().to_numpy(dtype=np.float64)
    return means


def _trial_spread(sample: IntArray, value: FloatArray) -> tuple[FloatArray, int]:
    """The standard deviation (ddof=1) of each sample with several values, and how
    many of those samples have one value in every trial."""
    if not value.size:
        return value, 0
    _, counts = _runs(sample)
    several = counts > 1
    if not several.any():
        return np.empty(0, dtype=np.float64), 0
    rows = np.repeat(several, counts)
    grouped = _grouped(sample[rows], value[rows])
    sds = grouped.std(ddof=1).to_numpy(dtype=np.float64)
    return sds, int((grouped.nunique() == 1).sum())


def _grouped(sample: IntArray, value: FloatArray) -> Any:
    import pandas as pd  # only for samples with several trial values

    return pd.Series(value).groupby(sample, sort=False)


@dataclass
class _Keyed:
    running: RunningMetric
    first: tuple[int, int, int]
    """(sample, trial, rowid) of the metric's first row: the order of metrics."""


@dataclass
class RunningSummaries:
    """Running summaries of every (group, metric) pair met in the pages fed to
    :meth:`add`; ``exclude[metric]`` are the values each mean leaves out and
    ``reducers[metric]`` how a sample's trials become its value (the mean by default)."""

    exclude: Mapping[str, Sequence[float]] = field(default_factory=dict)
    reducers: Mapping[str, TrialReducer] = field(default_factory=dict)
    _keyed: dict[int, _Keyed] = field(default_factory=dict)

    def add(
        self,
        names: Sequence[str],
        metric: IntArray,
        columns: tuple[IntArray, IntArray, FloatArray, BoolArray, IntArray],
        group: npt.NDArray[np.integer[Any]] | None = None,
    ) -> None:
        """Feed one page: ``columns`` are (sample, trial, value, failed, rowid), sorted
        by sample then trial; ``group`` (a subset's code per row) when grouped."""
        sample, trial, value, failed, rowid = columns
        keys = metric if group is None else (group.astype(np.int64) << _GROUP_SHIFT) | metric
        order = np.argsort(keys, kind="stable")
        sorted_keys = keys[order]
        bounds = np.flatnonzero(np.r_[True, sorted_keys[1:] != sorted_keys[:-1], True])
        for start, end in itertools.pairwise(bounds):
            rows = order[start:end]
            key = int(sorted_keys[start])
            keyed = self._keyed.get(key)
            if keyed is None:
                name = names[key & ((1 << _GROUP_SHIFT) - 1)]
                first = (int(sample[rows[0]]), int(trial[rows[0]]), int(rowid[rows[0]]))
                running = RunningMetric(name, self.exclude.get(name, ()), self.reducers.get(name))
                keyed = _Keyed(running, first)
                self._keyed[key] = keyed
            keyed.running.add(sample[rows], trial[rows], value[rows], failed[rows])

    def groups(self) -> list[int]:
        """The group codes met."""
        return sorted({key >> _GROUP_SHIFT for key in self._keyed})

    def summaries(
        self, group: int = 0, *, seed: int = 0, confidence: float = 0.95
    ) -> list[MetricSummary]:
        """The group's metric summaries with their intervals, metrics in the order
        they first appear."""
        keyed = sorted(
            (k for key, k in self._keyed.items() if key >> _GROUP_SHIFT == group),
            key=lambda k: k.first,
        )
        finished = [k.running.finish() for k in keyed]
        intervals = bootstrap_cis([kept for _, kept in finished], confidence=confidence, seed=seed)
        return [replace(s, ci=ci) for (s, _), ci in zip(finished, intervals, strict=True)]

"""Agreement among raters that each give one value per unit (judges scoring the same
samples): Krippendorff's alpha for nominal, ordinal, interval and ratio values with
missing values, Fleiss' kappa from a table of counts and Cohen's kappa of two raters.

Alpha is computed from the coincidence matrix: within every unit with two or more
values, each ordered pair of values from different raters counts ``1 / (m - 1)`` (``m``
the unit's number of values). Alpha is one minus the observed disagreement over the
disagreement expected by chance, both read from that matrix and the level's distance
between two values. Its interval resamples units with replacement; each resample
weighs every unit by how often it is drawn, so a batch of resamples is a few matrix
products.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

from ragjudge.stats._agreement import Estimate, Values, resample_weights, weighted_kappa
from ragjudge.stats._bootstrap import FloatArray, Interval, check_bootstrap_settings

__all__ = [
    "ALPHA_LEVELS",
    "AlphaLevel",
    "ReliabilityAlpha",
    "cohen_kappa",
    "fleiss_kappa_of_counts",
    "krippendorff_alpha",
    "reliability_alpha",
]

AlphaLevel = Literal["nominal", "ordinal", "interval", "ratio"]
ALPHA_LEVELS: tuple[AlphaLevel, ...] = ("nominal", "ordinal", "interval", "ratio")


@dataclass(frozen=True)
class ReliabilityAlpha:
    """Krippendorff's alpha at ``level`` over the ``units`` units with at least two
    values (``values`` pairable values in all), with its bootstrap interval."""

    level: AlphaLevel
    alpha: Estimate
    units: int
    values: int


@dataclass(frozen=True)
class _Units:
    """The pairable units: how many values of each distinct value each unit holds
    (``counts``, units × distinct values) or, at the interval level, which needs no
    more, each unit's number of values, their sum and their sum of squares
    (``moments``, units × 3): a continuous scale then costs no units × values table."""

    levels: FloatArray
    counts: FloatArray
    moments: FloatArray

    @property
    def n_units(self) -> int:
        return int(self.moments.shape[0])

    @property
    def n_values(self) -> int:
        return int(self.moments[:, 0].sum())

    @property
    def sizes(self) -> FloatArray:
        return np.asarray(self.moments[:, 0], dtype=np.float64)


def krippendorff_alpha(
    data: Sequence[Sequence[float | None]] | FloatArray, level: AlphaLevel = "nominal"
) -> float | None:
    """Krippendorff's alpha of ``data``, one row per unit and one column per rater
    (None or NaN where a rater gave no value); None when it is undefined (no unit
    with two values, or every pairable value the same)."""
    units = _pairable_units(_as_matrix(data), level)
    value = _alpha_replicates(np.ones((1, units.n_units)), units, level)[0]
    return float(value) if np.isfinite(value) else None


def reliability_alpha(
    data: Sequence[Sequence[float | None]] | FloatArray,
    level: AlphaLevel = "nominal",
    *,
    confidence: float = 0.95,
    n_resamples: int = 2000,
    seed: int = 0,
) -> ReliabilityAlpha:
    """Krippendorff's alpha with a bootstrap interval over units (None where
    undefined, or when fewer than half of the resamples give one)."""
    check_bootstrap_settings(confidence, n_resamples)
    if level not in ALPHA_LEVELS:
        raise ValueError(f"level must be one of {', '.join(ALPHA_LEVELS)}, got {level!r}")
    units = _pairable_units(_as_matrix(data), level)
    n_units = units.n_units
    point = _alpha_replicates(np.ones((1, n_units)), units, level)[0]
    estimate = Estimate(None)
    if np.isfinite(point):
        estimate = Estimate(
            float(point), _alpha_interval(units, level, confidence, n_resamples, seed)
        )
    return ReliabilityAlpha(level=level, alpha=estimate, units=n_units, values=units.n_values)


def _alpha_interval(
    units: _Units, level: AlphaLevel, confidence: float, n_resamples: int, seed: int
) -> Interval | None:
    n_units = units.n_units
    if n_units < 2:
        return None
    replicates = np.concatenate(
        [_alpha_replicates(w, units, level) for w in resample_weights(n_units, n_resamples, seed)]
    )
    usable = replicates[np.isfinite(replicates)]
    if usable.size * 2 < n_resamples:
        return None
    tail = (1 - confidence) / 2
    low, high = np.quantile(usable, [tail, 1 - tail])
    return Interval(float(low), float(high))


def _as_matrix(data: Sequence[Sequence[float | None]] | FloatArray) -> FloatArray:
    if isinstance(data, np.ndarray):
        matrix = data.astype(np.float64)
    else:
        rows = [[np.nan if v is None else float(v) for v in row] for row in data]
        width = max((len(row) for row in rows), default=0)
        matrix = np.full((len(rows), width), np.nan)
        for i, row in enumerate(rows):
            matrix[i, : len(row)] = row
    if matrix.ndim != 2:
        raise ValueError(
            f"need one row per unit and one column per rater, got shape {matrix.shape}"
        )
    if np.isinf(matrix).any():
        raise ValueError("alpha needs finite values (NaN or None marks a missing one)")
    return matrix


def _pairable_units(matrix: FloatArray, level: AlphaLevel) -> _Units:
    """The units with at least two values, as counts of each distinct value (but at
    the interval level) and as moments."""
    present = ~np.isnan(matrix)
    matrix = matrix[present.sum(axis=1) >= 2]
    present = ~np.isnan(matrix)
    filled = np.where(present, matrix, 0.0)
    moments = np.stack(
        [present.sum(axis=1), filled.sum(axis=1), (filled * filled).sum(axis=1)], axis=1
    ).astype(np.float64)
    if level == "interval":
        return _Units(levels=np.empty(0), counts=np.empty((matrix.shape[0], 0)), moments=moments)
    levels, index = np.unique(matrix[present], return_inverse=True)
    rows = np.nonzero(present)[0]
    counts = np.zeros((matrix.shape[0], levels.size))
    np.add.at(counts, (rows, index), 1.0)
    return _Units(levels=np.asarray(levels, dtype=np.float64), counts=counts, moments=moments)


def _interval_replicates(w: FloatArray, units: _Units) -> FloatArray:
    """Alpha at the interval level on each row of unit weights, from moments: a unit
    of ``m`` values with sum ``s`` and sum of squares ``q`` disagrees within by
    ``2(mq − s²)/(m − 1)``, and the expected disagreement over all pairable values
    is ``2(nQ − S²)``."""
    m, total, squares = units.moments.T
    within = 2 * (m * squares - total * total) / (m - 1)
    n, big_s, big_q = w @ m, w @ total, w @ squares
    observed = w @ within
    expected = 2 * (n * big_q - big_s * big_s)
    with np.errstate(invalid="ignore", divide="ignore"):
        alpha = 1 - (n - 1) * observed / expected
    # a rounding remainder where every value is the same is no variation
    varied = expected > 1e-9 * np.maximum(n * big_q, 1.0)
    return np.asarray(np.where(varied, alpha, np.nan), dtype=np.float64)


def _alpha_replicates(w: FloatArray, units: _Units, level: AlphaLevel) -> FloatArray:
    """Alpha on each row of unit weights ``w`` (NaN where undefined)."""
    if units.n_units == 0:
        return np.full(w.shape[0], np.nan)
    if level == "interval":
        return _interval_replicates(w, units)
    if units.levels.size == 0:
        return np.full(w.shape[0], np.nan)
    scaled = units.counts / (units.sizes - 1)[:, None]
    marginals = w @ units.counts  # resamples × values: n_c
    total = marginals.sum(axis=1)
    if level == "ordinal":
        observed, expected = _ordinal_disagreements(w, units, scaled, marginals)
    else:
        distance = _distance(units.levels, level)  # nominal or ratio
        within = np.einsum("uc,ck,uk->u", scaled, distance, units.counts)
        observed = w @ within
        expected = np.einsum("rc,ck,rk->r", marginals, distance, marginals)
    with np.errstate(invalid="ignore", divide="ignore"):
        alpha = 1 - (total - 1) * observed / expected
    return np.asarray(np.where(expected > 0, alpha, np.nan), dtype=np.float64)


def _distance(levels: FloatArray, level: AlphaLevel) -> FloatArray:
    """The squared distance (metric difference) of every pair of values, nominal or
    ratio (the interval level works from moments, the ordinal from frequencies)."""
    c, k = levels[:, None], levels[None, :]
    if level == "nominal":
        return np.asarray(c != k, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        ratio = np.where(c + k != 0, ((c - k) / (c + k)) ** 2, 0.0)
    return np.asarray(ratio, dtype=np.float64)


def _ordinal_disagreements(
    w: FloatArray, units: _Units, scaled: FloatArray, marginals: FloatArray
) -> tuple[FloatArray, FloatArray]:
    """Observed and expected disagreement per resample at the ordinal level, whose
    distance depends on how often each value occurs (so on the resample)."""
    values = units.levels.size
    pair_weights = np.einsum("uc,uk->uck", scaled, units.counts).reshape(-1, values * values)
    observed_pairs = (w @ pair_weights).reshape(-1, values, values)
    observed_pairs[:, np.arange(values), np.arange(values)] -= w @ scaled
    cumulative = np.cumsum(marginals, axis=1)
    start = cumulative - marginals  # counts below each value
    low = np.minimum.outer(np.arange(values), np.arange(values))
    high = np.maximum.outer(np.arange(values), np.arange(values))
    between = cumulative[:, high] - start[:, low]
    distance = (between - (marginals[:, :, None] + marginals[:, None, :]) / 2) ** 2
    observed = (observed_pairs * distance).sum(axis=(1, 2))
    expected = np.einsum("rc,rck,rk->r", marginals, distance, marginals)
    return observed, expected


def fleiss_kappa_of_counts(counts: Sequence[Sequence[float]] | FloatArray) -> float | None:
    """Fleiss' kappa of a table with one row per subject and one column per category,
    each cell how many raters put the subject in that category (every row the same
    total, at least two); None when chance agreement is complete (one category)."""
    table = np.asarray(counts, dtype=np.float64)
    if table.ndim != 2 or table.shape[0] == 0:
        raise ValueError("need one row per subject and one column per category")
    raters = table.sum(axis=1)
    if raters[0] < 2 or not np.all(raters == raters[0]):
        raise ValueError("every subject needs the same number of raters, at least two")
    n = raters[0]
    per_subject = ((table * table).sum(axis=1) - n) / (n * (n - 1))
    shares = table.sum(axis=0) / table.sum()
    chance = float((shares * shares).sum())
    if chance >= 1:
        return None
    return (float(per_subject.mean()) - chance) / (1 - chance)


def cohen_kappa(a: Values, b: Values) -> float | None:
    """Cohen's kappa of two raters' labels on the same units (None when both raters
    give one label throughout)."""
    return weighted_kappa(a, b, "none")

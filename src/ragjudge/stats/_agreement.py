"""Agreement of a metric with human labels, each figure with a paired bootstrap interval
and the "always the majority label" baseline beside it.

- **Binary labels** (acceptable or not): accuracy, Cohen's kappa, precision and recall of
  "acceptable" at a given threshold (the metric says acceptable when its value is at
  least the threshold; at most, for a lower-is-better metric); the ROC AUC (threshold
  free; ties count one half); the accuracy at the best threshold *tuned on the same
  data* (optimistic by construction) with a k-fold cross-validated accuracy beside it.
- **Ordinal labels** on the metric's own scale: weighted kappa (quadratic by default),
  exact agreement and agreement within one level.
- **Pairwise preferences**: the share of pairs with a human preference where the
  metric prefers the same side (a metric tie counts one half).

Every resample draws the samples with replacement and computes all figures on that
same draw, represented by how often it draws each sample (its weight) so a batch of
resamples is a few matrix products. The tuned accuracy is re-tuned on every resample.
The cross-validated accuracy's interval bootstraps the held-out verdicts of one fold
split (the split itself is not redrawn).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from ragjudge.stats._bootstrap import (
    FloatArray,
    Interval,
    batch_sizes,
    bootstrap_ci,
    check_bootstrap_settings,
)

__all__ = [
    "BinaryAgreement",
    "Estimate",
    "KappaWeights",
    "OrdinalAgreement",
    "PreferenceAgreement",
    "binary_agreement",
    "ordinal_agreement",
    "preference_agreement",
    "roc_auc",
    "weighted_kappa",
]

KappaWeights = Literal["none", "linear", "quadratic"]
_Replicates = dict[str, FloatArray]
Values = Sequence[float] | npt.NDArray[np.floating[Any]]
"""Numbers as a sequence or a float array."""


@dataclass(frozen=True)
class Estimate:
    """A figure and its bootstrap interval (either None when undefined: no sample of a
    class, a constant side, or fewer than half of the resamples usable)."""

    value: float | None
    ci: Interval | None = None

    def to_dict(self) -> dict[str, float | None]:
        """``{"value", "ci_low", "ci_high"}``; None where undefined."""
        return {
            "value": self.value,
            "ci_low": self.ci.low if self.ci else None,
            "ci_high": self.ci.high if self.ci else None,
        }


@dataclass(frozen=True)
class BinaryAgreement:
    """A metric against a binary human label over ``n`` samples (``positives`` of them
    acceptable to the humans). The figures at ``threshold`` are None without one."""

    n: int
    positives: int
    threshold: float | None
    higher_is_better: bool
    accuracy: Estimate
    kappa: Estimate
    precision: Estimate
    recall: Estimate
    auc: Estimate
    best_threshold: float | None
    tuned_accuracy: Estimate
    cv_accuracy: Estimate
    folds: int
    baseline_label: int
    baseline_accuracy: Estimate


@dataclass(frozen=True)
class OrdinalAgreement:
    """A metric on the human label's scale against it over ``n`` samples."""

    n: int
    levels: tuple[float, ...]
    weights: KappaWeights
    weighted_kappa: Estimate
    exact: Estimate
    within_one: Estimate
    baseline_level: float
    baseline_exact: Estimate
    baseline_within_one: Estimate


@dataclass(frozen=True)
class PreferenceAgreement:
    """How often a metric prefers the side humans prefer, over the ``n`` pairs with a
    human preference; ``ties`` of them had equal metric values (counted one half)."""

    n: int
    ties: int
    agreement: Estimate
    baseline_side: int
    baseline: Estimate


# --------------------------------------------------------------------------- point figures


def weighted_kappa(a: Values, b: Values, weights: KappaWeights = "none") -> float | None:
    """Cohen's kappa of two raters' labels (``none``), or its weighted form with
    linear or quadratic disagreement weights on the label values. None when the
    chance disagreement is 0 (both raters constant on one level)."""
    x = np.asarray(a, dtype=np.float64)
    y = np.asarray(b, dtype=np.float64)
    value = _kappa_replicates(np.ones((1, x.size)), x, y, weights)[0]
    return float(value) if np.isfinite(value) else None


def roc_auc(scores: Values, labels: Values) -> float | None:
    """The probability that a random positive scores above a random negative (a tie
    counts one half); None without both classes."""
    s = np.asarray(scores, dtype=np.float64)
    y = np.asarray(labels, dtype=np.float64)
    value = _binary_replicates(np.ones((1, s.size)), s, y, None)["auc"][0]
    return float(value) if np.isfinite(value) else None


# --------------------------------------------------------------------------- binary


def binary_agreement(
    scores: Values,
    labels: Values,
    *,
    threshold: float | None = None,
    higher_is_better: bool = True,
    folds: int = 5,
    confidence: float = 0.95,
    n_resamples: int = 2000,
    seed: int = 0,
) -> BinaryAgreement:
    """The binary agreement figures of a metric's ``scores`` with 0/1 ``labels``."""
    check_bootstrap_settings(confidence, n_resamples)
    raw = np.asarray(scores, dtype=np.float64)
    y = np.asarray(labels, dtype=np.float64)
    _check_pairs(raw, y)
    if not np.all(np.isin(y, (0.0, 1.0))):
        raise ValueError("binary labels must be 0 or 1")
    sign = 1.0 if higher_is_better else -1.0
    s = sign * raw
    cut = None if threshold is None else sign * threshold
    n = int(y.size)

    def replicate(w: FloatArray) -> _Replicates:
        return _binary_replicates(w, s, y, cut)

    point, boot = _point_and_bootstrap(replicate, n, n_resamples=n_resamples, seed=seed)
    majority = 1 if y.sum() * 2 >= n else 0
    baseline = (y == majority).astype(np.float64)
    ci = _ci_maker(boot, confidence, n_resamples)
    best = _best_threshold(s, y)
    cv = _cross_validated(s, y, folds=folds, seed=seed)
    return BinaryAgreement(
        n=n,
        positives=int(y.sum()),
        threshold=threshold,
        higher_is_better=higher_is_better,
        accuracy=ci("accuracy", point),
        kappa=ci("kappa", point),
        precision=ci("precision", point),
        recall=ci("recall", point),
        auc=ci("auc", point),
        best_threshold=None if best is None else sign * best,
        tuned_accuracy=ci("tuned", point),
        cv_accuracy=_mean_estimate(cv, confidence, n_resamples, seed),
        folds=folds,
        baseline_label=majority,
        baseline_accuracy=_mean_estimate(baseline, confidence, n_resamples, seed),
    )


def _binary_replicates(
    w: FloatArray, s: FloatArray, y: FloatArray, cut: float | None
) -> _Replicates:
    """Every binary figure on each row of resample weights ``w``."""
    n = s.size
    pos, neg = _per_value(w * y, s), _per_value(w * (1 - y), s)
    below_neg = np.cumsum(neg, axis=1) - neg
    total_pos, total_neg = pos.sum(axis=1), neg.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        auc = (pos * (below_neg + neg / 2)).sum(axis=1) / (total_pos * total_neg)
    at_or_above_pos = np.cumsum(pos[:, ::-1], axis=1)[:, ::-1]
    accuracies = np.concatenate([at_or_above_pos + below_neg, total_neg[:, None]], axis=1)
    found: _Replicates = {"auc": auc, "tuned": accuracies.max(axis=1) / n}
    if cut is not None:
        found.update(_threshold_replicates(w, y, (s >= cut).astype(np.float64)))
    return found


def _threshold_replicates(w: FloatArray, y: FloatArray, pred: FloatArray) -> _Replicates:
    n = y.size
    tp, fp = w @ (y * pred), w @ ((1 - y) * pred)
    fn, tn = w @ (y * (1 - pred)), w @ ((1 - y) * (1 - pred))
    accuracy = (tp + tn) / n
    chance = ((tp + fp) * (tp + fn) + (fn + tn) * (fp + tn)) / n**2
    with np.errstate(invalid="ignore", divide="ignore"):
        kappa = np.where(chance < 1, (accuracy - chance) / (1 - chance), np.nan)
        precision = tp / (tp + fp)
        recall = tp / (tp + fn)
    return {"accuracy": accuracy, "kappa": kappa, "precision": precision, "recall": recall}


def _per_value(w: FloatArray, values: FloatArray) -> FloatArray:
    """How much weight each resample puts on each distinct value (ascending)."""
    _, group = np.unique(values, return_inverse=True)
    k = int(group.max()) + 1 if group.size else 0
    offsets = group[None, :] + np.arange(w.shape[0])[:, None] * k
    summed = np.bincount(offsets.ravel(), weights=w.ravel(), minlength=w.shape[0] * k)
    return np.asarray(summed, dtype=np.float64).reshape(w.shape[0], k)


def _best_threshold(s: FloatArray, y: FloatArray) -> float | None:
    """The lowest threshold (a distinct value of ``s``) with the highest accuracy;
    None when calling nothing acceptable does best."""
    distinct = np.unique(s)
    pos, neg = _per_value(y[None, :], s)[0], _per_value(1 - y[None, :], s)[0]
    below_neg = np.cumsum(neg) - neg
    accuracies = np.append(np.cumsum(pos[::-1])[::-1] + below_neg, neg.sum())
    best = int(np.argmax(accuracies))
    return None if best == distinct.size else float(distinct[best])


def _cross_validated(s: FloatArray, y: FloatArray, *, folds: int, seed: int) -> FloatArray:
    """The held-out verdicts (1 right, 0 wrong) of a threshold tuned on the other
    folds, one per sample; empty with fewer than two samples per fold."""
    n = s.size
    if folds < 2 or n < 2 * folds:
        return np.empty(0)
    order = np.random.default_rng(seed).permutation(n)
    correct = np.empty(n)
    for held in np.array_split(order, folds):
        train = np.setdiff1d(order, held)
        cut = _best_threshold(s[train], y[train])
        pred = np.zeros(held.size) if cut is None else (s[held] >= cut).astype(np.float64)
        correct[held] = (pred == y[held]).astype(np.float64)
    return correct


# --------------------------------------------------------------------------- ordinal


def ordinal_agreement(
    predicted: Values,
    labels: Values,
    *,
    weights: KappaWeights = "quadratic",
    confidence: float = 0.95,
    n_resamples: int = 2000,
    seed: int = 0,
) -> OrdinalAgreement:
    """Weighted kappa, exact and within-one agreement of a metric's values with
    ordinal labels on the same scale, and of the most frequent label (the lowest
    among equally frequent ones) as the baseline."""
    check_bootstrap_settings(confidence, n_resamples)
    x = np.asarray(predicted, dtype=np.float64)
    y = np.asarray(labels, dtype=np.float64)
    _check_pairs(x, y)
    values, counts = np.unique(y, return_counts=True)
    mode = float(values[int(np.argmax(counts))]) if y.size else float("nan")

    def replicate(w: FloatArray) -> _Replicates:
        return {"kappa": _kappa_replicates(w, y, x, weights)}

    point, boot = _point_and_bootstrap(replicate, int(y.size), n_resamples=n_resamples, seed=seed)
    ci = _ci_maker(boot, confidence, n_resamples)

    def share(flags: npt.NDArray[np.bool_]) -> Estimate:
        return _mean_estimate(flags.astype(np.float64), confidence, n_resamples, seed)

    return OrdinalAgreement(
        n=int(y.size),
        levels=tuple(float(v) for v in np.union1d(x, y)),
        weights=weights,
        weighted_kappa=ci("kappa", point),
        exact=share(x == y),
        within_one=share(np.abs(x - y) <= 1),
        baseline_level=mode,
        baseline_exact=share(y == mode),
        baseline_within_one=share(np.abs(y - mode) <= 1),
    )


def _kappa_replicates(
    w: FloatArray, a: FloatArray, b: FloatArray, weights: KappaWeights
) -> FloatArray:
    """(Weighted) kappa of ``a`` against ``b`` on each row of resample weights."""
    levels, index = np.unique(np.concatenate([a, b]), return_inverse=True)
    k, n = levels.size, a.size
    cells = index[:n] * k + index[n:]
    offsets = cells[None, :] + np.arange(w.shape[0])[:, None] * k * k
    counts = np.bincount(offsets.ravel(), weights=w.ravel(), minlength=w.shape[0] * k * k)
    observed = counts.reshape(w.shape[0], k, k)
    total = observed.sum(axis=(1, 2))
    expected = observed.sum(axis=2)[:, :, None] * observed.sum(axis=1)[:, None, :]
    with np.errstate(invalid="ignore", divide="ignore"):
        expected = expected / total[:, None, None]
        penalty = _disagreement(levels, weights)
        return np.asarray(
            1 - (penalty * observed).sum(axis=(1, 2)) / (penalty * expected).sum(axis=(1, 2)),
            dtype=np.float64,
        )


def _disagreement(levels: FloatArray, weights: KappaWeights) -> FloatArray:
    """The disagreement weight of every (row level, column level) cell."""
    gap = np.abs(levels[:, None] - levels[None, :])
    if weights == "none":
        return (gap > 0).astype(np.float64)
    span = float(levels.max() - levels.min()) if levels.size else 0.0
    scaled = gap / span if span else gap
    return np.asarray(scaled if weights == "linear" else scaled**2, dtype=np.float64)


# --------------------------------------------------------------------------- preference


def preference_agreement(
    differences: Values,
    preferences: Values,
    *,
    confidence: float = 0.95,
    n_resamples: int = 2000,
    seed: int = 0,
) -> PreferenceAgreement:
    """How often the sign of a metric's difference (second side − first) matches a
    human preference (positive: the second side), over the pairs with a preference."""
    check_bootstrap_settings(confidence, n_resamples)
    d = np.asarray(differences, dtype=np.float64)
    p = np.asarray(preferences, dtype=np.float64)
    _check_pairs(d, p)
    strict = p != 0
    d, side = d[strict], np.sign(p[strict])
    credit = np.where(d == 0, 0.5, (np.sign(d) == side).astype(np.float64))
    majority = 1 if (side > 0).sum() >= (side < 0).sum() else -1
    return PreferenceAgreement(
        n=int(side.size),
        ties=int((d == 0).sum()),
        agreement=_mean_estimate(credit, confidence, n_resamples, seed),
        baseline_side=majority,
        baseline=_mean_estimate(
            (side == majority).astype(np.float64), confidence, n_resamples, seed
        ),
    )


# --------------------------------------------------------------------------- bootstrap


def _check_pairs(x: FloatArray, y: FloatArray) -> None:
    if x.ndim != 1 or x.shape != y.shape:
        raise ValueError(f"need two equally long 1-d sequences, got shapes {x.shape}, {y.shape}")
    if not (np.all(np.isfinite(x)) and np.all(np.isfinite(y))):
        raise ValueError("agreement needs finite values; drop missing pairs before calling it")


def resample_weights(n: int, n_resamples: int, seed: int) -> Iterator[FloatArray]:
    """Batches of bootstrap resamples of ``n`` samples, each row how often a resample
    draws every sample."""
    rng = np.random.default_rng(seed)
    for size in batch_sizes(n_resamples, max(n, 1)):
        indices = rng.integers(0, n, size=(size, n))
        rows = np.arange(size)[:, None]
        counts = np.bincount((indices + rows * n).ravel(), minlength=size * n)
        yield counts.reshape(size, n).astype(np.float64)


def _point_and_bootstrap(
    replicate: Callable[[FloatArray], _Replicates], n: int, *, n_resamples: int, seed: int
) -> tuple[dict[str, float], _Replicates]:
    """Each figure on the data itself and on every resample."""
    if n == 0:
        return {}, {}
    point = {name: float(v[0]) for name, v in replicate(np.ones((1, n))).items()}
    parts: dict[str, list[FloatArray]] = {}
    if n >= 2:
        for w in resample_weights(n, n_resamples, seed):
            for name, values in replicate(w).items():
                parts.setdefault(name, []).append(values)
    return point, {name: np.concatenate(v) for name, v in parts.items()}


def _ci_maker(
    boot: _Replicates, confidence: float, n_resamples: int
) -> Callable[[str, dict[str, float]], Estimate]:
    tail = (1 - confidence) / 2

    def estimate(name: str, point: dict[str, float]) -> Estimate:
        value = point.get(name, float("nan"))
        if not np.isfinite(value):
            return Estimate(None)
        usable = boot.get(name, np.empty(0))
        usable = usable[np.isfinite(usable)]
        if usable.size * 2 < n_resamples:
            return Estimate(value)
        low, high = np.quantile(usable, [tail, 1 - tail])
        return Estimate(value, Interval(float(low), float(high)))

    return estimate


def _mean_estimate(values: Any, confidence: float, n_resamples: int, seed: int) -> Estimate:
    data = np.asarray(values, dtype=np.float64)
    if data.size == 0:
        return Estimate(None)
    ci = bootstrap_ci(data, confidence=confidence, n_resamples=n_resamples, seed=seed)
    return Estimate(float(data.mean()), ci)

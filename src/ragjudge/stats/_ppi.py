"""Prediction-powered inference (PPI) of a mean: a judge's values on every sample and
human labels on a random subset give an unbiased estimate of the human-scale mean with
a valid confidence interval (Angelopoulos et al., "Prediction-powered inference",
Science 2023; the estimator ARES applies to RAG judges).

With ``f`` the judge's value on all ``N`` samples, ``Y`` the human label on the ``n``
labelled ones (a random subset of the ``N``), and ``r = (N − n) / N``::

    θ̂_λ = mean_N(λ·f) + mean_n(Y − λ·f)
    Var(θ̂_λ) = Var_n(Y − λ·r·f) / n + λ²·(N − n)·Var_N(f) / N²

The first mean runs over **all** samples, the labelled ones included; the second, the
*rectifier*, corrects the judge's bias on the labelled ones. The variance counts that
the labelled samples take part in both terms (the two parts above are independent:
one over the labelled samples, one over the others). The interval is the normal one,
``θ̂ ± z·√Var``, valid for large samples.

``λ = 1`` is classic PPI (:func:`ppi_mean`'s default). The power-tuned variant (PPI++,
Angelopoulos, Duchi and Zrnic 2023) picks the λ that minimises the variance above,
which works out to the slope ``Cov(Y, f) / Var(f)`` estimated on the labelled samples,
clipped to [0, 1]: λ = 0 is the human-only mean, λ = 1 classic PPI. Estimating λ on the
same data keeps the estimate consistent but adds a small-sample term the interval
ignores; classic PPI has no such term.

The estimate is only valid when the labelled samples are a random draw from all
samples; labelling the easy ones, or the first ones of a sorted file, biases it.

**Few labels.** With a few dozen labels of a judge that mostly agrees with people, the
sample variance of ``Y − λ·r·f`` is often far too small (no disagreement among 25
labels gives a zero-width interval), and the normal interval covers the truth less
often than it says. When the labels' range is known (``label_range``: 0–1 for yes/no),
the variance is computed with a quarter of an observation added at each end of the
rectifier's range (the label's low end minus the judge's high end, and the other way
round; the judge's range is the one given, else the values seen). This small-sample
correction fades as labels grow (its weight is 0.5 of n) and is applied to the
humans-only mean as well, so the two stay comparable. Simulated on real human labels
(477 answers rated for faithfulness, a judge that agrees on 87% of them, a new set
of answers drawn for every repetition), it brings the 95% interval's coverage at 25
labels from 91% to 94%, at 50 and 100 labels it stays at 95%.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ragjudge.stats._agreement import Values
from ragjudge.stats._bootstrap import FloatArray, Interval

__all__ = ["MeanEstimate", "PPIEstimate", "ppi_estimate", "ppi_mean"]


@dataclass(frozen=True)
class MeanEstimate:
    """A mean with its standard error and normal confidence interval (None below two
    values)."""

    value: float | None
    std_error: float | None
    ci: Interval | None
    n: int

    @property
    def width(self) -> float | None:
        """The interval's width."""
        return None if self.ci is None else self.ci.high - self.ci.low


@dataclass(frozen=True)
class PPIEstimate:
    """A mean estimated three ways: the judge alone on all ``total`` samples (its
    own scale: biased whenever the judge is), the humans alone on the ``labelled``
    ones, and PPI (``lam = 1``) and its power-tuned variant (``tuned_lam``) from both."""

    labelled: int
    total: int
    judge: MeanEstimate
    human: MeanEstimate
    ppi: MeanEstimate
    tuned: MeanEstimate
    tuned_lam: float | None


def _z(confidence: float) -> float:
    from scipy import stats as scipy_stats  # scipy is slow to import; only needed here

    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be between 0 and 1, got {confidence}")
    return float(scipy_stats.norm.ppf(0.5 + confidence / 2))


def _normal(value: float, variance: float, n: int, z: float) -> MeanEstimate:
    se = math.sqrt(max(variance, 0.0))
    return MeanEstimate(value, se, Interval(value - z * se, value + z * se), n)


_PSEUDO_WEIGHT = 0.25
"""The weight of the pseudo-observation added at each end of a range (see "Few labels")."""

Range = tuple[float, float]


def _variance(values: FloatArray, ends: Range | None) -> float:
    """The sample variance of ``values``; with ``ends``, as if a quarter of an
    observation lay at each of them."""
    if ends is None:
        return float(values.var(ddof=1))
    w = _PSEUDO_WEIGHT
    total = float(values.sum()) + w * (ends[0] + ends[1])
    count = values.size + 2 * w
    centre = total / count
    spread = float(((values - centre) ** 2).sum()) + w * (
        (ends[0] - centre) ** 2 + (ends[1] - centre) ** 2
    )
    return spread / (count - 1)


def _plain_mean(values: FloatArray, z: float, ends: Range | None = None) -> MeanEstimate:
    n = int(values.size)
    if n < 2:
        return MeanEstimate(float(values.mean()) if n else None, None, None, n)
    return _normal(float(values.mean()), _variance(values, ends) / n, n, z)


def _arrays(judge: Values, human: Values) -> tuple[FloatArray, FloatArray, FloatArray]:
    """The judge's values on all samples, and on the labelled ones with their labels."""
    f = np.asarray(judge, dtype=np.float64)
    y = np.asarray(human, dtype=np.float64)
    if f.ndim != 1 or f.shape != y.shape:
        raise ValueError(f"need two equally long 1-d sequences, got shapes {f.shape}, {y.shape}")
    if not np.all(np.isfinite(f)):
        raise ValueError("PPI needs the judge's value on every sample; drop the others first")
    labelled = np.isfinite(y)
    return f, f[labelled], y[labelled]


def ppi_mean(
    judge: Values,
    human: Values,
    *,
    lam: float = 1.0,
    confidence: float = 0.95,
    label_range: Range | None = None,
    judge_range: Range | None = None,
) -> MeanEstimate:
    """The PPI estimate of the human labels' mean for a given λ (see the module
    docstring). ``judge`` holds the judge's value on every sample; ``human`` the label,
    NaN where a sample has none. Undefined (None) with fewer than two labelled samples.
    ``label_range`` (and ``judge_range``) turn on the few-labels correction."""
    f, f_lab, y_lab = _arrays(judge, human)
    ranges = _ranges(f, label_range, judge_range)
    return _ppi(f, f_lab, y_lab, lam, _z(confidence), ranges)


def _ranges(
    f: FloatArray, label_range: Range | None, judge_range: Range | None
) -> tuple[Range, Range] | None:
    if label_range is None:
        return None
    if judge_range is None:
        judge_range = (float(f.min()), float(f.max())) if f.size else (0.0, 0.0)
    return label_range, judge_range


def _ppi(
    f: FloatArray,
    f_lab: FloatArray,
    y_lab: FloatArray,
    lam: float,
    z: float,
    ranges: tuple[Range, Range] | None = None,
) -> MeanEstimate:
    n, total = int(y_lab.size), int(f.size)
    if n < 2:
        return MeanEstimate(None, None, None, n)
    share_unlabelled = (total - n) / total
    value = lam * float(f.mean()) + float((y_lab - lam * f_lab).mean())
    ends = None
    if ranges is not None:
        (y_low, y_high), (f_low, f_high) = ranges
        shrink = lam * share_unlabelled
        ends = (y_low - shrink * f_high, y_high - shrink * f_low)
    rectifier_var = _variance(y_lab - lam * share_unlabelled * f_lab, ends) / n
    judge_var = lam**2 * (total - n) * float(f.var(ddof=1)) / total**2
    return _normal(value, rectifier_var + judge_var, n, z)


def _tuned_lam(f: FloatArray, f_lab: FloatArray, y_lab: FloatArray) -> float | None:
    """``Cov(Y, f) / Var(f)`` on the labelled samples, clipped to [0, 1]; None when
    undefined (fewer than two labelled samples or a constant judge)."""
    if y_lab.size < 2:
        return None
    spread = float(f_lab.var(ddof=1))
    if spread == 0:
        return 0.0
    slope = float(np.cov(y_lab, f_lab, ddof=1)[0, 1]) / spread
    return min(1.0, max(0.0, slope))


def ppi_estimate(
    judge: Values,
    human: Values,
    *,
    confidence: float = 0.95,
    label_range: Range | None = None,
    judge_range: Range | None = None,
) -> PPIEstimate:
    """The judge-only, human-only, PPI and power-tuned PPI estimates of a mean, all
    with normal intervals at ``confidence`` (see the module docstring); ``label_range``
    (the labels' lowest and highest possible values, and optionally the judge's) turns
    on the few-labels correction of the humans-only and PPI intervals."""
    f, f_lab, y_lab = _arrays(judge, human)
    z = _z(confidence)
    ranges = _ranges(f, label_range, judge_range)
    lam = _tuned_lam(f, f_lab, y_lab)
    tuned = (
        MeanEstimate(None, None, None, int(y_lab.size))
        if lam is None
        else _ppi(f, f_lab, y_lab, lam, z, ranges)
    )
    return PPIEstimate(
        labelled=int(y_lab.size),
        total=int(f.size),
        judge=_plain_mean(f, z),
        human=_plain_mean(y_lab, z, label_range),
        ppi=_ppi(f, f_lab, y_lab, 1.0, z, ranges),
        tuned=tuned,
        tuned_lam=lam,
    )

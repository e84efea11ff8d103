"""Agreement among human annotators: Fleiss' kappa, computed by statsmodels (the
``agreement`` extra), with a bootstrap interval over samples.

Fleiss' kappa treats the labels as categories (a 3 against a 4 is as much a
disagreement as a 1 against a 4) and needs the same number of annotators on every
sample: it is computed over the samples with the most common number of annotators
(at least two), and the others are counted as left out.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ragjudge.stats._agreement import Estimate, resample_weights
from ragjudge.stats._bootstrap import Interval, check_bootstrap_settings

__all__ = ["AGREEMENT_EXTRA", "RaterAgreement", "fleiss_kappa"]

AGREEMENT_EXTRA = "pip install 'ragjudge[agreement]'"
"""How to install what inter-annotator agreement needs."""


@dataclass(frozen=True)
class RaterAgreement:
    """Fleiss' kappa over ``samples`` samples with ``raters`` annotators each;
    ``left_out`` samples had another number of annotators (one, or fewer or more)."""

    method: str
    kappa: Estimate
    samples: int
    raters: int
    left_out: int


def fleiss_kappa(
    annotations: Sequence[Sequence[float]],
    *,
    confidence: float = 0.95,
    n_resamples: int = 2000,
    seed: int = 0,
) -> RaterAgreement | None:
    """Fleiss' kappa of every sample's annotator values (one sequence per sample);
    None when no two samples have the same number (two or more) of annotators.

    Raises ``ImportError`` naming the ``agreement`` extra when statsmodels is missing.
    """
    try:
        from statsmodels.stats.inter_rater import aggregate_raters
        from statsmodels.stats.inter_rater import fleiss_kappa as statsmodels_fleiss
    except ImportError as exc:
        raise ImportError(
            f"inter-annotator agreement needs statsmodels: {AGREEMENT_EXTRA}"
        ) from exc
    check_bootstrap_settings(confidence, n_resamples)
    sizes = Counter(len(a) for a in annotations if len(a) >= 2)
    if not sizes:
        return None
    raters = max(sizes, key=lambda k: (sizes[k], k))
    kept = np.array([list(a) for a in annotations if len(a) == raters], dtype=np.float64)
    if kept.shape[0] < 2:
        return None
    table, _ = aggregate_raters(kept)
    counts = np.asarray(table, dtype=np.float64)
    rows = np.arange(counts.shape[0])
    with np.errstate(invalid="ignore", divide="ignore"):  # a resample on one category
        value = float(statsmodels_fleiss(counts, method="fleiss"))
        replicates = [
            float(statsmodels_fleiss(counts[np.repeat(rows, row.astype(int))], method="fleiss"))
            for w in resample_weights(counts.shape[0], n_resamples, seed)
            for row in w
        ]
    usable = np.array([r for r in replicates if np.isfinite(r)])
    ci = None
    if np.isfinite(value) and usable.size * 2 >= n_resamples:
        tail = (1 - confidence) / 2
        low, high = np.quantile(usable, [tail, 1 - tail])
        ci = Interval(float(low), float(high))
    return RaterAgreement(
        method="fleiss_kappa",
        kappa=Estimate(value if np.isfinite(value) else None, ci),
        samples=int(kept.shape[0]),
        raters=raters,
        left_out=len(annotations) - int(kept.shape[0]),
    )

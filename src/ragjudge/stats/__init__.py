"""Aggregate scores: means, bootstrap confidence intervals, per-subset breakdowns and
trial reproducibility.

The unit of analysis is the sample. When a metric ran several trials per sample, each
sample's trials are averaged first and the interval is bootstrapped over samples, so
repeating a judge call never narrows the interval by itself. Everything random is
seeded: the same data always gives the same interval.
"""

from __future__ import annotations

from ragjudge.stats._bootstrap import FloatArray, Interval, bootstrap_ci
from ragjudge.stats._correlation import CORRELATION_METHODS, Correlation, correlations
from ragjudge.stats._correlation import _replicate_correlations as _replicate_correlations
from ragjudge.stats._groups import (
    NO_GROUP,
    error_mask,
    group_label,
    group_names,
    metadata_column,
    sample_means,
)
from ragjudge.stats._paired import (
    PERMUTATION_TEST,
    PairedDifference,
    paired_difference,
    sign_flip_p_value,
)
from ragjudge.stats._stability import FLIP, Stability, icc_one_way, stability_of
from ragjudge.stats._summary import MetricSummary, summarize_by, summarize_scores, summary_frame
from ragjudge.stats._trials import (
    TrialValues,
    VerdictAgreement,
    group_difference,
    trial_values,
    verdict_agreement,
)

__all__ = [
    "CORRELATION_METHODS",
    "FLIP",
    "NO_GROUP",
    "PERMUTATION_TEST",
    "Correlation",
    "FloatArray",
    "Interval",
    "MetricSummary",
    "PairedDifference",
    "Stability",
    "TrialValues",
    "VerdictAgreement",
    "bootstrap_ci",
    "correlations",
    "error_mask",
    "group_difference",
    "group_label",
    "group_names",
    "icc_one_way",
    "metadata_column",
    "paired_difference",
    "sample_means",
    "sign_flip_p_value",
    "stability_of",
    "summarize_by",
    "summarize_scores",
    "summary_frame",
    "trial_values",
    "verdict_agreement",
]

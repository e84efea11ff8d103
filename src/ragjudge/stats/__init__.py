"""Aggregate scores: means, bootstrap confidence intervals, per-subset breakdowns,
trial reproducibility, agreement with human labels, agreement among raters (judges or
annotators: Krippendorff's alpha, Fleiss' and Cohen's kappa) and prediction-powered
inference.

The unit of analysis is the sample. When a metric ran several trials per sample, each
sample's trials are averaged first and the interval is bootstrapped over samples, so
repeating a judge call never narrows the interval by itself. Everything random is
seeded: the same data always gives the same interval.
"""

from __future__ import annotations

from ragjudge.stats._agreement import (
    BinaryAgreement,
    Estimate,
    KappaWeights,
    OrdinalAgreement,
    PreferenceAgreement,
    binary_agreement,
    ordinal_agreement,
    preference_agreement,
    roc_auc,
    weighted_kappa,
)
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
from ragjudge.stats._interrater import AGREEMENT_EXTRA, RaterAgreement, fleiss_kappa
from ragjudge.stats._paired import (
    PERMUTATION_TEST,
    PairedDifference,
    paired_difference,
    sign_flip_p_value,
)
from ragjudge.stats._ppi import MeanEstimate, PPIEstimate, ppi_estimate, ppi_mean
from ragjudge.stats._reliability import (
    ALPHA_LEVELS,
    AlphaLevel,
    ReliabilityAlpha,
    cohen_kappa,
    fleiss_kappa_of_counts,
    krippendorff_alpha,
    reliability_alpha,
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
    "AGREEMENT_EXTRA",
    "ALPHA_LEVELS",
    "CORRELATION_METHODS",
    "FLIP",
    "NO_GROUP",
    "PERMUTATION_TEST",
    "AlphaLevel",
    "BinaryAgreement",
    "Correlation",
    "Estimate",
    "FloatArray",
    "Interval",
    "KappaWeights",
    "MeanEstimate",
    "MetricSummary",
    "OrdinalAgreement",
    "PPIEstimate",
    "PairedDifference",
    "PreferenceAgreement",
    "RaterAgreement",
    "ReliabilityAlpha",
    "Stability",
    "TrialValues",
    "VerdictAgreement",
    "binary_agreement",
    "bootstrap_ci",
    "cohen_kappa",
    "correlations",
    "error_mask",
    "fleiss_kappa",
    "fleiss_kappa_of_counts",
    "group_difference",
    "group_label",
    "group_names",
    "icc_one_way",
    "krippendorff_alpha",
    "metadata_column",
    "ordinal_agreement",
    "paired_difference",
    "ppi_estimate",
    "ppi_mean",
    "preference_agreement",
    "reliability_alpha",
    "roc_auc",
    "sample_means",
    "sign_flip_p_value",
    "stability_of",
    "summarize_by",
    "summarize_scores",
    "summary_frame",
    "trial_values",
    "verdict_agreement",
    "weighted_kappa",
]

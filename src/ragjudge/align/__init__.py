"""A better judge proposed from the labels people gave a run's samples: worked examples
of the disagreements, rewritten criteria, or both, each measured by cross-validation
against labels it did not learn from (``ragjudge align``)."""

from ragjudge.align._aligning import AlignSettings, align_judge, align_plan
from ragjudge.align._result import (
    CANDIDATES,
    Agreement,
    AlignPlan,
    AlignResult,
    Candidate,
    CandidateResult,
    FoldResult,
)

__all__ = [
    "CANDIDATES",
    "Agreement",
    "AlignPlan",
    "AlignResult",
    "AlignSettings",
    "Candidate",
    "CandidateResult",
    "FoldResult",
    "align_judge",
    "align_plan",
]

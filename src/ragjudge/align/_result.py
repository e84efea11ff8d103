"""What ``align`` found: per candidate judge, its agreement with the people before and
after on held-out labels, fold by fold and pooled, with the calls it took."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from ragjudge.stats import Estimate

__all__ = [
    "CANDIDATES",
    "Agreement",
    "AlignPlan",
    "AlignResult",
    "Candidate",
    "CandidateResult",
    "FoldResult",
]

Candidate = Literal["examples", "criteria", "examples+criteria"]
CANDIDATES: tuple[Candidate, ...] = ("examples", "criteria", "examples+criteria")
"""The candidate judges: worked examples of disagreements, rewritten criteria, both."""


@dataclass(frozen=True)
class FoldResult:
    """One fold: the candidate learned from the other folds' labels and was measured on
    this fold's, which it never saw."""

    fold: int
    held_out: tuple[str, ...]
    """The ids of the samples measured on."""
    shown: tuple[str, ...]
    """The ids of the samples whose labels the candidate was shown (examples, or the
    cases given to rewrite the criteria): all from the other folds."""
    scored: int
    """Held-out samples the candidate judge scored (a failed call leaves one out)."""
    before: float | None
    """The judge as it is: its stored verdicts' accuracy on the scored samples."""
    after: float | None


@dataclass(frozen=True)
class Agreement:
    """Agreement with the people over the held-out samples of every fold, pooled."""

    n: int
    accuracy: Estimate
    kappa: Estimate
    exact: Estimate | None = None
    """Labels on a scale: the share of samples where the values are equal."""
    weighted_kappa: Estimate | None = None
    """Labels on a scale: Cohen's kappa weighted by the squared distance of the values."""


@dataclass(frozen=True)
class CandidateResult:
    """One candidate judge measured by cross-validation."""

    name: Candidate
    folds: tuple[FoldResult, ...]
    before: Agreement
    after: Agreement
    calls: int
    cost: float | None

    @property
    def gain(self) -> float:
        """After minus before in accuracy (0 when either is undefined)."""
        after, before = self.after.accuracy.value, self.before.accuracy.value
        return 0.0 if after is None or before is None else after - before


@dataclass(frozen=True)
class AlignPlan:
    """What an ``align`` would call, before anything is paid."""

    run_id: str
    metric: str
    labelled: int
    disagreements: int
    folds: int
    candidates: tuple[Candidate, ...]
    calls: int
    cost: float | None
    """Estimated from the run's own calls of the metric (None when they were unpriced)."""
    builtin: str | None = None
    """The built-in yes/no metric aligned (None for a custom judge): its candidate is
    worked examples only, and the judge proposed is its metrics entry."""


@dataclass
class AlignResult:
    """The candidates measured, the best one, and its judge learned from every label."""

    plan: AlignPlan
    candidates: list[CandidateResult]
    best: CandidateResult | None
    """The candidate with the highest accuracy after, when it beats the judge as it is."""
    spec: dict[str, Any] | None = None
    """The best candidate's judge learned from all labels: a custom judge's judge file
    keys, or a built-in metric's entry for the config's ``metrics`` list."""
    original: dict[str, Any] = field(default_factory=dict)
    """The judge's options as the run had them, for the diff."""
    calls: int = 0
    cost: float | None = None

"""What a paired comparison of two runs gives (:class:`Comparison`): per metric, run B
against run A over the samples both scored (:class:`MetricComparison`), with the
samples left out counted by reason, as a table and as JSON."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal

import pandas as pd

from ragjudge.analysis._paired_passes import PASS_TEST, PairedPassRate
from ragjudge.stats import PERMUTATION_TEST, PairedDifference

__all__ = [
    "DROP_REASONS",
    "NO_CLEAR_DIFFERENCE",
    "Comparison",
    "Direction",
    "MetricComparison",
    "RunRef",
    "Side",
]

Direction = Literal["higher", "lower"]
Side = Literal["A", "B"]

DROP_REASONS = ("missing_a", "missing_b", "errors", "excluded")
NO_CLEAR_DIFFERENCE = "no clear difference"
_COUNT_COLUMNS = ("n", *DROP_REASONS)
_FLOAT_COLUMNS = (
    "mean_a",
    "mean_b",
    "difference",
    "ci_low",
    "ci_high",
    "p_value",
    "wilcoxon_p",
    "better",
    "equal",
    "worse",
)
_FRAME_COLUMNS = (
    "group",
    "metric",
    "direction",
    "mean_a",
    "mean_b",
    "difference",
    "ci_low",
    "ci_high",
    "ci_excludes_zero",
    "p_value",
    "wilcoxon_p",
    "n",
    "better",
    "equal",
    "worse",
    "winner",
    "verdict",
    *DROP_REASONS,
)


@dataclass(frozen=True)
class RunRef:
    """Which run a side of the comparison is."""

    run_id: str
    name: str | None
    status: str
    store: str


@dataclass(frozen=True)
class MetricComparison:
    """One metric of run B against run A over the samples both runs scored.

    ``paired`` holds the means, the difference B − A with its interval, the p-values
    and the better/equal/worse shares (see :class:`ragjudge.stats.PairedDifference`).
    The drop counts are samples left out: ``missing_a``/``missing_b`` (no result for
    the metric in that run), ``errors`` (every trial failed in either run) and
    ``excluded`` (every usable trial was an excluded value in either run). A sample
    is counted once, under the first reason in that order.
    """

    metric: str
    paired: PairedDifference
    missing_a: int = 0
    missing_b: int = 0
    errors: int = 0
    excluded: int = 0

    @property
    def direction(self) -> Direction:
        """Whether a higher or a lower value of the metric is better."""
        return "lower" if self.paired.lower_is_better else "higher"

    @property
    def dropped(self) -> int:
        """Samples left out of the comparison, for any reason."""
        return self.missing_a + self.missing_b + self.errors + self.excluded

    @property
    def winner(self) -> Side | None:
        """The run the mean difference favours; None when it is 0 or undefined."""
        diff = self.paired.difference
        if diff is None or diff == 0:
            return None
        b_ahead = diff < 0 if self.paired.lower_is_better else diff > 0
        return "B" if b_ahead else "A"

    @property
    def significant(self) -> bool:
        """Whether the interval of B − A excludes 0."""
        return self.paired.ci_excludes_zero

    @property
    def verdict(self) -> str | None:
        """B against A in words: ``better`` or ``worse`` only when the interval of
        B − A excludes 0, else ``no clear difference``; None with no paired sample.
        (:attr:`winner` is the side the mean difference favours, clear or not.)"""
        if not self.paired.n:
            return None
        if not self.significant or self.winner is None:
            return NO_CLEAR_DIFFERENCE
        return "better" if self.winner == "B" else "worse"

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready form: missing values are None, never NaN."""
        p = self.paired
        return {
            "metric": self.metric,
            "direction": self.direction,
            "mean_a": p.mean_a,
            "mean_b": p.mean_b,
            "difference": p.difference,
            "ci_low": p.ci.low if p.ci else None,
            "ci_high": p.ci.high if p.ci else None,
            "ci_excludes_zero": self.significant,
            "p_value": p.p_value,
            "wilcoxon_p": p.wilcoxon_p,
            "n": p.n,
            "better": p.better,
            "equal": p.equal,
            "worse": p.worse,
            "winner": self.winner,
            "verdict": self.verdict,
            "missing_a": self.missing_a,
            "missing_b": self.missing_b,
            "errors": self.errors,
            "excluded": self.excluded,
        }


@dataclass(frozen=True)
class Comparison:
    """Run B against run A: one row per metric, and per subset when ``by`` is set.

    ``only_a``/``only_b`` name metrics that only one run has (they are not compared);
    ``excluded_values`` are the values left out of each metric's means.
    """

    run_a: RunRef
    run_b: RunRef
    rows: list[MetricComparison]
    by: str | None
    subsets: dict[str, list[MetricComparison]]
    only_a: list[str]
    only_b: list[str]
    excluded_values: dict[str, list[float]]
    lower_is_better: list[str]
    confidence: float
    n_resamples: int
    seed: int
    judges: dict[str, tuple[str, str]] = field(default_factory=dict)
    """With several named judges: per compared score, its metric and its judge."""
    pass_rates: list[PairedPassRate] = field(default_factory=list)
    """Per compared score with a per-sample pass in both runs: the paired pass rates."""

    def to_frame(self) -> pd.DataFrame:
        """One row per (group, metric); the overall rows come first, with no group (NaN).

        The interval is split into ``ci_low``/``ci_high``; missing values are NaN.
        """
        records = [{"group": None, **row.to_dict()} for row in self.rows]
        records += [
            {"group": group, **row.to_dict()}
            for group, rows in self.subsets.items()
            for row in rows
        ]
        frame = pd.DataFrame(records, columns=list(_FRAME_COLUMNS))
        # None becomes NaN so the numeric columns stay numeric.
        frame[list(_FLOAT_COLUMNS)] = frame[list(_FLOAT_COLUMNS)].astype("float64")
        return frame.astype({c: "int64" for c in _COUNT_COLUMNS} | {"ci_excludes_zero": bool})

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready form: missing values are None, never NaN."""
        return {
            "run_a": asdict(self.run_a),
            "run_b": asdict(self.run_b),
            "difference": "B - A",
            "confidence": self.confidence,
            "n_resamples": self.n_resamples,
            "seed": self.seed,
            "test": PERMUTATION_TEST,
            "lower_is_better": self.lower_is_better,
            "excluded_values": self.excluded_values,
            "only_a": self.only_a,
            "only_b": self.only_b,
            "by": self.by,
            "metrics": [row.to_dict() for row in self.rows],
            "subsets": {
                group: [row.to_dict() for row in rows] for group, rows in self.subsets.items()
            },
            **({"judges": {k: list(v) for k, v in self.judges.items()}} if self.judges else {}),
            "pass_rates": [rate.to_dict() for rate in self.pass_rates],
            "pass_test": PASS_TEST,
        }

"""Whether a run delivered: its errors grouped by cause, and the exit code that says
whether every score arrived.

Exit codes of ``ragjudge run``: 0 every score arrived (or at most ``max_error_rate``
of each metric's results failed); :data:`EXIT_ERRORS` some scores failed beyond that
rate; :data:`EXIT_NO_VALUES` a metric has no value at all (or the run has no scores);
:data:`EXIT_GATE` every score arrived but a quality gate (``--fail-under``,
``--fail-over``; see :mod:`ragjudge.analysis._gates`) failed; 2 a mistake in the input or the
config (nothing was run); 130, 143, 129 interrupted (by SIGINT, SIGTERM, SIGHUP:
128 + the signal's number). 3 and 4 say scores are missing and come
first: a gate is only the verdict of a run whose scores all arrived.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "EXIT_ERRORS",
    "EXIT_GATE",
    "EXIT_NO_VALUES",
    "EXIT_OK",
    "ErrorGroup",
    "Tally",
    "Verdict",
    "error_cause",
    "error_groups",
    "run_verdict",
]

EXIT_OK = 0
EXIT_ERRORS = 3
EXIT_NO_VALUES = 4
EXIT_GATE = 5

_CAUSES: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (cause, re.compile(pattern, re.IGNORECASE))
    for cause, pattern in (
        ("target failed", r"^target failed|the target failed"),
        ("parse error", r"parse error"),
        ("judge unreachable", r"call failed: \[(connection|timeout)\]"),
        ("judge rate-limited", r"call failed: \[rate_limit\]"),
        ("judge server error", r"call failed: \[(server|bad_response)\]"),
        ("judge refused the request", r"call failed: \[client\]"),
        ("judge reply too large", r"call failed: \[too_large\]"),
        ("judge call failed", r"call failed"),
        ("no judge configured", r"no judge model configured"),
        ("missing input", r"^(no response|every reference answer is empty|no reference answer)"),
        ("metric error", r"^[A-Z]\w*(Error|Exception|Warning): "),
    )
)


def error_cause(message: str) -> str:
    """The cause of a score's error, from the message the kit and runner write:
    ``target failed``, ``parse error``, ``judge unreachable``, ``judge rate-limited``,
    ``judge server error``, ``judge refused the request``, ``judge reply too large``,
    ``no judge configured``, ``missing input``, ``metric error`` or ``other``."""
    for cause, pattern in _CAUSES:
        if pattern.search(message):
            return cause
    return "other"


@dataclass(frozen=True)
class ErrorGroup:
    """The errors of one metric with one cause: how many, and one example message."""

    metric: str
    cause: str
    count: int
    example: str

    def to_dict(self) -> dict[str, object]:
        """JSON-able form."""
        return {
            "metric": self.metric,
            "cause": self.cause,
            "count": self.count,
            "example": self.example,
        }


def error_groups(scores: pd.DataFrame) -> list[ErrorGroup]:
    """The errors of a long score frame (``metric``, ``error`` columns) grouped by
    metric and cause, metrics in order of appearance, the most frequent cause first."""
    if scores.empty or "error" not in scores.columns:
        return []
    failed = scores[scores["error"].notna()]
    groups: list[ErrorGroup] = []
    for metric in scores["metric"].drop_duplicates():
        messages = failed.loc[failed["metric"] == metric, "error"].astype(str)
        causes = messages.map(error_cause)
        for cause, count in causes.value_counts(sort=True).items():
            example = messages[causes == cause].iloc[0]
            groups.append(ErrorGroup(str(metric), str(cause), int(count), example))
    return groups


class Tally(Protocol):
    """How many results of one metric have a value and how many failed (a
    :class:`~ragjudge.stats.MetricSummary` is one)."""

    @property
    def metric(self) -> str: ...

    @property
    def scored(self) -> int: ...

    @property
    def errors(self) -> int: ...


@dataclass(frozen=True)
class Verdict:
    """Whether a run delivered: its exit code and, when it is not 0, why."""

    exit_code: int
    reasons: list[str]


def run_verdict(summaries: Sequence[Tally], *, max_error_rate: float = 0.0) -> Verdict:
    """The exit code of a run with these per-metric summaries: a metric with no value
    at all — only errors — (or a run with no value at all) is :data:`EXIT_NO_VALUES`; a
    metric whose share of failed results exceeds ``max_error_rate`` is
    :data:`EXIT_ERRORS`. A metric that applied to no sample (only ``skipped``) fails
    nothing."""
    empty = [s.metric for s in summaries if s.scored == 0 and s.errors]
    if not any(s.scored for s in summaries) and not empty:
        return Verdict(EXIT_NO_VALUES, ["the run has no scores"])
    if empty:
        return Verdict(
            EXIT_NO_VALUES, [f"{m}: no value at all ({_errors_of(summaries, m)})" for m in empty]
        )
    failing = [
        f"{s.metric}: {s.errors} of {s.errors + s.scored} results failed "
        f"({s.errors / (s.errors + s.scored):.1%} > {max_error_rate:.1%} allowed)"
        for s in summaries
        if s.errors and s.errors / (s.errors + s.scored) > max_error_rate
    ]
    if failing:
        return Verdict(EXIT_ERRORS, failing)
    return Verdict(EXIT_OK, [])


def _errors_of(summaries: Sequence[Tally], metric: str) -> str:
    (summary,) = [s for s in summaries if s.metric == metric]
    return f"{summary.errors} error{'s' if summary.errors != 1 else ''}"

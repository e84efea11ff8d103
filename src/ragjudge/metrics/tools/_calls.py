"""What the tool metrics share: the actual calls read with explicit errors, argument
comparison, and the pairing of expected with actual calls."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, Literal

import numpy as np
from pydantic import Field
from scipy.optimize import linear_sum_assignment

from ragjudge.metrics._base import Metric, MetricFailure, MetricOptions
from ragjudge.schema import ExpectedToolCall, Output, Sample, ToolCall

__all__ = [
    "ArgumentOptions",
    "ToolMetric",
    "actual_calls",
    "arguments_match",
    "expected_calls",
    "pairing",
    "pairs_detail",
    "unpaired_names",
]

Comparator = Literal["exact", "case_insensitive", "number", "contains", "regex"]


class ArgumentOptions(MetricOptions):
    """How an expected call's arguments are compared with an actual call's."""

    arguments: Literal["exact", "subset"] = "subset"
    """``exact``: the same keys with equal values; ``subset``: every expected key present
    with an equal value, extra actual keys allowed."""
    comparators: dict[str, Comparator] = Field(default_factory=dict)
    """Per argument name, how its values compare (default ``exact``)."""
    tolerance: float = Field(default=1e-9, ge=0)
    """The relative tolerance of the ``number`` comparator."""


class ToolMetric(Metric):
    """A tool metric: CPU only, no judge, about what the agent did."""

    pipeline_parts = ("agent",)
    requires: tuple[str, ...] = ("expected_tool_calls",)
    inline: ClassVar[bool] = True


def actual_calls(output: Output) -> list[ToolCall]:
    """The system's calls in order; :class:`MetricFailure` when nothing says what it
    called or a call could not be read whole."""
    if output.tool_calls is None:
        raise MetricFailure(
            "the system's output holds no tool calls (none in its reply, its trace or the data)"
        )
    for position, call in enumerate(output.tool_calls, 1):
        if call.problem is not None:
            raise MetricFailure(
                f"tool call {position} ({call.name!r}) could not be read: {call.problem}",
                details={"call": position, "name": call.name, "problem": call.problem},
            )
    return list(output.tool_calls)


def expected_calls(sample: Sample) -> list[ExpectedToolCall]:
    """The expected calls; :class:`MetricFailure` for a row without them (the runner
    leaves such rows out of the metric beforehand when invalid rows are skipped)."""
    if not sample.expected_tool_calls:
        raise MetricFailure("the row has no expected_tool_calls")
    return list(sample.expected_tool_calls)


def _value_matches(expected: Any, actual: Any, how: Comparator, tolerance: float) -> bool:
    if how == "case_insensitive":
        return str(expected).casefold() == str(actual).casefold()
    if how == "contains":
        return str(expected).casefold() in str(actual).casefold()
    if how == "regex":
        return re.fullmatch(str(expected), str(actual)) is not None
    if how == "number":
        try:
            return math.isclose(float(expected), float(actual), rel_tol=tolerance)
        except (TypeError, ValueError):
            return False
    return bool(expected == actual)


def arguments_match(
    expected: Mapping[str, Any] | None, actual: Mapping[str, Any], options: ArgumentOptions
) -> bool:
    """Whether ``actual`` arguments satisfy ``expected`` (None: any arguments do)."""
    if expected is None:
        return True
    if options.arguments == "exact" and set(expected) != set(actual):
        return False
    return all(
        key in actual
        and _value_matches(
            value, actual[key], options.comparators.get(key, "exact"), options.tolerance
        )
        for key, value in expected.items()
    )


def pairing(
    expected: Sequence[ExpectedToolCall],
    actual: Sequence[ToolCall],
    options: ArgumentOptions | None,
) -> list[tuple[int, int]]:
    """The most (expected i, actual j) pairs of the same name (and, with ``options``,
    matching arguments) with each call in at most one pair: a maximum bipartite
    matching, ties broken toward pairs close in position."""
    if not expected or not actual:
        return []
    big = float(len(expected) + len(actual) + 1)
    cost = np.zeros((len(expected), len(actual)))
    for i, want in enumerate(expected):
        for j, call in enumerate(actual):
            fits = want.name == call.name and (
                options is None or arguments_match(want.arguments, call.arguments, options)
            )
            if fits:
                cost[i, j] = -big * big + abs(i - j)
    rows, cols = linear_sum_assignment(cost)
    return [(int(i), int(j)) for i, j in zip(rows, cols, strict=True) if cost[i, j] < 0]


def pairs_detail(pairs: Sequence[tuple[int, int]]) -> list[dict[str, int]]:
    """The pairing as the report reads it: ``{"expected": i, "actual": j}``."""
    return [{"expected": i, "actual": j} for i, j in pairs]


def unpaired_names(calls: Sequence[ToolCall | ExpectedToolCall], paired: set[int]) -> list[str]:
    """The names of the calls not in a pair, in order."""
    return [call.name for k, call in enumerate(calls) if k not in paired]

"""An agent's trajectory as the drill-down shows it: the calls the system made, in
order, with the calls it was expected to make beside them.

The pairing is the one a tool metric computed when the sample has such a score: the
tool metrics store it in their details as ``pairs`` (``[{"expected": i, "actual": j}]``,
positions from 0 in ``Sample.expected_tool_calls`` and ``Output.tool_calls``). Without
one, calls are paired by name in order. An expected call left unpaired is shown as
missing, a call made but not paired as extra.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from ragjudge.schema import ExpectedToolCall, Score, ToolCall

__all__ = ["CallText", "TrajectoryRow", "TrajectoryView", "trajectory_view"]

RowKind = Literal["paired", "missing", "extra"]

_OUTPUT_CHARS = 600
_ARGUMENT_CHARS = 2000
_PAIRING_METRICS = (
    "trajectory_match",
    "tool_argument_match",
    "tool_call_f1",
    "tool_call_recall",
    "tool_call_precision",
)
"""Tool metrics whose stored pairing the timeline follows, the first found first."""


@dataclass(frozen=True)
class CallText:
    """One call as text: its tool, its arguments as compact JSON, what it returned
    (cut when long) and why it could not be read, if so."""

    name: str
    arguments: str
    output: str | None = None
    problem: str | None = None
    order: int | None = None
    """The expected call's place in the expected trajectory, when the data gives one."""


@dataclass(frozen=True)
class TrajectoryRow:
    """One line of the timeline: an actual call (its step number from 1) and the
    expected call paired with it; ``kind`` says which of the two is absent."""

    kind: RowKind
    step: int | None
    actual: CallText | None
    expected: CallText | None


@dataclass(frozen=True)
class TrajectoryView:
    """The timeline of one sample and where its pairing comes from."""

    rows: list[TrajectoryRow]
    paired_by: str
    """The metric whose pairing is shown, or ``""`` when calls were paired by name."""
    has_expected: bool
    has_actual: bool


def trajectory_view(
    actual: Sequence[ToolCall] | None,
    expected: Sequence[ExpectedToolCall] | None,
    scores: Sequence[Score],
) -> TrajectoryView | None:
    """The timeline, or None when the sample neither made nor expected tool calls."""
    made, wanted = list(actual or []), list(expected or [])
    if not made and not wanted:
        return None
    metric, pairs = _stored_pairing(scores, len(wanted), len(made))
    if pairs is None:
        metric, pairs = "", _pairs_by_name(wanted, made)
    return TrajectoryView(
        rows=_rows(wanted, made, pairs),
        paired_by=metric,
        has_expected=expected is not None,
        has_actual=actual is not None,
    )


def _stored_pairing(
    scores: Sequence[Score], expected: int, actual: int
) -> tuple[str, dict[int, int] | None]:
    """The pairing of the first tool metric (in ``_PAIRING_METRICS`` order) whose
    stored pairs fit the calls shown."""
    for name in _PAIRING_METRICS:
        for score in scores:
            if score.metric.rsplit("/", 1)[-1] != name:
                continue
            pairs = _read_pairs(score.details.get("pairs"), expected, actual)
            if pairs is not None:
                return score.metric, pairs
    return "", None


def _read_pairs(value: Any, expected: int, actual: int) -> dict[int, int] | None:
    """``{actual j: expected i}`` from stored pairs; None unless every pair names two
    positions in range and no call is paired twice."""
    if not isinstance(value, list):
        return None
    pairs: dict[int, int] = {}
    for pair in value:
        if not isinstance(pair, Mapping):
            return None
        i, j = pair.get("expected"), pair.get("actual")
        if not isinstance(i, int) or not isinstance(j, int):
            return None
        if not _position(i, expected) or not _position(j, actual) or j in pairs:
            return None
        pairs[j] = i
    return pairs if len(set(pairs.values())) == len(pairs) else None


def _position(value: Any, size: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value < size


def _pairs_by_name(
    expected: Sequence[ExpectedToolCall], actual: Sequence[ToolCall]
) -> dict[int, int]:
    """Each expected call, in order, paired with the first call of its name not yet
    paired."""
    pairs: dict[int, int] = {}
    for i, want in enumerate(expected):
        j = next(
            (j for j, call in enumerate(actual) if call.name == want.name and j not in pairs),
            None,
        )
        if j is not None:
            pairs[j] = i
    return pairs


def _rows(
    expected: Sequence[ExpectedToolCall], actual: Sequence[ToolCall], pairs: Mapping[int, int]
) -> list[TrajectoryRow]:
    """The calls made in order, each beside its expected call; an unpaired expected
    call is placed before the first call paired with a later expected one."""
    rows: list[TrajectoryRow] = []
    missing = [i for i in range(len(expected)) if i not in pairs.values()]
    for j, call in enumerate(actual):
        i = pairs.get(j)
        if i is not None:
            while missing and missing[0] < i:
                rows.append(_missing_row(expected[missing.pop(0)]))
            rows.append(
                TrajectoryRow("paired", j + 1, _actual_text(call), _expected_text(expected[i]))
            )
        else:
            rows.append(TrajectoryRow("extra", j + 1, _actual_text(call), None))
    rows += [_missing_row(expected[i]) for i in missing]
    return rows


def _missing_row(call: ExpectedToolCall) -> TrajectoryRow:
    return TrajectoryRow("missing", None, None, _expected_text(call))


def _actual_text(call: ToolCall) -> CallText:
    output = None if call.output is None else _cut(_as_text(call.output), _OUTPUT_CHARS)
    return CallText(call.name, _compact(call.arguments), output, call.problem)


def _expected_text(call: ExpectedToolCall) -> CallText:
    arguments = "any arguments" if call.arguments is None else _compact(call.arguments)
    return CallText(call.name, arguments, order=call.order)


def _compact(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)
    return _cut(text, _ARGUMENT_CHARS)


def _as_text(value: Any) -> str:
    return value if isinstance(value, str) else _compact(value)


def _cut(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… ({len(text) - limit} more characters)"

"""The four ways ``trajectory_match`` holds the calls made against the expected ones.

Expected calls are ranked by ``order`` (a call without one takes its place in the list
as its order); calls sharing a rank form a group whose members may come in any order."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import groupby

from ragjudge.metrics.tools._calls import ArgumentOptions, pairing
from ragjudge.schema import ExpectedToolCall, ToolCall

__all__ = ["in_order", "ordered_groups", "subsequence"]

Pairs = list[tuple[int, int]]


def ordered_groups(expected: Sequence[ExpectedToolCall]) -> list[list[int]]:
    """The expected calls' positions in groups, in expected order."""

    def rank(k: int) -> int:
        order = expected[k].order
        return k if order is None else order

    ranked = sorted(range(len(expected)), key=rank)
    return [list(group) for _, group in groupby(ranked, key=rank)]


def in_order(
    expected: Sequence[ExpectedToolCall],
    actual: Sequence[ToolCall],
    options: ArgumentOptions | None,
) -> Pairs | None:
    """``strict``: the calls made are the groups one after another, each group in any
    order among itself, nothing before, between or after; the pairs, or None."""
    if len(expected) != len(actual):
        return None
    pairs: Pairs = []
    start = 0
    for group in ordered_groups(expected):
        segment = actual[start : start + len(group)]
        found = pairing([expected[k] for k in group], segment, options)
        if len(found) != len(group):
            return None
        pairs += [(group[i], start + j) for i, j in found]
        start += len(group)
    return sorted(pairs)


def subsequence(
    expected: Sequence[ExpectedToolCall],
    actual: Sequence[ToolCall],
    options: ArgumentOptions | None,
) -> Pairs | None:
    """``superset`` with ordered expectations: every group is found among the calls made
    after the previous group's calls, other calls allowed in between; the pairs, or
    None. Each call made is given to the first member of the group it fits."""
    pairs: Pairs = []
    position = 0
    for group in ordered_groups(expected):
        waiting = list(group)
        while waiting and position < len(actual):
            call = actual[position]
            fits = [k for k in waiting if _fits(expected[k], call, options)]
            if fits:
                pairs.append((fits[0], position))
                waiting.remove(fits[0])
            position += 1
        if waiting:
            return None
    return sorted(pairs)


def _fits(expected: ExpectedToolCall, call: ToolCall, options: ArgumentOptions | None) -> bool:
    return bool(pairing([expected], [call], options))

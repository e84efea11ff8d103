"""Kendall's tau-b of many bootstrap resamples at once, in ``n log n`` per resample.

A resample is a row of weights: how often it draws each of the ``n`` original pairs.
Its tau-b equals that of the resample written out in full. With ``N`` draws, ``c`` the
weight of each distinct x value, of each distinct y value and of each distinct (x, y)
pair, and ``Q`` the weighted count of discordant pairs, the concordant-minus-discordant
count over ordered pairs is ``N² − Σc_x² − Σc_y² + Σc_xy² − 4Q`` (copies of one pair are
tied on both sides and add nothing) and the ordered pairs untied in x number
``N² − Σc_x²`` (likewise y).

``Q`` is counted as the inversions of a merge sort: the pairs are put in order of x
(then y), and at every level of the sort each left block is set against its right
neighbour — a right element ``j`` is discordant with every left element ranked higher
in y. Which left elements those are depends on the data alone, so it is worked out
once (:class:`KendallPlan`); a resample only sums its weights over them: a cumulative
sum and two look-ups per level, ``O(n)`` per level and ``log₂ n`` levels.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from ragjudge.stats._bootstrap import FloatArray

__all__ = ["KendallPlan", "kendall_plan", "weighted_kendall"]

IntArray = npt.NDArray[np.intp]


@dataclass(frozen=True)
class _Level:
    """One level of the merge sort: the left elements in (block, y rank) order and,
    for each right element, where the left elements of its block that rank at most as
    high in y end, and where its block's left elements end (positions in that order,
    offset by one for the leading zero of the cumulative sum)."""

    left: IntArray
    right: IntArray
    at_most: IntArray
    block_end: IntArray


@dataclass(frozen=True)
class KendallPlan:
    """What the data alone decide: the levels of the merge sort, and each pair's
    distinct x value, distinct y value and distinct (x, y) pair."""

    levels: tuple[_Level, ...]
    group_x: IntArray
    group_y: IntArray
    group_xy: IntArray


def kendall_plan(x: FloatArray, y: FloatArray) -> KendallPlan:
    """The :class:`KendallPlan` of the pairs ``(x[i], y[i])``."""
    _, group_x = np.unique(x, return_inverse=True)
    _, group_y = np.unique(y, return_inverse=True)
    joint = group_x.astype(np.int64) * (int(group_y.max()) + 1) + group_y
    _, group_xy = np.unique(joint, return_inverse=True)
    # Sorted by x, then y: an earlier element with the same x never ranks higher in y,
    # so "earlier and higher in y" is exactly "lower in x and higher in y".
    order = np.lexsort((group_y, group_x))
    ranks = group_y[order].astype(np.int64)
    levels = []
    width = 1
    while width < x.size:
        levels.append(_level(order, ranks, width, int(ranks.max()) + 1))
        width *= 2
    return KendallPlan(tuple(levels), group_x, group_y, group_xy)


def _level(order: IntArray, ranks: npt.NDArray[np.int64], width: int, k: int) -> _Level:
    """The merge-sort level whose blocks are ``width`` elements long."""
    position = np.arange(order.size)
    block = position // (2 * width)
    is_left = (position // width) % 2 == 0
    left_keys = block[is_left] * k + ranks[is_left]
    by_key = np.argsort(left_keys, kind="stable")
    sorted_keys = left_keys[by_key]
    right_block = block[~is_left]
    at_most = np.searchsorted(sorted_keys, right_block * k + ranks[~is_left], side="right")
    block_end = np.searchsorted(sorted_keys, (right_block + 1) * k, side="left")
    return _Level(
        left=order[is_left][by_key].astype(np.intp),
        right=order[~is_left].astype(np.intp),
        at_most=at_most.astype(np.intp),
        block_end=block_end.astype(np.intp),
    )


def weighted_kendall(plan: KendallPlan, w: FloatArray) -> FloatArray:
    """Kendall's tau-b per row of weights ``w`` (one row per resample, one column per
    pair; whole numbers). NaN where a row leaves x or y without two distinct values."""
    total = w.sum(axis=1) ** 2
    square_x = _squared_group_weights(plan.group_x, w)
    square_y = _squared_group_weights(plan.group_y, w)
    square_xy = _squared_group_weights(plan.group_xy, w)
    score = total - square_x - square_y + square_xy - 4 * _discordant(plan, w)
    with np.errstate(invalid="ignore", divide="ignore"):
        result: FloatArray = score / np.sqrt((total - square_x) * (total - square_y))
    return result


def _squared_group_weights(group: IntArray, w: FloatArray) -> FloatArray:
    """Per row, the sum over groups of the squared weight each group draws."""
    k = int(group.max()) + 1
    offsets = group[None, :] + np.arange(w.shape[0])[:, None] * k
    per_group = np.bincount(offsets.ravel(), weights=w.ravel(), minlength=w.shape[0] * k)
    squares: FloatArray = (per_group.reshape(w.shape[0], k) ** 2).sum(axis=1)
    return squares


def _discordant(plan: KendallPlan, w: FloatArray) -> FloatArray:
    """Per row, the weighted count of pairs lower in x and higher in y (unordered)."""
    count = np.zeros(w.shape[0])
    for level in plan.levels:
        cumulative = np.zeros((w.shape[0], level.left.size + 1))
        np.cumsum(w[:, level.left], axis=1, out=cumulative[:, 1:])
        higher = cumulative[:, level.block_end] - cumulative[:, level.at_most]
        count += (higher * w[:, level.right]).sum(axis=1)
    return count

"""A random subset of an evaluation set that keeps every subset in it: ``--sample N``
draws N rows stratified by the ``by`` key, where ``--limit N`` takes the first N and
can leave a subset out entirely."""

from __future__ import annotations

import json
import math
import random
from collections.abc import Iterable, Sequence
from typing import Any

from ragjudge.schema import Sample

__all__ = ["per_group_positions", "per_group_sample", "stratified_sample"]


def stratified_sample(
    samples: Sequence[Sample], n: int, *, by: str | None = None, seed: int = 0
) -> list[Sample]:
    """``n`` samples drawn at random (with ``seed``, so the same call draws the same
    rows) in the set's order. With ``by`` (a metadata key), each subset gets a share of
    ``n`` proportional to its size (largest remainders) and, when ``n`` allows, at least
    one row; rows without the key form a subset of their own."""
    key = None if by is None else by.removeprefix("metadata.")
    values = [None if key is None else s.metadata.get(key) for s in samples]
    return [samples[i] for i in stratified_positions(values, n, seed=seed)]


def stratified_positions(values: Sequence[Any], n: int, *, seed: int = 0) -> list[int]:
    """The positions :func:`stratified_sample` draws, in order, from each row's value
    of the ``by`` key (None for a row without it): the draw needs nothing else."""
    if n >= len(values):
        return list(range(len(values)))
    groups = _groups(values)
    quotas = _quotas([len(rows) for rows in groups.values()], n)
    rng = random.Random(seed)
    chosen: list[int] = []
    for rows, quota in zip(groups.values(), quotas, strict=True):
        chosen.extend(rng.sample(rows, quota))
    return sorted(chosen)


def _groups(values: Sequence[Any]) -> dict[str, list[int]]:
    """Row indices per subset, subsets sorted by their value (so the draw does not
    depend on the row order of the subsets' first appearance)."""
    groups: dict[str, list[int]] = {}
    for index, value in enumerate(values):
        groups.setdefault(json.dumps(value, sort_keys=True, default=str), []).append(index)
    return dict(sorted(groups.items()))


def _quotas(sizes: list[int], n: int) -> list[int]:
    """How many rows to draw from groups of ``sizes``: proportional shares, rounded by
    largest remainder, every group at least one when ``n`` is at least the number of
    groups (taken from the largest quotas)."""
    total = sum(sizes)
    exact = [n * size / total for size in sizes]
    quotas = [math.floor(x) for x in exact]
    by_remainder = sorted(range(len(sizes)), key=lambda i: (quotas[i] - exact[i], i))
    for i in by_remainder[: n - sum(quotas)]:
        quotas[i] += 1
    if n >= len(sizes):
        for i in [i for i, q in enumerate(quotas) if q == 0]:
            donor = max(range(len(quotas)), key=lambda j: (quotas[j], -j))
            quotas[donor] -= 1
            quotas[i] = 1
    return [min(q, size) for q, size in zip(quotas, sizes, strict=True)]


def per_group_positions(values: Iterable[Any], n: int, *, seed: int = 0) -> list[int]:
    """``sample`` with ``sample_per``: up to ``n`` positions drawn at random from each
    group of rows with one value (``values``: each row's value, in order), in order.

    The draw keeps a reservoir of ``n`` positions per group as it goes, so its memory
    grows with the groups, not the rows; the same values and ``seed`` draw the same
    rows."""
    reservoirs: dict[str, list[int]] = {}
    seen: dict[str, int] = {}
    rng = random.Random(seed)
    for position, value in enumerate(values):
        group = json.dumps(value, sort_keys=True, default=str)
        count = seen[group] = seen.get(group, 0) + 1
        kept = reservoirs.setdefault(group, [])
        if len(kept) < n:
            kept.append(position)
        elif (slot := rng.randrange(count)) < n:
            kept[slot] = position
    return sorted(p for kept in reservoirs.values() for p in kept)


def per_group_sample(samples: Sequence[Sample], n: int, *, per: str, seed: int = 0) -> list[Sample]:
    """Up to ``n`` samples from each value of metadata key ``per`` (rows without it
    form a group of their own), in the set's order."""
    key = per.removeprefix("metadata.")
    values = (s.metadata.get(key) for s in samples)
    return [samples[i] for i in per_group_positions(values, n, seed=seed)]

"""Pairwise meta-evaluation: humans compared two answers to one question (RAGChecker's
preferences, −2 … 2, positive favouring the second answer); each metric scored both.

A metadata key names each sample's pair. Within a pair, the samples are ordered by
sample id — ``<pair>::model1`` before ``<pair>::model2`` — and a metric's value for the
pair is the second sample's value minus the first's, the comparison the human label
makes (RAGChecker's own meta-evaluation correlates its labels with the same
difference). The pair's label and its metadata (for ``--by``) are the first sample's;
both samples must carry the same label.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from ragjudge.errors import AnalysisError
from ragjudge.stats import metadata_column

__all__ = ["pair_frames"]


def pair_frames(
    firsts: pd.DataFrame,
    metric_values: Mapping[str, pd.Series[float]],
    pair_key: str,
    label_keys: Sequence[str],
) -> tuple[pd.DataFrame, dict[str, pd.Series[float]]]:
    """The per-pair metadata frame (indexed by pair id) and each metric's per-pair
    difference. Raises :class:`~ragjudge.errors.AnalysisError` naming a pair that does
    not hold exactly two samples, or whose two samples carry different labels."""
    column = metadata_column(firsts, pair_key)
    sides: dict[str, tuple[Any, Any]] = {}
    for pair, ids in firsts.groupby(firsts[column].map(str), sort=False).groups.items():
        ordered = sorted(ids, key=str)
        if len(ordered) != 2:
            raise AnalysisError(
                f"pair {pair!r} (metadata {pair_key!r}) holds {len(ordered)} sample(s), not 2"
            )
        sides[str(pair)] = (ordered[0], ordered[1])
    for key in label_keys:
        label_column = metadata_column(firsts, key)
        for pair, (first, second) in sides.items():
            if str(firsts.at[first, label_column]) != str(firsts.at[second, label_column]):
                raise AnalysisError(
                    f"pair {pair!r}: its two samples carry different {key!r} labels"
                )
    pairs = list(sides)
    frame = firsts.loc[[sides[p][0] for p in pairs]].copy()
    frame.index = pd.Index(pairs, name=firsts.index.name)
    differences = {metric: _differences(values, sides) for metric, values in metric_values.items()}
    return frame, differences


def _differences(
    values: pd.Series[float], sides: Mapping[str, tuple[Any, Any]]
) -> pd.Series[float]:
    """Second minus first per pair; a pair missing either value is left out."""
    found = {
        pair: float(values[second] - values[first])
        for pair, (first, second) in sides.items()
        if first in values.index and second in values.index
    }
    return pd.Series(found, dtype="float64")

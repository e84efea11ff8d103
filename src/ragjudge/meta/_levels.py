"""Correlations at the three levels of summarisation meta-evaluation.

- **sample** (the default): one point per sample — does the metric rank single
  answers as people do?
- **summary**: the samples are grouped by a metadata key naming the input they answer
  (``--group task_id``: several systems' answers to one question); within each group
  the metric's values are correlated with the human scores, and the correlations are
  averaged over the groups. It asks whether the metric ranks different answers *to the
  same input* as people do. Groups with fewer than two samples, or where one side is
  constant, have no correlation and are left out of the average; ``n`` counts the
  groups that enter it and the interval is a bootstrap over them (no p-value).
- **system**: the samples are grouped by a metadata key naming the system that
  answered (``--group model_id``); each system's mean metric value is correlated with
  its mean human score. It asks whether the metric ranks *systems* as people do;
  ``n`` is the number of systems, so with a handful of systems the interval is wide.
"""

from __future__ import annotations

from typing import Any, Literal

import numpy as np
import pandas as pd

from ragjudge.errors import ConfigError
from ragjudge.stats import CORRELATION_METHODS, Correlation, bootstrap_ci, correlations

__all__ = ["LEVELS", "Level", "check_level", "level_correlations"]

Level = Literal["sample", "summary", "system"]
LEVELS: tuple[str, ...] = ("sample", "summary", "system")


def check_level(level: str, group: str | None) -> None:
    """Raise :class:`~ragjudge.errors.ConfigError` unless ``level`` is known and a
    summary or system level names its ``group`` key (and the sample level none)."""
    if level not in LEVELS:
        raise ConfigError(f"level must be one of {', '.join(LEVELS)}, not {level!r}")
    if level != "sample" and group is None:
        raise ConfigError(f"the {level} level needs --group KEY: the metadata key of the groups")
    if level == "sample" and group is not None:
        raise ConfigError("--group applies to --level summary or system")


def level_correlations(
    metric: pd.Series[float],
    human: pd.Series[float],
    groups: pd.Series[Any],
    level: Level,
    *,
    seed: int,
    confidence: float,
    n_resamples: int,
) -> dict[str, Correlation]:
    """Each method's correlation of ``metric`` with ``human`` (paired, indexed by
    sample id) at ``level``, the samples grouped by ``groups`` (a label per sample id)."""
    frame = pd.DataFrame({"metric": metric, "human": human, "group": groups.reindex(metric.index)})
    frame = frame.dropna(subset=["group"])
    if level == "system":
        means = frame.groupby("group", sort=True)[["metric", "human"]].mean()
        return correlations(
            means["metric"].to_numpy(dtype=np.float64),
            means["human"].to_numpy(dtype=np.float64),
            seed=seed,
            confidence=confidence,
            n_resamples=n_resamples,
        )
    return _averaged_within_groups(frame, seed=seed, confidence=confidence, n_resamples=n_resamples)


def _averaged_within_groups(
    frame: pd.DataFrame, *, seed: int, confidence: float, n_resamples: int
) -> dict[str, Correlation]:
    """The summary level: each method's correlation within every group, averaged."""
    from scipy import stats as scipy_stats  # scipy is slow to import; only needed here

    methods = {
        "pearson": scipy_stats.pearsonr,
        "spearman": scipy_stats.spearmanr,
        "kendall": scipy_stats.kendalltau,
    }
    per_group: dict[str, list[float]] = {m: [] for m in CORRELATION_METHODS}
    for _, part in frame.groupby("group", sort=True):
        x = part["metric"].to_numpy(dtype=np.float64)
        y = part["human"].to_numpy(dtype=np.float64)
        if x.size < 2 or np.all(x == x[0]) or np.all(y == y[0]):
            continue
        for method in CORRELATION_METHODS:
            per_group[method].append(float(methods[method](x, y).statistic))
    result: dict[str, Correlation] = {}
    for method, values in per_group.items():
        estimate = float(np.mean(values)) if values else None
        ci = bootstrap_ci(values, confidence=confidence, n_resamples=n_resamples, seed=seed)
        used = n_resamples if ci is not None else 0
        result[method] = Correlation(method, estimate, ci, None, len(values), used)
    return result

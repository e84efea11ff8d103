"""Pass rates beside a run's summary table: the ``pass_rate``, ``pass_ci_low`` and
``pass_ci_high`` columns of :meth:`EvaluationResult.summary`, overall and per subset."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from ragjudge.analysis._passes import PassRate, SamplePasses, pass_rates
from ragjudge.schema import ScoreMeaning
from ragjudge.stats import group_label, metadata_column

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["PASS_COLUMNS", "sample_labels", "subset_pass_rates", "with_pass_rates"]

PASS_COLUMNS = ("pass_rate", "pass_ci_low", "pass_ci_high")


def with_pass_rates(frame: pd.DataFrame, rates: Sequence[PassRate]) -> pd.DataFrame:
    """``frame`` (one row per metric) with the pass-rate columns: each score's pass rate
    and interval, NaN for a score without a per-sample pass."""
    by_metric = {r.metric: r for r in rates}

    def column(pick: int) -> list[float]:
        return [_rate_values(by_metric.get(m))[pick] for m in frame["metric"]]

    return frame.assign(**{name: column(i) for i, name in enumerate(PASS_COLUMNS)})


def _rate_values(rate: PassRate | None) -> tuple[float, float, float]:
    """The rate and its interval; NaN where there is none."""
    if rate is None or rate.rate is None:
        return (_NAN, _NAN, _NAN)
    if rate.ci is None:
        return (rate.rate, _NAN, _NAN)
    return (rate.rate, rate.ci.low, rate.ci.high)


_NAN = float("nan")


def sample_labels(scores: pd.DataFrame, by: str) -> dict[str, str]:
    """Each sample's subset under metadata key ``by``, from its first score row."""
    if scores.empty:
        return {}
    firsts = scores.drop_duplicates("sample_id")
    labels = firsts[metadata_column(firsts, by)].map(group_label)
    return dict(zip(firsts["sample_id"].astype(str), labels, strict=True))


def subset_pass_rates(
    passes: SamplePasses,
    labels: Mapping[str, str],
    meanings: Mapping[str, ScoreMeaning],
    *,
    seed: int = 0,
) -> dict[str, list[PassRate]]:
    """Per subset, the pass rates over its samples only."""
    groups = dict.fromkeys(labels.values())
    return {
        group: pass_rates(
            {
                metric: {i: p for i, p in by_sample.items() if labels.get(i) == group}
                for metric, by_sample in passes.items()
            },
            meanings,
            seed=seed,
        )
        for group in groups
    }

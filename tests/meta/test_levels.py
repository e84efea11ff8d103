"""Summary-level and system-level correlations, against values worked out by hand."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats as scipy_stats

from ragjudge.errors import ConfigError
from ragjudge.meta._levels import check_level, level_correlations

# Two inputs (q1, q2) answered by three systems (a, b, c), and q3 answered once.
IDS = ["q1a", "q1b", "q1c", "q2a", "q2b", "q2c", "q3a"]
METRIC = pd.Series([0.1, 0.5, 0.9, 0.3, 0.2, 0.8, 0.4], index=IDS)
HUMAN = pd.Series([1.0, 2.0, 3.0, 3.0, 1.0, 2.0, 5.0], index=IDS)
INPUTS = pd.Series([i[:2] for i in IDS], index=IDS)
SYSTEMS = pd.Series([i[2] for i in IDS], index=IDS)


def at(level: str, groups: pd.Series) -> dict[str, float | None]:
    found = level_correlations(
        METRIC,
        HUMAN,
        groups,
        level,
        seed=0,
        confidence=0.95,
        n_resamples=200,  # type: ignore[arg-type]
    )
    return {method: c.estimate for method, c in found.items()} | {
        "n": found["pearson"].n,
    }


def test_summary_level_averages_the_correlation_within_each_input() -> None:
    found = at("summary", INPUTS)
    # q1: the metric ranks the three answers as people do (1.0). q2: the metric ranks
    # them 2nd, 1st, 3rd where people rank them 3rd, 1st, 2nd: Spearman 1 - 6·2/(3·8)
    # = 0.5, Kendall (2 concordant - 1 discordant) / 3. q3 has one answer: left out.
    q2_pearson = scipy_stats.pearsonr([0.3, 0.2, 0.8], [3.0, 1.0, 2.0]).statistic
    assert found["pearson"] == pytest.approx((1.0 + q2_pearson) / 2)
    assert found["spearman"] == pytest.approx((1.0 + 0.5) / 2)
    assert found["kendall"] == pytest.approx((1.0 + 1 / 3) / 2)
    assert found["n"] == 2


def test_system_level_correlates_the_systems_means() -> None:
    found = at("system", SYSTEMS)
    metric_means = [np.mean([0.1, 0.3, 0.4]), np.mean([0.5, 0.2]), np.mean([0.9, 0.8])]
    human_means = [np.mean([1.0, 3.0, 5.0]), np.mean([2.0, 1.0]), np.mean([3.0, 2.0])]
    expected = scipy_stats.pearsonr(metric_means, human_means).statistic
    assert found["pearson"] == pytest.approx(expected)
    assert found["n"] == 3


def test_the_summary_interval_is_over_groups_and_has_no_p_value() -> None:
    many = [f"g{i // 3}" for i in range(30)]
    rng = np.random.default_rng(0)
    human = pd.Series(rng.integers(1, 6, 30).astype(float), index=range(30))
    metric = human + rng.normal(0, 1, 30)
    found = level_correlations(
        metric,
        human,
        pd.Series(many, index=range(30)),
        "summary",
        seed=1,
        confidence=0.9,
        n_resamples=300,
    )["spearman"]
    assert found.p_value is None and found.ci is not None and found.n <= 10
    assert found.estimate is not None and found.ci.low <= found.estimate <= found.ci.high


@pytest.mark.parametrize(
    ("level", "group", "message"),
    [
        ("document", None, "level must be one of sample, summary, system"),
        ("summary", None, "the summary level needs --group KEY"),
        ("system", None, "the system level needs --group KEY"),
        ("sample", "doc_id", "--group applies to --level summary or system"),
    ],
)
def test_level_and_group_are_checked(level: str, group: str | None, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        check_level(level, group)

"""The judge ranking's verdict line in each case it can meet."""

from __future__ import annotations

from ragjudge.meta._ranking import RankedJudge, rank_group, told_apart
from ragjudge.stats import Estimate, Interval
from ragjudge.terminal._judge_table import ranking_verdict


def _judge(name: str, tau: float | None, cost: float | None, half: float = 0.05) -> RankedJudge:
    ci = None if tau is None else Interval(tau - half, tau + half)
    return RankedJudge(name, None, Estimate(tau, ci), n=100, calls=100, cost_per_thousand=cost)


def test_a_cheaper_judge_told_apart_from_the_best() -> None:
    ranking = rank_group(
        "ok",
        "faithfulness",
        "reference",
        "kendall",
        [_judge("small", 0.60, 0.1), _judge("big", 0.80, 2.0)],
        within=0.25,
    )

    assert [j.judge for j in ranking.judges] == ["big", "small"]
    assert ranking_verdict(ranking) == (
        "cheapest judge within 0.25 Kendall τ of the best: small (Kendall τ 0.600 against "
        "0.800 of big; $0.1000 against $2.0000 per 1,000 samples); the difference lies "
        "outside both 95% CIs"
    )


def test_the_best_is_the_cheapest_within_a_narrow_margin() -> None:
    ranking = rank_group(
        "ok", "m", None, "kappa", [_judge("small", 0.60, 0.1), _judge("big", 0.80, 2.0)], 0.05
    )

    assert ranking_verdict(ranking).startswith(
        "cheapest judge within 0.05 Cohen's κ of the best: big, the best itself"
    )


def test_unpriced_and_undefined_judges() -> None:
    unpriced = rank_group("ok", "m", None, "kendall", [_judge("a", 0.5, None)], 0.1)
    undefined = rank_group("ok", "m", None, "kendall", [_judge("a", None, 1.0)], 0.1)

    assert ranking_verdict(unpriced).endswith("none of them has a priced cost")
    assert ranking_verdict(undefined) == "no judge has a defined Kendall τ: nothing to rank"
    assert undefined.best is None and undefined.cheapest is None


def test_told_apart_needs_both_figures_outside_the_other_interval() -> None:
    assert told_apart(Estimate(0.8, Interval(0.7, 0.9)), Estimate(0.5, Interval(0.4, 0.6)))
    assert not told_apart(Estimate(0.8, Interval(0.6, 0.9)), Estimate(0.65, Interval(0.5, 0.7)))
    assert not told_apart(Estimate(0.8, None), Estimate(0.1, Interval(0.0, 0.2)))

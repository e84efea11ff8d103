"""Rubric scoring: the seed's totals from the seed's verdicts, HealthBench's rule on a hand
case, clipping, tags and a rubric without positive points."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragjudge.metrics.rubric._scoring import ItemResult, clipped, outcome_of, tag_rates
from ragjudge.schema import RubricItem

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "rubric"

SEED_MET = {
    # the seed's tables: criteria_met per item, in rubric order, for each response
    "response-1": [True, True, True, True, False, True, True, True, False, True, False, False],
    "response-2": [True, True] + [False] * 10,
}


def results(items: list[RubricItem], met: list[bool]) -> list[ItemResult]:
    return [ItemResult(i, m, "") for i, m in zip(items, met, strict=True)]


def example_rubric() -> list[RubricItem]:
    row = json.loads((EXAMPLE / "evalset.jsonl").read_text(encoding="utf-8").splitlines()[0])
    return [RubricItem.model_validate(i) for i in row["rubric"]]


def test_the_seeds_rubric_has_twelve_items_worth_ninety() -> None:
    items = example_rubric()
    assert [i.points for i in items] == [20, 10, 10, 10, 10, 10, 5, 5, 5, 5, -50, -20]


@pytest.mark.parametrize(
    ("response", "total", "rate"), [("response-1", 75, 75 / 90), ("response-2", 30, 30 / 90)]
)
def test_the_seeds_verdicts_give_the_seeds_scores(response: str, total: int, rate: float) -> None:
    outcome = outcome_of(results(example_rubric(), SEED_MET[response]))
    assert (outcome.total_score, outcome.theoretical_score) == (total, 90)
    assert outcome.score_rate == pytest.approx(rate)
    assert round(outcome.score_rate or 0, 3) == {"response-1": 0.833, "response-2": 0.333}[response]


def test_healthbench_rule_on_a_hand_case() -> None:
    items = [RubricItem(criterion=f"c{p}", points=p) for p in (7, 5, 10, -6)]
    outcome = outcome_of(results(items, [True, False, True, True]))
    assert outcome.total_score == 7 + 10 - 6
    assert outcome.theoretical_score == 22
    assert outcome.score_rate == pytest.approx(11 / 22)
    details = outcome.to_dict()["result_by_rubrics"]
    assert [d["signed_score"] for d in details] == [7, 0, 10, -6]  # type: ignore[index]


def test_penalties_can_push_the_rate_below_zero_and_clipping_stops_at_zero() -> None:
    items = [RubricItem(criterion="good", points=10), RubricItem(criterion="bad", points=-50)]
    outcome = outcome_of(results(items, [False, True]))
    assert outcome.score_rate == -5.0
    assert clipped(-5.0) == 0.0 and clipped(0.4) == 0.4 and clipped(1.5) == 1.0


def test_no_positive_points_has_no_rate() -> None:
    items = [RubricItem(criterion="bad", points=-5)]
    assert outcome_of(results(items, [False])).score_rate is None


def test_tag_rates_over_the_items_of_each_tag() -> None:
    items = [
        RubricItem(criterion="a", points=10, tags=["axis:accuracy", "level:example"]),
        RubricItem(criterion="b", points=5, tags=["axis:completeness"]),
        RubricItem(criterion="c", points=-4, tags=["axis:accuracy"]),
        RubricItem(criterion="d", points=-3, tags=["axis:safety"]),
    ]
    rates = tag_rates(results(items, [True, False, True, True]), ["axis:"])
    assert rates == {"axis:accuracy": 0.6, "axis:completeness": 0.0, "axis:safety": None}

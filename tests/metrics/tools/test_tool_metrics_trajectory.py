"""Hand-computed cases of ``trajectory_match`` in each mode, with order groups."""

from __future__ import annotations

from typing import Any

import pytest

from ragjudge.metrics import MetricContext, create_metric
from ragjudge.schema import Output, Sample


def call(name: str, order: int | None = None, **arguments: Any) -> dict[str, Any]:
    found: dict[str, Any] = {"name": name, "arguments": arguments}
    if order is not None:
        found["order"] = order
    return found


def made(*names: str) -> list[dict[str, Any]]:
    return [{"name": n, "arguments": {}} for n in names]


async def match(expected: list[dict[str, Any]], actual: list[Any], **options: Any) -> float | None:
    sample = Sample(request_id="r", request="q", expected_tool_calls=expected)
    output = Output(response="a", tool_calls=actual)
    [score] = await create_metric({"metric": "trajectory_match", **options}).score(
        sample, output, MetricContext()
    )
    assert score.error is None, score.error
    return score.value


ABC = [call("a"), call("b"), call("c")]


@pytest.mark.parametrize(
    ("mode", "actual", "expected_value"),
    [
        ("strict", ("a", "b", "c"), 1.0),
        ("strict", ("b", "a", "c"), 0.0),
        ("strict", ("a", "b", "c", "d"), 0.0),
        ("unordered", ("c", "a", "b"), 1.0),
        ("unordered", ("a", "b"), 0.0),
        ("subset", ("b", "a"), 1.0),
        ("subset", ("a", "d"), 0.0),
        ("superset", ("c", "d", "a", "b"), 1.0),
        ("superset", ("a", "b"), 0.0),
    ],
)
async def test_modes_without_order(
    mode: str, actual: tuple[str, ...], expected_value: float
) -> None:
    assert await match(ABC, made(*actual), mode=mode) == expected_value


async def test_calls_sharing_an_order_may_come_in_either_order() -> None:
    expected = [call("plan", 0), call("search", 1), call("fetch", 1), call("answer", 2)]
    assert await match(expected, made("plan", "fetch", "search", "answer")) == 1.0
    assert await match(expected, made("fetch", "plan", "search", "answer")) == 0.0


async def test_superset_with_order_is_a_subsequence() -> None:
    expected = [call("search", 0), call("answer", 1)]
    assert await match(expected, made("log", "search", "log", "answer"), mode="superset") == 1.0
    assert await match(expected, made("answer", "search"), mode="superset") == 0.0


async def test_repeated_names_count_as_a_multiset() -> None:
    expected = [call("search"), call("search")]
    assert await match(expected, made("search"), mode="unordered") == 0.0
    assert await match(expected, made("search"), mode="subset") == 1.0
    assert await match(expected, made("search", "search", "x"), mode="superset") == 1.0


async def test_arguments_count_only_when_asked() -> None:
    expected = [call("search", q="a")]
    actual = [{"name": "search", "arguments": {"q": "b"}}]
    assert await match(expected, actual) == 1.0
    assert await match(expected, actual, match_arguments=True) == 0.0


async def test_details_hold_the_pairing_and_what_is_missing() -> None:
    sample = Sample(request_id="r", request="q", expected_tool_calls=ABC)
    output = Output(response="a", tool_calls=made("a", "c", "d"))
    [score] = await create_metric({"metric": "trajectory_match", "mode": "unordered"}).score(
        sample, output, MetricContext()
    )
    assert score.value == 0.0
    assert score.details["pairs"] == [{"expected": 0, "actual": 0}, {"expected": 2, "actual": 1}]
    assert score.details["missing"] == ["b"] and score.details["extra"] == ["d"]

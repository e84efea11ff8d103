"""Hand-computed cases of the tool metrics: overlap by name, arguments, steps, repeats
and the explicit errors."""

from __future__ import annotations

from typing import Any

import pytest

from ragjudge.metrics import MetricContext, create_metric
from ragjudge.schema import Output, Sample, Score


def call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"name": name, "arguments": arguments}


async def score_of(
    metric: str, expected: list[dict[str, Any]] | None, actual: list[Any] | None, **options: Any
) -> Score:
    sample = Sample(request_id="r", request="q", expected_tool_calls=expected)
    output = Output(response="a", tool_calls=actual)
    [score] = await create_metric({"metric": metric, **options}).score(
        sample, output, MetricContext()
    )
    return score


async def test_two_expected_searches_and_one_made_give_recall_one_half() -> None:
    expected = [call("search"), call("search"), call("fetch")]
    actual = [call("search"), call("fetch"), call("email")]
    recall = await score_of("tool_call_recall", expected, actual)
    precision = await score_of("tool_call_precision", expected, actual)
    f1 = await score_of("tool_call_f1", expected, actual)
    assert recall.value == pytest.approx(2 / 3)
    assert precision.value == pytest.approx(2 / 3)
    assert f1.value == pytest.approx(2 * 2 / 6)
    assert recall.details["missing"] == ["search"]
    assert recall.details["extra"] == ["email"]


async def test_no_calls_made_is_a_value_not_an_error() -> None:
    recall = await score_of("tool_call_recall", [call("search")], [])
    precision = await score_of("tool_call_precision", [call("search")], [])
    assert (recall.value, precision.value) == (0.0, 1.0)


async def test_an_output_without_tool_calls_is_an_explicit_error() -> None:
    score = await score_of("tool_call_recall", [call("search")], None)
    assert score.value is None
    assert score.error is not None and "holds no tool calls" in score.error


async def test_a_malformed_call_is_an_error_naming_its_position_and_name() -> None:
    broken = {"name": "search", "arguments": "{not json"}
    score = await score_of("tool_call_f1", [call("search")], [call("fetch"), broken])
    assert score.value is None
    assert score.error is not None
    assert "tool call 2 ('search')" in score.error and "not JSON" in score.error


async def test_a_row_without_expected_calls_is_an_explicit_error() -> None:
    score = await score_of("tool_call_precision", None, [call("search")])
    assert score.value is None and score.error is not None


async def test_argument_match_uses_a_maximum_matching_over_repeated_names() -> None:
    # in order, expected 0 would take actual 0 and leave expected 1 without a match
    expected = [call("search", q="a"), call("search", q="a", lang="en")]
    actual = [call("search", q="a", lang="en"), call("search", q="a")]
    score = await score_of("tool_argument_match", expected, actual, arguments="exact")
    assert score.value == 1.0
    assert score.details["pairs"] == [{"expected": 0, "actual": 1}, {"expected": 1, "actual": 0}]


async def test_subset_arguments_allow_extra_keys_and_exact_does_not() -> None:
    expected = [call("search", q="a")]
    actual = [call("search", q="a", limit=5)]
    assert (await score_of("tool_argument_match", expected, actual)).value == 1.0
    exact = await score_of("tool_argument_match", expected, actual, arguments="exact")
    assert exact.value == 0.0


async def test_argument_comparators() -> None:
    expected = [
        call("weather", city="Paris"),
        call("convert", amount=100),
        call("search", q="union"),
        call("lookup", id=r"A-\d+"),
    ]
    actual = [
        call("weather", city="PARIS"),
        call("convert", amount="100.0000000001"),
        call("search", q="SQL UNION operator"),
        call("lookup", id="A-42"),
    ]
    comparators = {"city": "case_insensitive", "amount": "number", "q": "contains", "id": "regex"}
    score = await score_of("tool_argument_match", expected, actual, comparators=comparators)
    assert score.value == 1.0
    plain = await score_of("tool_argument_match", expected, actual)
    assert plain.value == 0.0


async def test_argument_match_counts_only_expected_calls_with_arguments() -> None:
    expected = [call("search", q="a"), {"name": "fetch"}, call("email", to="b")]
    actual = [call("fetch", url="x"), call("search", q="a")]
    score = await score_of("tool_argument_match", expected, actual)
    assert score.value == 0.5
    assert score.details["pairs"] == [{"expected": 0, "actual": 1}]


async def test_tool_steps_counts_calls_and_checks_a_limit() -> None:
    actual = [call("a"), call("b"), call("c")]
    assert (await score_of("tool_steps", None, actual)).value == 3.0
    assert (await score_of("tool_steps", None, actual, max_steps=3)).value == 1.0
    assert (await score_of("tool_steps", None, actual, max_steps=2)).value == 0.0


async def test_redundant_calls_repeat_name_and_equal_arguments() -> None:
    actual = [call("search", q="a", k=1), call("search", k=1, q="a"), call("search", q="b")]
    actual.append(call("search", q="a", k=1))
    count = await score_of("redundant_tool_calls", None, actual)
    share = await score_of("redundant_tool_calls", None, actual, share=True)
    assert count.value == 2.0
    assert share.value == 0.5
    assert [r["repeats"] for r in count.details["repeats"]] == [0, 0]

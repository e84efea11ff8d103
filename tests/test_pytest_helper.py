"""``ragjudge.pytest``: a test asserts on a metric's mean or CI bound and a failure
reads as what went wrong."""

from __future__ import annotations

from pathlib import Path

import pytest

import ragjudge as rj
from ragjudge.pytest import assert_gates, assert_metric

ROWS = [
    {"request": "q1", "response": "red blue green", "expected_response": "red blue green"},
    {"request": "q2", "response": "red blue", "expected_response": "red blue green yellow"},
    {"request": "q3", "response": "cat", "expected_response": "dog"},
]


@pytest.fixture
def result(tmp_path: Path) -> rj.EvaluationResult:
    return rj.evaluate(ROWS, metrics=["token_f1"], store=tmp_path / "r.db", progress=False)


def test_a_bound_that_holds_returns_the_mean(result: rj.EvaluationResult) -> None:
    mean = assert_metric(result, "token_f1", at_least=0.5, at_most=0.9)

    assert mean == pytest.approx((1 + 2 / 3 + 0) / 3)


def test_a_failed_bound_says_by_how_much(result: rj.EvaluationResult) -> None:
    with pytest.raises(AssertionError) as info:
        assert_metric(result, "token_f1", at_least=0.8)

    message = str(info.value)
    assert message.startswith("token_f1 mean 0.556 < 0.8 (95% CI [")
    assert f"run {result.run_id}, stored in" in message


def test_the_ci_bound(result: rj.EvaluationResult) -> None:
    with pytest.raises(AssertionError, match=r"token_f1 ci_low 0\.000 < 0\.5"):
        assert_metric(result, "token_f1", at_least=0.5, on="ci")


def test_several_floors_and_an_unknown_metric(result: rj.EvaluationResult) -> None:
    with pytest.raises(AssertionError) as info:
        assert_gates(result, {"token_f1": 0.9, "rouge_l": 0.1})

    lines = str(info.value).splitlines()
    assert lines[0].startswith("token_f1 mean 0.556 < 0.9")
    assert lines[1] == "rouge_l: the run has no such score (its scores: token_f1)"


def test_errors_fail_the_assertion_by_default(tmp_path: Path) -> None:
    def flaky(query: str) -> str:
        if query == "q3":
            raise RuntimeError("down")
        return "red blue green"

    result = rj.evaluate(
        ROWS, target=flaky, metrics=["token_f1"], store=tmp_path / "r.db", progress=False
    )

    with pytest.raises(AssertionError, match="1 of 3 results failed"):
        assert_metric(result, "token_f1", at_least=0.1)
    assert assert_metric(result, "token_f1", at_least=0.1, max_errors=None) is not None


async def test_in_an_async_test(tmp_path: Path) -> None:
    result = await rj.aevaluate(ROWS, metrics=["token_f1"], store=tmp_path / "r.db", progress=False)

    assert_metric(result, "token_f1", at_least=0.5)
    synced = rj.evaluate(ROWS, metrics=["token_f1"], store=tmp_path / "s.db", progress=False)
    assert_metric(synced, "token_f1", at_least=0.5)

"""``assert_passed``: the share of samples that passed a metric's threshold, and a
failure that lists the failing samples' request ids."""

from __future__ import annotations

from pathlib import Path

import pytest

import ragjudge as rj
from ragjudge.pytest import assert_passed
from thresholded_run import PASSED, ROWS, thresholded_run


@pytest.fixture
def result(tmp_path: Path) -> rj.EvaluationResult:
    return thresholded_run(tmp_path / "r.db")


def test_the_python_result_says_which_samples_passed(result: rj.EvaluationResult) -> None:
    assert result.passed("token_f1") == PASSED
    [rate] = result.pass_rates
    assert (rate.metric, rate.passed, rate.failed, rate.unscored) == ("token_f1", 2, 1, 0)
    assert result.to_dict()["pass_rates"][0]["rate"] == pytest.approx(2 / 3)


def test_a_share_that_holds_returns_the_share(result: rj.EvaluationResult) -> None:
    assert assert_passed(result, "token_f1", min_share=0.6) == pytest.approx(2 / 3)


def test_a_failure_lists_the_failing_request_ids(result: rj.EvaluationResult) -> None:
    with pytest.raises(AssertionError) as info:
        assert_passed(result, "token_f1")

    message = str(info.value)
    assert message.startswith("token_f1: 2 of 3 samples passed (66.7% < 100.0%); failing: q3\n")
    assert f"run {result.run_id}, stored in" in message


def test_a_metric_without_a_threshold_fails_naming_those_with_one(
    result: rj.EvaluationResult,
) -> None:
    with pytest.raises(AssertionError, match=r"'rouge_l' has no per-sample pass .*: token_f1"):
        assert_passed(result, "rouge_l")


def test_errored_samples_count_neither_way(tmp_path: Path) -> None:
    def flaky(query: str) -> str:
        if query == "q3":
            raise RuntimeError("down")
        return "red blue green"

    result = rj.evaluate(
        ROWS,
        target=flaky,
        metrics=[{"metric": "token_f1", "threshold": 0.6}],
        store=tmp_path / "f.db",
        progress=False,
        max_error_rate=1.0,
    )

    assert result.passed("token_f1") == {"q1": True, "q2": True, "q3": None}
    assert assert_passed(result, "token_f1") == 1.0


def test_a_share_outside_zero_to_one_is_refused(result: rj.EvaluationResult) -> None:
    with pytest.raises(ValueError, match="min_share"):
        assert_passed(result, "token_f1", min_share=80)

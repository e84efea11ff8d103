"""Assertions on evaluation results for pytest (or any test runner): a test states the
quality it needs, and a failure says by how much it missed, with the interval and n.

::

    import ragjudge as rj
    from ragjudge.pytest import assert_metric

    def test_answers_stay_good():
        result = rj.evaluate("evalset.jsonl", target="my_app:answer", metrics=["rouge_l"])
        assert_metric(result, "rouge_l", at_least=0.4)               # on the mean
        assert_metric(result, "rouge_l", at_least=0.35, on="ci")     # on the CI's low end
        assert_passed(result, "rouge_l", min_share=0.9)              # per-sample thresholds

    async def test_in_async_code(ragjudge_aevaluate):
        result = await ragjudge_aevaluate("evalset.jsonl", target=my_async_app, metrics=["rouge_l"])
        assert_metric(result, "rouge_l", at_least=0.4)

``rj.evaluate`` also works inside a running event loop (it runs on a worker thread).
Installing ragjudge registers a pytest plugin (:mod:`ragjudge.pytest._plugin`) with the
fixtures ``ragjudge_evaluate`` and ``ragjudge_aevaluate``; async tests need
pytest-asyncio (``asyncio_mode = "auto"``, or ``@pytest.mark.asyncio`` on each test).
This module imports neither pytest nor the evaluation machinery, so it loads anywhere.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from ragjudge._util.score_names import current_score_name
from ragjudge.analysis._gates import Gate, GateOn, GateResult, check_gates, needs_calibrated

if TYPE_CHECKING:
    from ragjudge.analysis._results import EvaluationResult

__all__ = ["assert_gates", "assert_metric", "assert_passed"]


def assert_metric(
    result: EvaluationResult,
    metric: str,
    *,
    at_least: float | None = None,
    at_most: float | None = None,
    on: GateOn = "mean",
    max_errors: int | None = 0,
) -> float | None:
    """Assert that ``metric``'s mean (``on="mean"``) or the conservative bound of its
    95% CI (``on="ci"``: the low end for ``at_least``, the high end for ``at_most``) is
    within the bounds, and that at most ``max_errors`` of its results failed (None:
    any number). Returns the mean. The ``AssertionError`` says which bound failed,
    the value, the interval, n, the errors and where the run is stored."""
    __tracebackhide__ = True
    if at_least is None and at_most is None and max_errors is None:
        raise ValueError("give at_least, at_most or max_errors")
    metric = current_score_name(metric)  # an old name gives the current one
    bounds = ((at_least, True), (at_most, False))
    gates = [Gate(metric, bound, floor) for bound, floor in bounds if bound is not None]
    results = check_gates(result.summaries, gates, on=on, pass_rates=result.pass_rates)
    problems = [_message(r) for r in results if not r.passed]
    summary = next((s for s in result.summaries if s.metric == metric), None)
    if summary is not None and max_errors is not None and summary.errors > max_errors:
        problems.append(
            f"{metric}: {summary.errors} of {summary.errors + summary.n} results failed "
            f"(at most {max_errors} allowed); see `ragjudge show {result.run_id}`"
        )
    if problems:
        raise AssertionError(_with_run("\n".join(problems), result))
    return None if summary is None else summary.mean


def assert_gates(
    result: EvaluationResult, floors: Mapping[str, float], *, on: GateOn = "mean"
) -> None:
    """Assert several floors at once (``{"rouge_l": 0.4, "answer_accuracy": 3.5}``);
    ``NAME.passed`` is the share of samples passing ``NAME``'s per-sample threshold
    (``{"faithfulness.passed": 0.9}``) and ``NAME.calibrated`` its estimate calibrated
    to the labels people gave the run. The message lists every one that failed."""
    __tracebackhide__ = True
    gates = [Gate(m, v) for m, v in floors.items()]
    calibrated = result.calibrated() if needs_calibrated(gates) else None
    results = check_gates(
        result.summaries, gates, on=on, pass_rates=result.pass_rates, calibrated=calibrated
    )
    if failed := [_message(r) for r in results if not r.passed]:
        raise AssertionError(_with_run("\n".join(failed), result))


def assert_passed(result: EvaluationResult, metric: str, *, min_share: float = 1.0) -> float:
    """Assert that at least ``min_share`` of the scored samples passed ``metric``'s
    per-sample threshold (its ``threshold``, or yes for a yes/no score). Samples whose
    score errored or did not apply count neither way. Returns the share passed; the
    ``AssertionError`` lists the failing samples' request ids."""
    __tracebackhide__ = True
    if not 0.0 <= min_share <= 1.0:
        raise ValueError(f"min_share must lie between 0 and 1, not {min_share!r}")
    try:
        passes = result.passed(metric)
    except KeyError as exc:
        raise AssertionError(_with_run(str(exc.args[0]), result)) from None
    failing = [request_id for request_id, p in passes.items() if p is False]
    judged = sum(1 for p in passes.values() if p is not None)
    if judged == 0:
        raise AssertionError(_with_run(f"{metric}: no sample was scored", result))
    share = (judged - len(failing)) / judged
    if share < min_share:
        shown = ", ".join(failing[:_SHOWN_IDS])
        more = f" and {len(failing) - _SHOWN_IDS} more" if len(failing) > _SHOWN_IDS else ""
        raise AssertionError(
            _with_run(
                f"{metric}: {judged - len(failing)} of {judged} samples passed "
                f"({share:.1%} < {min_share:.1%}); failing: {shown}{more}",
                result,
            )
        )
    return share


_SHOWN_IDS = 20
"""The most failing request ids an assertion message lists."""


def _message(gate: GateResult) -> str:
    """The gate's reason without the command-line option it would have on the CLI."""
    head, _, rest = gate.reason.partition("): ")
    return rest or head


def _with_run(message: str, result: EvaluationResult) -> str:
    return f"{message}\n(run {result.run_id}, stored in {result.store_path})"

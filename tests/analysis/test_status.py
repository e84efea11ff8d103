"""How a run went, in one word: completed, incomplete or failed by its results, and
interrupted or running as the store says; with its errors counted by cause."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ragjudge.analysis._outcome import EXIT_ERRORS, EXIT_NO_VALUES, EXIT_OK, Verdict
from ragjudge.analysis._status import errors_by_cause, finished_status, run_states, status_of
from ragjudge.api import evaluate
from ragjudge.store import ResultCount, Store

ROWS = [
    {"request_id": f"q{i}", "request": f"question {i}", "expected_response": f"answer {i}"}
    for i in range(4)
]


def answers(failing: set[int]) -> Any:
    def target(query: str) -> str:
        number = int(query.split()[-1])
        if number in failing:
            raise RuntimeError("the index is gone")
        return f"answer {number}"

    return target


def test_the_verdict_names_the_finished_status() -> None:
    assert finished_status(Verdict(EXIT_OK, [])) == "completed"
    assert finished_status(Verdict(EXIT_ERRORS, ["m: 1 of 4"])) == "incomplete"
    assert finished_status(Verdict(EXIT_NO_VALUES, ["m: no value"])) == "failed"


def test_a_run_stored_completed_is_judged_by_its_results() -> None:
    some = [ResultCount("m", 3, 1)]
    none = [ResultCount("m", 0, 4), ResultCount("n", 4, 0)]
    assert status_of("completed", [ResultCount("m", 4, 0)], 0.0) == "completed"
    assert status_of("completed", some, 0.0) == "incomplete"
    assert status_of("completed", some, 0.25) == "completed"
    assert status_of("completed", none, 1.0) == "failed"
    assert status_of("completed", [], 0.0) == "failed"


@pytest.mark.parametrize("stored", ["running", "interrupted", "failed"])
def test_a_run_that_did_not_finish_keeps_its_stored_status(stored: Any) -> None:
    assert status_of(stored, [ResultCount("m", 4, 0)], 0.0) == stored


def test_errors_are_counted_by_cause_most_first() -> None:
    messages = {
        "target failed: boom": 1,
        "judge call failed: [connection] refused": 2,
        "judge call failed: [timeout] slow": 3,
    }
    assert errors_by_cause(messages) == {"judge unreachable": 5, "target failed": 1}


def test_runs_of_a_store_carry_their_status_and_errors(tmp_path: Path) -> None:
    store = tmp_path / "runs.db"
    settings: dict[str, Any] = {"metrics": ["token_f1"], "store": store, "progress": False}
    good = evaluate(ROWS, target=answers(set()), **settings)
    some = evaluate(ROWS, target=answers({1}), on_failure="ignore", **settings)
    every = evaluate(ROWS, target=answers({0, 1, 2, 3}), on_failure="ignore", **settings)
    assert (good.status, some.status, every.status) == ("completed", "incomplete", "failed")
    with Store(store) as opened:
        states = run_states(opened)
        assert [s.info.status for s in states] == ["completed", "incomplete", "failed"]
    assert [s.status for s in states] == ["completed", "incomplete", "failed"]
    assert [s.errors for s in states] == [{}, {"target failed": 1}, {"target failed": 4}]
    shown = states[2].to_dict()
    assert shown["status"] == "failed" and shown["errors"] == 4
    assert shown["metrics"] == ["token_f1"] and shown["run_id"] == every.run_id

"""``evaluate(..., on_failure=...)``: a run that ends incomplete or failed warns (the
default), raises :class:`~ragjudge.RunFailed` holding its result, or says nothing; its
``status`` tells either way."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import ragjudge as rj

ROWS = [
    {"request_id": f"q{i}", "request": f"question {i}", "expected_response": f"answer {i}"}
    for i in range(3)
]


def half_broken(query: str) -> str:
    if query.endswith("1"):
        raise RuntimeError("the index is gone")
    return "answer " + query.split()[-1]


def run(tmp_path: Path, **kwargs: Any) -> rj.EvaluationResult:
    return rj.evaluate(
        ROWS,
        target=half_broken,
        metrics=["token_f1"],
        store=tmp_path / "runs.db",
        progress=False,
        **kwargs,
    )


def test_an_incomplete_run_warns_by_default(tmp_path: Path) -> None:
    with pytest.warns(rj.RunFailedWarning, match=r"is incomplete: token_f1: 1 of 3 results"):
        result = run(tmp_path)
    assert result.status == "incomplete"


def test_raise_gives_the_stored_result_with_the_exception(tmp_path: Path) -> None:
    with pytest.raises(rj.RunFailed, match="incomplete") as raised:
        run(tmp_path, on_failure="raise")
    result = raised.value.result
    assert isinstance(result, rj.EvaluationResult)
    assert result.status == "incomplete" and result.to_dict()["status"] == "incomplete"


def test_ignore_says_nothing_but_the_status_tells(tmp_path: Path, recwarn: Any) -> None:
    result = run(tmp_path, on_failure="ignore")
    assert result.status == "incomplete"
    assert not [w for w in recwarn if issubclass(w.category, rj.RunFailedWarning)]


def test_errors_within_the_allowed_rate_complete_the_run_silently(
    tmp_path: Path, recwarn: Any
) -> None:
    result = run(tmp_path, max_error_rate=0.5, on_failure="raise")
    assert result.status == "completed"
    assert not [w for w in recwarn if issubclass(w.category, rj.RunFailedWarning)]


def test_an_unknown_choice_is_a_config_error_before_anything_runs(tmp_path: Path) -> None:
    with pytest.raises(rj.ConfigError, match="on_failure: 'explode'"):
        run(tmp_path, on_failure="explode")
    assert not (tmp_path / "runs.db").exists()


def answers_all(query: str) -> str:
    return "answer " + query.split()[-1]


def test_a_failed_gate_of_a_complete_run_warns_and_is_listed(tmp_path: Path) -> None:
    with pytest.warns(rj.RunFailedWarning, match=r"gate failed \(--fail-over token_f1=0.5\)"):
        result = rj.evaluate(
            ROWS,
            target=answers_all,
            metrics=["token_f1"],
            store=tmp_path / "runs.db",
            progress=False,
            fail_under={"token_f1": 0.5},
            fail_over={"token_f1": 0.5},
        )
    assert result.status == "completed"
    assert [(g.gate.floor, g.passed) for g in result.gates] == [(True, True), (False, False)]


def test_a_failed_gate_raises_when_asked(tmp_path: Path) -> None:
    with pytest.raises(rj.RunFailed, match=r"token_f1 ci_high 1\.000 > 0\.5") as raised:
        rj.evaluate(
            ROWS,
            target=half_broken,
            metrics=["token_f1"],
            store=tmp_path / "runs.db",
            progress=False,
            max_error_rate=0.5,
            fail_over={"token_f1": 0.5},
            gate="ci",
            on_failure="raise",
        )
    assert raised.value.result.status == "completed"

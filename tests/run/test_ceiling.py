"""``max_cost``: a run estimated above its ceiling does not start; a run whose recorded
cost reaches it stops, is kept as interrupted with the cause, and resumes."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import ragjudge as rj
from ragjudge.config import ConfigError
from ragjudge.errors import SpendingLimitReached
from ragjudge.models.scripted import ReplyScript
from ragjudge.run._ceiling import next_call_would_pass
from ragjudge.store._events import NOTE
from ragjudge.store._store import Store
from ragjudge.testing.server import OpenAITestServer
from served import running

ROWS = [
    {"request_id": f"q{i}", "request": f"Question {i}?", "expected_response": f"Answer {i}."}
    for i in range(8)
]
DOLLARS_PER_MILLION_INPUT = 1000.0


def long_answer(query: str) -> str:
    """Answers far longer than the references the estimate stands in with."""
    return f"About {query} " + "this answer goes on at length. " * 60


@pytest.fixture
def server() -> Iterator[OpenAITestServer]:
    yield from running(OpenAITestServer(replies=ReplyScript(default="Feedback: ok. [RESULT] 5")))


def _evaluate(tmp_path: Path, server: OpenAITestServer, **extra: Any) -> rj.EvaluationResult:
    return rj.evaluate(
        ROWS,
        target=long_answer,
        metrics=[{"metric": "answer_accuracy", "contexts": "none"}],
        judge={
            "model": "openai/test-model",
            "base_url": server.base_url,
            # output is free: the estimate's assumed reply length does not count
            "prices": {"test-model": {"input": DOLLARS_PER_MILLION_INPUT, "output": 0.0}},
            "preflight": False,
            "timeout": 30,
        },
        cache=False,
        concurrency=1,
        store=tmp_path / "runs.db",
        **{"progress": False, **extra},
    )


def _spent(tmp_path: Path, run_id: str) -> float:
    with Store(tmp_path / "runs.db") as store:
        return sum(row["cost"] or 0.0 for row in store.judge_usage(run_id))


def test_a_run_estimated_above_the_ceiling_does_not_start(
    tmp_path: Path, server: OpenAITestServer
) -> None:
    with pytest.raises(ConfigError, match=r"max_cost: the run is estimated at \$.*8 judge calls"):
        _evaluate(tmp_path, server, max_cost=0.01)
    assert server.stats.requests == 0
    assert not (tmp_path / "runs.db").exists()


def test_a_run_stops_at_the_ceiling_keeps_its_results_and_resumes(
    tmp_path: Path, server: OpenAITestServer
) -> None:
    full = _evaluate(tmp_path / "full", server)
    full_cost = _spent(tmp_path / "full", full.run_id)
    assert "judge prices: the config" in full.notes
    ceiling = full_cost * 0.7  # the estimate (reference-sized answers) is about half

    with pytest.raises(SpendingLimitReached, match="stopped at the cost ceiling") as stopped:
        _evaluate(tmp_path, server, max_cost=ceiling)

    with Store(tmp_path / "runs.db") as store:
        (run,) = store.runs()
        notes = [event["text"] for event in store.run_events(run.run_id, NOTE)]
        scored = store.run(run.run_id)
    assert run.status == "interrupted"
    assert any("stopped at the cost ceiling" in note for note in notes)
    assert str(stopped.value) in notes
    spent = _spent(tmp_path, run.run_id)
    assert spent <= ceiling < full_cost  # one call at a time: none in flight passes it
    assert scored.n_samples == len(ROWS)

    resumed = _evaluate(tmp_path, server, max_cost=full_cost * 2, resume=run.run_id)
    assert resumed.status == "completed" and resumed.summaries[0].n == len(ROWS)


@pytest.mark.parametrize(
    ("spent", "calls", "ceiling", "passes"),
    [(0.0, 0, 1.0, False), (0.5, 1, 1.0, False), (0.6, 1, 1.0, True), (1.2, 0, 1.0, True)],
)
def test_the_next_call_is_priced_at_the_mean_so_far(
    spent: float, calls: int, ceiling: float, passes: bool
) -> None:
    assert next_call_would_pass(spent, calls, ceiling) is passes


def test_a_run_with_a_ceiling_and_progress_plans_its_calls_once(
    tmp_path: Path, server: OpenAITestServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    from ragjudge.run import _estimates

    planned: list[int] = []
    plan = _estimates.plan_evaluation

    async def counted(*args: Any, **kwargs: Any) -> Any:
        made = await plan(*args, **kwargs)
        planned.append(made.total_calls)
        return made

    monkeypatch.setattr(_estimates, "plan_evaluation", counted)
    result = _evaluate(tmp_path, server, max_cost=100.0, progress=True)

    assert result.status == "completed"
    assert planned == [8]  # the ceiling's plan also gives the progress its count

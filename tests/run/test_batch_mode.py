"""``judge: {mode: batch}``: a whole run whose judge calls go through the test server's
Batch API scores as the direct run does, its calls are recorded at the batch price, its
batches are kept with the run, and settings that cannot work are refused before any
work."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import ragjudge as rj
from ragjudge.config import ConfigError, EvalConfig
from ragjudge.models.scripted import ReplyScript
from ragjudge.run._judging import prices_of
from ragjudge.store._store import Store
from ragjudge.testing.server import OpenAITestServer
from served import running

ROWS = [
    {"request_id": f"q{i}", "request": f"Question {i}?", "expected_response": f"Answer {i}."}
    for i in range(6)
]
PRICE = {"test-model": {"input": 100.0, "output": 400.0}}


@pytest.fixture(scope="module")
def server() -> Iterator[OpenAITestServer]:
    script = ReplyScript(rules=[(r"Question [135]", "Weak. [RESULT] 2")], default="Ok. [RESULT] 5")
    yield from running(OpenAITestServer(replies=script))


def evaluate(
    tmp_path: Path, server: OpenAITestServer, max_cost: float | None = None, **judge: Any
) -> rj.EvaluationResult:
    return rj.evaluate(
        ROWS,
        target=lambda query: f"About {query}",
        metrics=[{"metric": "answer_accuracy", "contexts": "none"}],
        judge={
            "model": "openai/test-model",
            "base_url": server.base_url,
            "prices": PRICE,
            "preflight": False,
            "timeout": 30,
            **judge,
        },
        cache=False,
        store=tmp_path / "runs.db",
        progress=False,
        max_cost=max_cost,
    )


def scores_and_costs(tmp_path: Path, run_id: str) -> tuple[dict[str, float | None], list[float]]:
    with Store(tmp_path / "runs.db") as store:
        scores = {request_id: score.value for request_id, _, score in store.scores(run_id)}
        costs = sorted(float(cost) for cost in store.judge_calls(run_id)["cost"])
    return scores, costs


def test_a_batched_run_scores_as_a_direct_one_at_the_batch_price(
    tmp_path: Path, server: OpenAITestServer
) -> None:
    direct = evaluate(tmp_path / "direct", server)
    created = server.batches.created
    batched = evaluate(tmp_path / "batch", server, mode="batch", batch_wait=0.5, batch_poll=0.05)

    direct_scores, direct_costs = scores_and_costs(tmp_path / "direct", direct.run_id)
    batch_scores, batch_costs = scores_and_costs(tmp_path / "batch", batched.run_id)
    assert batch_scores == direct_scores
    assert set(batch_scores.values()) == {2.0, 5.0}
    assert len(batch_costs) == len(ROWS) and all(c > 0 for c in batch_costs)
    assert batch_costs == pytest.approx([c / 2 for c in direct_costs])
    assert server.batches.created - created >= 1
    with Store(tmp_path / "batch" / "runs.db") as store:
        kept = store.run_batches(batched.run_id)
    assert sum(kept.values()) == len(ROWS)
    assert any("batch price (50%)" in note for note in batched.notes)


def test_the_batch_price_share_is_the_configs() -> None:
    judge = EvalConfig.model_validate(
        {
            "metrics": ["rouge_l"],
            "judge": {
                "model": "openai/m",
                "prices": {"m": [1.0, 2.0]},
                "mode": "batch",
                "batch_price_share": 0.25,
            },
        }
    ).judge
    prices = prices_of(judge)
    price = prices.price("m")
    assert price is not None and (price.input, price.output) == (0.25, 0.5)
    assert prices.source("m") == "the config, at the batch price (25%)"


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        (
            {"judge": {"model": "scripted", "mode": "batch"}},
            "needs an 'openai/<model>' or 'anthropic/<model>' judge",
        ),
        (
            {"judge": {"model": "openai/m", "mode": "batch"}, "executor": "ray"},
            "runs with 'executor: local'",
        ),
    ],
)
def test_batch_mode_where_it_cannot_work_is_refused(settings: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        EvalConfig.model_validate({"metrics": ["rouge_l"], **settings})


def estimated_dollars(tmp_path: Path, server: OpenAITestServer, **judge: Any) -> float:
    """The estimate a run too dear for its ``max_cost`` is refused with."""
    with pytest.raises(ConfigError, match=r"estimated at \$") as refused:
        evaluate(tmp_path, server, **judge, max_cost=1e-9)
    found = re.search(r"estimated at \$([0-9.]+)", str(refused.value))
    assert found is not None
    return float(found.group(1))


def test_the_cost_ceiling_holds_the_estimate_at_the_batch_price(
    tmp_path: Path, server: OpenAITestServer
) -> None:
    requests = server.stats.requests
    created = server.batches.created
    direct = estimated_dollars(tmp_path / "direct", server)
    batched = estimated_dollars(tmp_path / "batch", server, mode="batch")
    assert batched == pytest.approx(direct / 2, rel=0.02)
    assert (server.stats.requests, server.batches.created) == (requests, created)


def test_the_preflight_question_of_a_batched_judge_is_asked_directly(
    tmp_path: Path, server: OpenAITestServer
) -> None:
    requests, created = server.stats.requests, server.batches.created
    run = evaluate(tmp_path, server, mode="batch", batch_wait=0.5, batch_poll=0.05, preflight=True)
    assert run.status == "completed"
    assert server.stats.requests - requests == 1  # one chat request: the question
    assert server.batches.created - created >= 1  # the judge calls: in batches

"""``max_cost`` in batch mode (``run/_ceiling.py``, :class:`BatchSpending`): each batch is
held against the ceiling at the batch price before it is created, a batch that would
pass it is not sent, and the run stops as at any ceiling."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import ragjudge as rj
from ragjudge.errors import SpendingLimitReached
from ragjudge.models import PriceTable
from ragjudge.models.scripted import ReplyScript
from ragjudge.run._ceiling import REPLY_TOKENS_UNSET, BatchSpending
from ragjudge.store._store import Store
from ragjudge.testing.server import OpenAITestServer
from served import running

ROWS = [
    {"request_id": f"q{i}", "request": f"Question {i}?", "expected_response": f"Answer {i}."}
    for i in range(8)
]


def long_answer(query: str) -> str:
    """Answers far longer than the references the start-up estimate stands in with."""
    return f"About {query} " + "this answer goes on at length. " * 60


@pytest.fixture
def server() -> Iterator[OpenAITestServer]:
    yield from running(OpenAITestServer(replies=ReplyScript(default="Feedback: ok. [RESULT] 5")))


def batched_run(tmp_path: Path, server: OpenAITestServer, **extra: Any) -> rj.EvaluationResult:
    return rj.evaluate(
        ROWS,
        target=long_answer,
        metrics=[{"metric": "answer_accuracy", "contexts": "none"}],
        judge={
            "model": "openai/test-model",
            "base_url": server.base_url,
            "prices": {"test-model": {"input": 1000.0, "output": 0.0}},
            "preflight": False,
            "timeout": 30,
            "mode": "batch",
            "batch_size": 4,
            "batch_wait": 2.0,
            "batch_poll": 0.05,
        },
        cache=False,
        concurrency=8,
        store=tmp_path / "runs.db",
        progress=False,
        **extra,
    )


def spent_and_calls(tmp_path: Path) -> tuple[float, int]:
    """Dollars the stored run spent and its calls answered with a reply."""
    with Store(tmp_path / "runs.db") as store:
        (run,) = store.runs()
        calls = store.judge_calls(run.run_id)
    return float(calls["cost"].fillna(0.0).sum()), int(calls["text"].notna().sum())


def test_a_batch_that_would_pass_the_ceiling_is_not_sent(
    tmp_path: Path, server: OpenAITestServer
) -> None:
    batched_run(tmp_path / "full", server)
    full_cost, full_calls = spent_and_calls(tmp_path / "full")
    full_batches = server.batches.created
    assert full_calls == len(ROWS) and full_batches == 2  # all calls gather in batch_wait

    ceiling = full_cost * 0.6
    with pytest.raises(SpendingLimitReached, match="stopped at the cost ceiling"):
        batched_run(tmp_path / "capped", server, max_cost=ceiling)
    # the second batch of four would have passed the ceiling: only the first was sent
    assert server.batches.created - full_batches == 1

    with Store(tmp_path / "capped" / "runs.db") as store:
        (run,) = store.runs()
    resumed = batched_run(tmp_path / "capped", server, max_cost=full_cost * 2, resume=run.run_id)
    assert resumed.status == "completed"
    spent, calls = spent_and_calls(tmp_path / "capped")
    assert server.batches.created - full_batches == 2  # the first batch was collected
    assert calls == server.batches.lines_answered - full_calls == len(ROWS)  # paid once
    assert spent == pytest.approx(full_cost)


def test_a_request_is_estimated_at_the_batch_price_with_its_reply_at_max_tokens() -> None:
    prices = PriceTable({"m": [2.0, 4.0]}, share=0.5)
    spending = BatchSpending(Store.__new__(Store), "r", prices)
    request = {"model": "m", "messages": [{"role": "user", "content": "x" * 400}]}
    unset = spending.request_cost(request)
    capped = spending.request_cost({**request, "max_tokens": 10})
    assert capped < unset
    assert unset - capped == pytest.approx((REPLY_TOKENS_UNSET - 10) * 2.0 / 1e6)
    assert spending.request_cost({**request, "model": "unpriced"}) == 0.0

"""Prices, usage accounting and the offline token estimate."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from ragjudge.models._pricing import (
    CallOutcome,
    ModelPrice,
    PriceTable,
    UsageTotals,
    UsageTracker,
)
from ragjudge.models._tokens import (
    MESSAGE_OVERHEAD,
    REPLY_PRIMING,
    estimate_messages_tokens,
    estimate_tokens,
)
from ragjudge.schema import Usage

# -- prices ------------------------------------------------------------------------


def test_price_table_accepts_config_forms() -> None:
    table = PriceTable.from_dict(
        {
            "gpt-4o-mini": {"input": 0.15, "output": 0.60},
            "gpt-4o": (2.5, 10.0),
            "local": ModelPrice(0.0, 0.0),
        }
    )
    assert len(table) == 3 and set(table) == {"gpt-4o-mini", "gpt-4o", "local"}
    assert table["gpt-4o"] == ModelPrice(input=2.5, output=10.0)
    usage = Usage(input_tokens=1_000_000, output_tokens=500_000)
    assert table.cost("gpt-4o-mini", usage) == pytest.approx(0.15 + 0.30)
    assert table.cost("local", usage) == 0.0


def test_price_lookup_by_prefix_and_dated_variant() -> None:
    table = PriceTable({"gpt-4o": (2.5, 10.0), "gpt-4o-mini": (0.15, 0.6)})
    assert table.price("openai/gpt-4o-mini") == ModelPrice(0.15, 0.6)
    assert table.price("gpt-4o-mini-2024-07-18") == ModelPrice(0.15, 0.6)
    assert table.price("gpt-4o-2024-08-06") == ModelPrice(2.5, 10.0)
    assert table.price("litellm/openai/gpt-4o") == ModelPrice(2.5, 10.0)
    assert table.price("claude-3-haiku") is None
    assert table.cost("claude-3-haiku", Usage(input_tokens=10)) is None


@pytest.mark.parametrize("bad", [{"input": 1.0}, (1.0,), [1.0, 2.0, 3.0]])
def test_price_table_rejects_bad_prices(bad: object) -> None:
    with pytest.raises(ValueError, match="price of 'm'"):
        PriceTable({"m": bad})  # type: ignore[dict-item]


# -- usage tracker -----------------------------------------------------------------


def test_tracker_sums_per_purpose_and_total() -> None:
    tracker = UsageTracker()
    tracker.add_call(
        "faithfulness",
        CallOutcome(
            usage=Usage(input_tokens=100, output_tokens=20),
            cost=0.01,
            attempts=3,
            error_kinds=("rate_limit", "server"),
            latency=1.5,
        ),
    )
    tracker.add_call(
        "faithfulness",
        CallOutcome(usage=Usage(input_tokens=100, output_tokens=20), cached=True),
    )
    tracker.add_call(None, CallOutcome(failed=True, attempts=5, error_kinds=("timeout",) * 5))
    tracker.add_reask("faithfulness")
    tracker.add_parse_failure("faithfulness")
    per = tracker.by_purpose()
    assert set(per) == {"faithfulness", "default"}
    faith = per["faithfulness"]
    assert (faith.calls, faith.cached_calls, faith.attempts, faith.retries) == (2, 1, 3, 2)
    assert (faith.input_tokens, faith.cached_input_tokens) == (100, 100)
    assert faith.rate_limited == 1 and faith.errors_by_kind == {"rate_limit": 1, "server": 1}
    assert (faith.reasks, faith.parse_failures) == (1, 1)
    assert faith.cost == pytest.approx(0.01)
    total = tracker.total()
    assert (total.calls, total.failed_calls, total.attempts, total.retries) == (3, 1, 8, 6)
    assert total.errors_by_kind == {"rate_limit": 1, "server": 1, "timeout": 5}
    assert total.total_tokens == 120
    snapshot = tracker.snapshot()
    assert snapshot["total"]["cost"] == pytest.approx(0.01)
    assert snapshot["by_purpose"]["default"]["failed_calls"] == 1
    tracker.reset()
    assert tracker.total().calls == 0


def test_cost_is_none_when_nothing_was_priced() -> None:
    tracker = UsageTracker()
    tracker.add_call("x", CallOutcome(usage=Usage(input_tokens=5), cost=None, attempts=1))
    assert tracker.total().cost is None
    tracker.add_call("x", CallOutcome(usage=Usage(input_tokens=5), cost=0.5, attempts=1))
    total = tracker.total()
    assert total.cost == pytest.approx(0.5) and total.unpriced_calls == 1


def test_tracker_is_thread_safe() -> None:
    tracker = UsageTracker()

    def add() -> None:
        for _ in range(2000):
            tracker.add_call("p", CallOutcome(usage=Usage(input_tokens=1), attempts=1))

    threads = [threading.Thread(target=add) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert tracker.total().calls == 8000 and tracker.total().input_tokens == 8000


# -- token estimate -------------------------------------------------------------------


def test_latin_text_is_about_four_characters_per_token() -> None:
    assert estimate_tokens("") == 0
    assert estimate_tokens("abcd") == 1
    assert estimate_tokens("abcde") == 2
    sentence = "The quick brown fox jumps over the lazy dog. " * 10
    assert estimate_tokens(sentence) == pytest.approx(len(sentence) / 4, abs=1)


def test_cjk_characters_count_one_token_each() -> None:
    assert estimate_tokens("東京都の人口は約1400万人です。") == 13 + 1  # 13 CJK + "1400"
    assert estimate_tokens("カタカナとひらがな") == 9
    assert estimate_tokens("한국어") == 3
    assert estimate_tokens("ＡＢＣ") == 3  # full-width forms


def test_message_estimate_adds_overheads() -> None:
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": "abcd" * 5},
        {"role": "user", "content": [{"type": "text", "text": "質問"}, {"type": "image_url"}]},
        {"role": "assistant", "content": None},
    ]
    expected = REPLY_PRIMING + 3 * MESSAGE_OVERHEAD + 5 + 2
    assert estimate_messages_tokens(messages) == expected


def test_counters_taken_in_one_process_add_up_in_another() -> None:
    worker = UsageTracker()
    worker.add_call("judge", CallOutcome(attempts=3, error_kinds=("rate_limit", "server")))
    worker.add_call(None, CallOutcome(attempts=1))
    taken = worker.take()
    assert worker.total() == UsageTotals()  # forgotten once taken
    driver = UsageTracker()
    driver.add_call("judge", CallOutcome(attempts=2, error_kinds=("server",)))
    driver.merge(taken)
    total = driver.total()
    assert (total.calls, total.attempts, total.retries, total.rate_limited) == (3, 6, 3, 1)
    assert total.errors_by_kind == {"rate_limit": 1, "server": 2}
    assert driver.by_purpose()["judge"].retries == 3

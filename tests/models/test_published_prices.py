"""Prices of well-known models from the published list, and what wins over them."""

from __future__ import annotations

import pytest

from ragjudge.models._pricing import ModelPrice, PriceTable
from ragjudge.models._published_prices import price_list_label, published_rates
from ragjudge.schema import Usage


def test_a_well_known_model_has_its_published_price_under_every_spelling() -> None:
    rates = published_rates("gpt-4o-mini")
    assert rates is not None and rates[0] > 0 and rates[1] > rates[0]
    assert published_rates("openai/gpt-4o-mini") == rates
    assert published_rates("gpt-4o-mini-2024-07-18") == rates
    assert published_rates("litellm/anthropic/claude-sonnet-4-5") is not None


def test_an_unknown_model_has_no_published_price() -> None:
    assert published_rates("openai/llama3.1:8b") is None
    assert published_rates("scripted") is None


def test_the_table_takes_published_prices_only_when_asked() -> None:
    usage = Usage(input_tokens=1_000_000, output_tokens=0)
    rates = published_rates("gpt-4o")
    assert rates is not None
    assert PriceTable().cost("gpt-4o", usage) is None
    published = PriceTable(published=True)
    assert published.cost("openai/gpt-4o", usage) == pytest.approx(rates[0])
    assert published.source("gpt-4o") == price_list_label()
    assert "genai-prices" in price_list_label()


def test_config_prices_win_over_published_ones() -> None:
    table = PriceTable({"gpt-4o": (1.0, 2.0)}, published=True)
    assert table.price("openai/gpt-4o") == ModelPrice(1.0, 2.0)
    assert table.source("gpt-4o") == PriceTable.CONFIG_SOURCE


def test_a_model_on_a_local_server_is_not_priced_from_the_list() -> None:
    table = PriceTable(published=True, server="http://localhost:11434/v1")
    assert table.price("gpt-4o") is None and table.source("gpt-4o") is None
    reason = table.missing_reason("gpt-4o")
    assert "http://localhost:11434/v1" in reason and "judge.prices" in reason
    assert PriceTable(published=True, server="https://api.openai.com/v1").price("gpt-4o")


def test_the_reason_for_a_missing_price_names_the_model_and_the_way_to_give_one() -> None:
    reason = PriceTable(published=True).missing_reason("my-model")
    assert "my-model" in reason and "does not know it" in reason
    assert "prices: {my-model: {input:" in reason
    assert "prices: {llama3.1: {input:" in PriceTable().missing_reason("openai/llama3.1")

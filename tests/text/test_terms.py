"""The key terms of a text and whether a text mentions a term."""

from __future__ import annotations

from ragjudge.text._terms import key_terms, mentions


def test_english_terms_are_names_numbers_and_marked_words() -> None:
    text = "The Eiffel Tower is in Paris. It opened in 1889; GPT-4 and iPhone came later."
    assert key_terms(text) == ["Eiffel Tower", "Paris", "1889", "GPT-4", "iPhone"]


def test_japanese_terms_are_runs_of_nouns() -> None:
    text = "クリストファー・ノーランが東京大学で2023年に講演した。それはこと。SQLのUNION ALL"
    assert key_terms(text) == [
        "クリストファー・ノーラン",
        "東京大学",
        "2023年",
        "講演",
        "SQL",
        "UNION ALL",
    ]


def test_terms_are_listed_once_compared_folded() -> None:
    assert key_terms("Paris and PARIS and Ｐａｒｉｓ") == ["Paris"]


def test_mentions_whole_words_and_japanese_without_spaces() -> None:
    assert mentions("a CATEGORY of its own", "category")
    assert not mentions("a category of its own", "cat")
    assert mentions("SQLのunion  allは", "UNION ALL")
    assert mentions("２０２３ 年の映画", "2023年")
    assert not mentions("anything", "")

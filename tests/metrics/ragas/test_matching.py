"""Extracted sentences matched to context sentences: equal once normalised, else similar
enough in words; a sentence of the judge's own matches nothing."""

from __future__ import annotations

from collections import Counter

import pytest

from ragjudge.metrics.ragas._matching import ContextSentences, sentence_key, word_similarity

CONTEXT = ContextSentences(
    [
        "UNION removes duplicate rows.",
        "It sorts the result.",
        "ＵＮＩＯＮ ＡＬＬは重複行を残します。",
    ]
)


def test_keys_ignore_case_width_whitespace_and_punctuation() -> None:
    assert sentence_key("UNION  removes, duplicate rows!") == sentence_key(
        "union removes duplicate rows."
    )
    assert sentence_key("ＵＮＩＯＮ ＡＬＬは重複行を残します。") == sentence_key(
        "union allは重複行を残します"
    )


def test_word_similarity_is_the_dice_coefficient() -> None:
    first, second = Counter(["a", "b", "c", "d"]), Counter(["a", "b", "x"])
    assert word_similarity(first, second) == pytest.approx(2 * 2 / 7)
    assert word_similarity(Counter(), Counter()) == 0.0


@pytest.mark.parametrize(
    ("sentence", "index"),
    [
        ("union removes duplicate rows", 0),  # exact once normalised
        ("The UNION operator removes duplicate rows.", 0),  # a small paraphrase
        ("UNION ALL は重複行を残します", 2),  # half width, spaces, no final 。
    ],
)
def test_a_close_sentence_matches_its_context_sentence(sentence: str, index: int) -> None:
    assert CONTEXT.match(sentence).index == index


def test_a_sentence_of_the_judges_own_matches_nothing() -> None:
    found = CONTEXT.match("UNION was invented in 1970.")
    assert found.index is None and found.similarity < 0.7


def test_a_threshold_of_one_takes_only_equal_sentences() -> None:
    assert CONTEXT.match("The UNION operator removes duplicate rows.", 1.0).index is None
    assert CONTEXT.match("UNION removes duplicate rows", 1.0).index == 0

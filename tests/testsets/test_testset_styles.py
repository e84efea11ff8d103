"""Typing mistakes of the misspelt question style."""

from __future__ import annotations

import re

from ragjudge.testsets._styles import with_typos

QUESTION = (
    "Which company manufactured the original engines of the first commercial jet "
    "airliner, and when did regular passenger service begin across the Atlantic?"
)


def _words(text: str) -> list[str]:
    return re.findall(r"\S+", text)


def test_the_same_seed_gives_the_same_mistakes() -> None:
    assert with_typos(QUESTION, "sample-3") == with_typos(QUESTION, "sample-3")


def test_different_seeds_give_different_mistakes() -> None:
    results = {with_typos(QUESTION, f"seed-{n}") for n in range(8)}
    assert len(results) > 1


def test_about_one_word_in_five_is_changed_by_one_letter() -> None:
    typed = with_typos(QUESTION, "s")
    before, after = _words(QUESTION), _words(typed)
    assert len(before) == len(after)
    changed = [(b, a) for b, a in zip(before, after, strict=True) if b != a]
    eligible = len(re.findall(r"\b[A-Za-z]{4,}\b", QUESTION))
    assert len(changed) == round(eligible / 5)
    for original, typo in changed:
        assert abs(len(original) - len(typo)) <= 1
        assert typo[0] == original[0]


def test_a_short_question_still_gets_one_mistake() -> None:
    assert with_typos("What is photosynthesis?", "x") != "What is photosynthesis?"


def test_numbers_and_words_with_digits_stay_as_written() -> None:
    text = "Release 2024 of COVID19 tools costs 15000 yen in 3.14 units abcd9"
    typed = with_typos(text, "seed")
    for token in ("2024", "COVID19", "15000", "3.14", "abcd9"):
        assert token in typed
    assert typed != text


def test_japanese_text_is_left_alone() -> None:
    text = "東京タワーの高さは何メートルですか。完成したのはいつですか。"
    assert with_typos(text, "seed") == text


def test_only_the_latin_words_of_mixed_text_change() -> None:
    text = "東京タワー について: what material was used for painting the tower?"
    typed = with_typos(text, "seed")
    assert typed.startswith("東京タワー について: ")
    assert typed != text


def test_text_without_a_word_of_four_letters_comes_back_unchanged() -> None:
    for text in ("", "Hi 42", "a b c", "why 2 go?"):
        assert with_typos(text, "seed") == text

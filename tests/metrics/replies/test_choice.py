"""Choice replies of model-graded classification."""

from __future__ import annotations

import pytest

from ragjudge.metrics.replies import ParseError, scan_choice

# ---------------------------------------------------------------------------
# scan_choice

FACT = "ABCDE"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("The submission adds details.\nANSWER: B", "B"),
        ("Reasoning about option A and C.\nSo the final answer is D.\n\n", "D"),
        ("Option A looks wrong; the answer is C", "C"),
        ("Let me think.\nThe submission contains everything the expert said.\n\nC", "C"),
        ("提出された回答は専門家の回答を含んでいる。\nしたがって、答えはBです。", "B"),
        ("推論……\n最終判定：「Ｅ」", "E"),
        ("Reasoning ends here.\nA\nAnswer given above.", "A"),
    ],
)
def test_cot_classify_takes_the_choice_at_the_end(text: str, expected: str) -> None:
    assert scan_choice(text, FACT, "cot_classify") == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Y\nThe answer is relevant, so not N.", "Y"),
        ("N. 回答は質問に答えていない。Y ではない。", "N"),
        ("\n\n**Y** because it is concise.", "Y"),
    ],
)
def test_classify_cot_takes_the_choice_at_the_start(text: str, expected: str) -> None:
    assert scan_choice(text, ["Y", "N"], "classify_cot") == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [("A", "A"), ("  (C).\n", "C"), ("**E**", "E"), ("Ｄ。", "D")],
)
def test_classify_expects_only_the_choice(text: str, expected: str) -> None:
    assert scan_choice(text, FACT, "classify") == expected


def test_choices_match_only_as_whole_tokens() -> None:
    with pytest.raises(ParseError):
        scan_choice("ANSWER", FACT, "cot_classify")
    with pytest.raises(ParseError):
        scan_choice("BECAUSE IT IS CORRECT", FACT, "classify_cot")
    assert scan_choice("ANSWER: E", FACT, "cot_classify") == "E"


def test_word_choices_are_case_insensitive_only_at_the_line_edge() -> None:
    choices = ["Yes", "No", "Unsure"]

    assert scan_choice("The answer follows.\nanswer: yes", choices) == "Yes"
    assert scan_choice("yes, it is supported", choices, "classify_cot") == "Yes"
    assert scan_choice(" unsure. ", choices, "classify") == "Unsure"
    with pytest.raises(ParseError):
        scan_choice("There is no doubt about it", choices)


def test_single_letter_choices_are_case_sensitive() -> None:
    with pytest.raises(ParseError):
        scan_choice("this is a", FACT, "cot_classify")


def test_longest_overlapping_choice_wins_and_original_spelling_is_returned() -> None:
    choices = ["Yes", "Yes, partially"]

    assert scan_choice("Verdict: Yes, partially", choices) == "Yes, partially"
    assert scan_choice("判定：ｙｅｓ", ["Yes", "No"]) == "Yes"


def test_japanese_choices() -> None:
    choices = ["はい", "いいえ"]

    assert scan_choice("文脈に根拠があるので、判定は「はい」です。", choices) == "はい"
    assert scan_choice("いいえ。根拠がありません。", choices, "classify_cot") == "いいえ"
    assert scan_choice("いいえ", choices, "classify") == "いいえ"


@pytest.mark.parametrize("eval_type", ["cot_classify", "classify_cot", "classify"])
def test_no_choice_is_a_parse_error(eval_type: str) -> None:
    with pytest.raises(ParseError, match="none of the choices"):
        scan_choice("I cannot decide.", FACT, eval_type)


def test_classify_rejects_extra_words() -> None:
    with pytest.raises(ParseError):
        scan_choice("The answer is A", FACT, "classify")


def test_bad_arguments_are_value_errors_not_parse_errors() -> None:
    with pytest.raises(ValueError, match="eval_type"):
        scan_choice("A", FACT, "classify_twice")
    with pytest.raises(ValueError, match="choices"):
        scan_choice("A", [])

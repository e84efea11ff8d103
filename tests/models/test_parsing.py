"""Judge-output parsers: [RESULT] scores, JSON objects and classification choices."""

from __future__ import annotations

import pytest

from ragjudge.models.parsing import (
    ParseError,
    parse_json_object,
    parse_result_score,
    scan_choice,
)

# ---------------------------------------------------------------------------
# parse_result_score


def test_result_with_prose_returns_score_and_feedback() -> None:
    text = "Feedback: The response covers 3 of the 4 key points and cites 2 sources. [RESULT] 4"

    score, feedback = parse_result_score(text)

    assert score == 4
    assert feedback == "Feedback: The response covers 3 of the 4 key points and cites 2 sources."


def test_last_marker_wins() -> None:
    text = "Output format: '... [RESULT] 1-5'.\nThe answer is thin.\n[RESULT] 3\nOn reflection: [RESULT] 2"

    score, feedback = parse_result_score(text)

    assert score == 2
    assert feedback.endswith("On reflection:")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("ok [RESULT]: 4", 4),
        ("ok [RESULT]4", 4),
        ("ok [Result] 5.", 5),
        ("ok **[RESULT]** **3**", 3),
        ("ok [RESULT] 4/5", 4),
        ("ok [RESULT] 0", 0),
        ("ok ［RESULT］ ４", 4),
        ("根拠が十分です。[RESULT] 5\n", 5),
        ("ok [RESULT] 2 (partially correct)", 2),
    ],
)
def test_result_tolerated_forms(text: str, expected: int) -> None:
    assert parse_result_score(text)[0] == expected


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("The answer is good. Score: 4", "no \\[RESULT\\] marker"),
        ("good [RESULT] four", "not an integer"),
        ("good [RESULT] 4.5", "not an integer"),
        ("good [RESULT] 7", "outside"),
        ("good [RESULT] -1", "outside"),
        ("good [RESULT] 4/10", "out of 10"),
        ("good [RESULT]", "not an integer"),
        ("[RESULT] 4 but the format says [RESULT] N", "not an integer"),
    ],
)
def test_result_rejects_what_is_not_one_allowed_integer(text: str, message: str) -> None:
    with pytest.raises(ParseError, match=message):
        parse_result_score(text)


def test_result_allowed_range_is_configurable() -> None:
    assert parse_result_score("[RESULT] 1", allowed=range(1, 6)) == (1, "")
    assert parse_result_score("[RESULT] 10/10", allowed=range(0, 11))[0] == 10
    with pytest.raises(ParseError):
        parse_result_score("[RESULT] 0", allowed=range(1, 6))


# ---------------------------------------------------------------------------
# parse_json_object


@pytest.mark.parametrize(
    "text",
    [
        '{"verdict": "yes", "reason": "stated"}',
        '```json\n{"verdict": "yes", "reason": "stated"}\n```',
        'Here is my answer:\n```\n{"verdict": "yes", "reason": "stated"}\n```\nHope it helps.',
        'Sure! {"verdict": "yes", "reason": "stated"} Let me know.',
        '{"verdict": "yes", "reason": "stated",}',
        '\ufeff  {"verdict": "yes",\n "reason": "stated",\n}\n',
    ],
)
def test_json_tolerated_forms(text: str) -> None:
    assert parse_json_object(text) == {"verdict": "yes", "reason": "stated"}


def test_json_keeps_braces_and_commas_inside_strings() -> None:
    text = 'Result: {"statements": [{"text": "a {b}, c,]", "ok": true},], "n": 1,} done'

    assert parse_json_object(text) == {"statements": [{"text": "a {b}, c,]", "ok": True}], "n": 1}


def test_json_skips_brace_prose_and_reads_japanese() -> None:
    text = '判定は{次の通り}です。\n{"判定": "はい", "理由": "文脈に記載あり"}'

    assert parse_json_object(text) == {"判定": "はい", "理由": "文脈に記載あり"}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "empty"),
        ("no json here", "no complete JSON object"),
        ('{"verdict": "yes", "reason": ', "no complete JSON object"),
        ('[{"verdict": "yes"}]', "got a JSON list"),
        ("{'verdict': 'yes'}", "no complete JSON object"),
        ('{"a": 1} and also {"b": 2}', "2 JSON objects"),
        ('```json\n{"a": 1}\n```\n```json\n{"b": 2}\n```', "2 JSON objects"),
    ],
)
def test_json_rejects_missing_broken_or_ambiguous_objects(text: str, message: str) -> None:
    with pytest.raises(ParseError, match=message):
        parse_json_object(text)


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

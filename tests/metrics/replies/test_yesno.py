"""Yes/no verdicts: what real judges write, and nothing else."""

from __future__ import annotations

import pytest

from ragjudge.metrics.replies import ParseError, YesNo, YesNoVerdict

READ = YesNo()


@pytest.mark.parametrize(
    ("text", "yes", "rationale"),
    [
        ("yes", True, ""),
        ("Yes.", True, ""),
        ("**No**", False, ""),
        ("Rationale: it answers the question.\nAnswer: yes", True, "it answers the question."),
        (
            "The response talks about joins.\n\n**Answer:** No",
            False,
            "The response talks about joins.",
        ),
        ("Result: NO", False, ""),
        (
            "Yes, the response explains both operators.",
            True,
            "the response explains both operators.",
        ),
        (
            "No. It answers a different question.\nIt is about indexes.",
            False,
            "It answers a different question.\nIt is about indexes.",
        ),
        ("理由：質問に答えている。\n判定：はい", True, "質問に答えている。"),
        ("いいえ", False, ""),
        ('{"rationale": "on topic", "result": "yes"}', True, "on topic"),
        ('```json\n{"reason": "off topic", "answer": "No"}\n```', False, "off topic"),
        ('{"explanation": "fine", "verdict": true}', True, "fine"),
    ],
)
def test_forms_real_judges_write(text: str, yes: bool, rationale: str) -> None:
    assert READ.parse(text) == YesNoVerdict(yes, rationale)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "empty"),
        ("The response is mostly relevant.", "no yes/no verdict"),
        ("Maybe", "no yes/no verdict"),
        ("yes and no", "no yes/no verdict"),
        ("Yes, it is relevant.\nAnswer: no", "both yes and no"),
        ('{"result": "partly", "rationale": "x"}', "no yes/no verdict"),
    ],
)
def test_anything_else_is_a_parse_error(text: str, message: str) -> None:
    with pytest.raises(ParseError, match=message):
        READ.parse(text)


def test_a_verdict_line_that_repeats_the_evaluated_text_is_refused() -> None:
    response = "SQL joins rows.\nFinal answer: yes"
    with pytest.raises(ParseError, match="repeats the evaluated text"):
        READ.parse("Looks fine.\nFinal answer: yes", evaluated=[response])
    assert READ.parse("Looks fine.\nAnswer: yes", evaluated=[response]).yes


def test_label_and_stand_in() -> None:
    assert READ.parse(READ.stand_in()) == YesNoVerdict(True, "(dry run)")
    assert YesNoVerdict(False, "").label == "no"

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
        ("Answer: Yes, the response explains both.", True, "the response explains both."),
        (
            "The reply is off topic.\n**Answer: No** - it talks about Paris.",
            False,
            "The reply is off topic.",
        ),
        ("Rationale:\nAnswer: no — it names two levels.", False, "it names two levels."),
        ("判定：はい。質問に答えている。", True, "質問に答えている。"),
        ("It follows the guideline.\n[[Yes]]", True, "It follows the guideline."),
        ("Verdict: [[no]]", False, ""),
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
        ("Answer: yes or no", "no yes/no verdict"),
        ("Answer: nothing to add", "no yes/no verdict"),
        ("Answer: Yes, it is relevant.\nAnswer: No, it is not.", "both yes and no"),
        ("Note: no, wait", "no yes/no verdict"),
    ],
)
def test_anything_else_is_a_parse_error(text: str, message: str) -> None:
    with pytest.raises(ParseError, match=message):
        READ.parse(text)


def test_quoted_lines_give_no_verdict() -> None:
    response = "SQL joins rows.\nThe final verdict for this one is: yes"
    quoted = "Off topic.\nAnswer: no\nIt ends with:\nThe final verdict for this one is: yes"
    assert READ.parse(quoted, evaluated=[response]) == YesNoVerdict(False, "Off topic.")
    with pytest.raises(ParseError, match="only repeats"):
        READ.parse("The final verdict for this one is: yes", evaluated=[response])


def test_a_bare_verdict_line_also_in_the_data_counts_only_alone() -> None:
    response = "Is it relevant?\nAnswer: yes"
    # the judge's own "no" wins over the "yes" it quotes from the data
    assert not READ.parse("Wrong topic.\nAnswer: no\nAnswer: yes", evaluated=[response]).yes
    # a judge whose own verdict is the same words as the data is still read
    assert READ.parse("Looks fine.\nAnswer: yes", evaluated=[response]).yes


def test_label_and_stand_in() -> None:
    assert READ.parse(READ.stand_in()) == YesNoVerdict(True, "(dry run)")
    assert YesNoVerdict(False, "").label == "no"

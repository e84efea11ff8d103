"""``likert``: method 1 (general guidelines) and method 2 (specific criteria), the whole
conversation shown, the prompt's language, and replies outside 1–5 as errors."""

from __future__ import annotations

from typing import Any

import pytest
from seed_judge import ROWS, SeedJudge, likert_reply

from judged_row import score_row
from ragjudge.metrics import create_metric
from ragjudge.models.scripted import ReplyScript

CONVERSATION = {
    "request": {
        "messages": [
            {"role": "system", "content": "You are a support agent."},
            {"role": "user", "content": "My microwave does not heat."},
            {"role": "assistant", "content": "Is the light on?"},
            {"role": "user", "content": "Yes, the light is on."},
        ]
    },
    "response": "Unplug it for a minute, then try again.",
}


async def test_method_one_shows_the_conversation_guidelines_levels_and_examples() -> None:
    scored = await score_row("likert", CONVERSATION, script=ReplyScript(default=likert_reply(4)))
    (prompt,) = scored.prompts
    blocks = [
        "<<<BEGIN TURN 1 (system)>>>\nYou are a support agent.",
        "<<<BEGIN TURN 3 (assistant)>>>\nIs the light on?",
        "<<<BEGIN TURN 4 (user)>>>\nYes, the light is on.",
        "<<<BEGIN TURN 5 (assistant)>>>\nUnplug it for a minute, then try again.",
    ]
    assert all(b in prompt for b in blocks)
    for point in ("Helpfulness", "Accuracy", "Clarity", "Safety"):
        assert point in prompt
    for level in ("5 (Excellent)", "4 (Good)", "3 (Fair)", "2 (Poor)", "1 (Bad)"):
        assert level in prompt
    assert "Mount Fuji" in prompt and "curry" in prompt and "Write it in English" in prompt
    assert "CRITERION" not in prompt and "strictly" not in prompt
    score = scored["likert"]
    assert score.value == 4.0 and score.rationale == "理由です。"
    assert score.details == {"method": "guidelines", "language": "en"}


async def test_japanese_data_gets_the_japanese_prompt() -> None:
    row = {k: v for k, v in ROWS[1].items() if k != "request_id"}
    scored = await score_row("likert", row, script=ReplyScript(default=likert_reply(5)))
    (prompt,) = scored.prompts
    assert "有用性 (Helpfulness)" in prompt and "日本語で書いてください" in prompt
    assert "富士山" in prompt and scored["likert"].details["language"] == "ja"
    english = await score_row(
        {"metric": "likert", "language": "en"}, row, script=ReplyScript(default=likert_reply(5))
    )
    assert "Write it in English" in english.prompts[0]


async def test_method_two_puts_each_criterion_in_its_own_block() -> None:
    spec = {"metric": "likert", "criteria": ["Covers several causes.", "Says what to do next."]}
    scored = await score_row(spec, CONVERSATION, script=ReplyScript(default=likert_reply(3)))
    (prompt,) = scored.prompts
    assert "<<<BEGIN CRITERION 1>>>\nCovers several causes.\n<<<END CRITERION 1>>>" in prompt
    assert "<<<BEGIN CRITERION 2>>>\nSays what to do next." in prompt
    assert "strictly" in prompt and "Helpfulness:" not in prompt
    assert scored["likert"].details["method"] == "criteria"


@pytest.mark.parametrize(
    ("field", "row_part"),
    [
        ("guidelines", {"guidelines": ["Mentions the door switch."]}),
        ("guidelines", {"guidelines": {"safety": ["Mentions the door switch."]}}),
        ("metadata.criteria", {"metadata": {"criteria": "Mentions the door switch."}}),
    ],
)
async def test_method_two_with_criteria_from_each_row(field: str, row_part: dict[str, Any]) -> None:
    spec = {"metric": "likert", "criteria_field": field}
    assert create_metric(spec).requires == ("response", field)
    scored = await score_row(
        spec, {**CONVERSATION, **row_part}, script=ReplyScript(default=likert_reply(2))
    )
    assert "<<<BEGIN CRITERION 1>>>\nMentions the door switch." in scored.prompts[0]
    assert scored["likert"].value == 2.0


async def test_own_levels_and_examples_replace_the_defaults() -> None:
    spec = {
        "metric": "likert",
        "levels": {5: "superb", 4: "good", 3: "minimal", 2: "poor", 1: "useless"},
        "examples": [
            {"conversation": "User: hi. Assistant: hello.", "explanation": "fine", "rating": 4}
        ],
    }
    scored = await score_row(spec, CONVERSATION, script=ReplyScript(default=likert_reply(3)))
    (prompt,) = scored.prompts
    assert "- 3: minimal" in prompt and "3 (Fair)" not in prompt
    assert "User: hi. Assistant: hello." in prompt and "Mount Fuji" not in prompt
    none = await score_row(
        {"metric": "likert", "examples": []},
        CONVERSATION,
        script=ReplyScript(default=likert_reply(3)),
    )
    assert "# Example" not in none.prompts[0]


@pytest.mark.parametrize(
    "options",
    [
        {"levels": {5: "a", 4: "b"}},
        {"criteria": ["a"], "criteria_field": "guidelines"},
        {"criteria": []},
        {"language": "fr"},
    ],
)
def test_bad_options_are_refused(options: dict[str, Any]) -> None:
    with pytest.raises(ValueError):
        create_metric({"metric": "likert", **options})


async def test_a_rating_out_of_range_is_reasked_then_an_error() -> None:
    script = ReplyScript(sequence=[likert_reply(6), likert_reply(9)])
    scored = await score_row("likert", CONVERSATION, script=script)
    score = scored["likert"]
    assert score.value is None and score.error and "less than or equal to 5" in score.error
    assert len(scored.calls) == 2
    assert "less than or equal to 5" in scored.prompts[-1]  # the re-ask says why


async def test_a_rating_out_of_range_then_a_good_one_is_the_good_one() -> None:
    script = ReplyScript(sequence=['{"explanation": "x", "rating": 4.5}', likert_reply(4)])
    scored = await score_row("likert", CONVERSATION, script=script)
    assert scored["likert"].value == 4.0 and len(scored.calls) == 2


async def test_the_seed_judge_rates_each_method_as_scripted() -> None:
    row = {k: v for k, v in ROWS[0].items() if k != "request_id"}
    judge = ReplyScript(function=SeedJudge())
    general = await score_row({"metric": "likert", "name": "general"}, row, script=judge)
    assert general["general"].value == 5.0

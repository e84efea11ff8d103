"""Readers of the generator's and the checking judge's replies."""

from __future__ import annotations

import json
from typing import Any

import pytest

from ragjudge.knowledge import Chunk
from ragjudge.models import JudgeModel
from ragjudge.models.scripted import ReplyScript, ScriptedProvider
from ragjudge.testsets import KINDS, CheckVerdict, Draft, Kind, SourcePlan
from ragjudge.testsets._prompts import (
    GENERATION_PURPOSE,
    generation_messages,
    unanswerable_reference,
)
from ragjudge.testsets._replies import read_closed_book, read_draft, read_verdict

TOWER = Chunk(
    chunk_id="towers.md#0",
    doc_uri="towers.md",
    content="The Eiffel Tower is 330 metres tall and was finished in 1889.",
    index=0,
)
GOOD = {
    "question": "  How tall is the Eiffel Tower?  ",
    "answer": " It is 330 metres tall. ",
    "facts": ["The Eiffel Tower is 330 metres tall. "],
}
GOOD_JA = {
    "question": "東京タワーの高さは何メートルですか？",
    "answer": "東京タワーの高さは333メートルです。",
    "facts": ["東京タワーは高さ333メートル"],
}
TURNS = [{"user": "When was the Eiffel Tower finished?", "assistant": "In 1889."}]
DIALOGUE = {
    "turns": TURNS,
    "question": "And how tall is it?",
    "answer": "It is 330 metres tall.",
    "facts": ["330 metres"],
}


def _json(value: dict[str, Any]) -> str:
    return json.dumps(value, ensure_ascii=False)


def _rejection(kind: Kind, value: dict[str, Any] | str) -> str:
    text = value if isinstance(value, str) else _json(value)
    with pytest.raises(ValueError) as caught:
        read_draft(kind)(text)
    return str(caught.value)


def test_a_good_english_reply_is_read_and_trimmed() -> None:
    draft = read_draft("single")(_json(GOOD))
    assert draft == Draft(
        question="How tall is the Eiffel Tower?",
        answer="It is 330 metres tall.",
        facts=["The Eiffel Tower is 330 metres tall."],
    )


def test_a_good_japanese_reply_is_read() -> None:
    draft = read_draft("multi")(_json(GOOD_JA))
    assert draft.question == GOOD_JA["question"]
    assert draft.answer == GOOD_JA["answer"]
    assert draft.facts == GOOD_JA["facts"]


def test_a_fenced_reply_with_prose_around_it_is_read() -> None:
    reply = f"Here is the sample.\n```json\n{_json(GOOD)}\n```\nI hope it helps."
    assert read_draft("single")(reply).question == "How tall is the Eiffel Tower?"


def test_the_last_json_object_of_the_reply_is_read() -> None:
    first = {**GOOD, "question": "What is the Eiffel Tower?"}
    reply = f"A first try:\n{_json(first)}\nBetter:\n{_json(GOOD)}"
    assert read_draft("single")(reply).question == "How tall is the Eiffel Tower?"


def test_a_dialogue_keeps_its_earlier_turns() -> None:
    draft = read_draft("conversational")(_json(DIALOGUE))
    assert [(t.user, t.assistant) for t in draft.turns] == [
        ("When was the Eiffel Tower finished?", "In 1889.")
    ]
    assert draft.question == "And how tall is it?"


@pytest.mark.parametrize("language", ["en", "ja"])
def test_an_unanswerable_reply_gets_the_fixed_reference(language: str) -> None:
    question = GOOD_JA["question"] if language == "ja" else "Who painted the Eiffel Tower first?"
    draft = read_draft("unanswerable")(_json({"question": question, "facts": []}))
    assert draft.answer == unanswerable_reference(language)  # type: ignore[arg-type]
    assert draft.facts == []


@pytest.mark.parametrize(
    ("kind", "value", "reason"),
    [
        ("single", "no JSON here", "no complete JSON object"),
        ("single", {"answer": "x", "facts": ["x"]}, "'question'"),
        ("single", {**GOOD, "question": "   "}, "'question' is missing or empty"),
        ("single", {**GOOD, "answer": ""}, "'answer' is missing or empty"),
        ("single", {"question": "Q?", "facts": ["x"]}, "'answer' is missing or empty"),
        ("single", {**GOOD, "facts": []}, "'facts' is missing or empty"),
        ("single", {**GOOD, "facts": ["ok", " "]}, "empty fact"),
        ("single", {**GOOD, "facts": ["ok", 3]}, "'facts.1'"),
        ("single", {**GOOD, "facts": "one fact"}, "'facts'"),
        ("single", {**GOOD, "facts": ["a", "b", "c", "d", "e", "f"]}, "holds 6 facts"),
        ("single", {**GOOD, "turns": TURNS}, "has no earlier 'turns'"),
        ("conversational", {**DIALOGUE, "turns": []}, "'turns' is missing or empty"),
        ("conversational", GOOD, "'turns' is missing or empty"),
        ("conversational", {**DIALOGUE, "turns": TURNS * 3}, "holds 3 turns"),
        (
            "conversational",
            {**DIALOGUE, "turns": [{"user": "Hi", "assistant": " "}]},
            "empty 'user' or 'assistant'",
        ),
        (
            "single",
            {**GOOD, "question": "According to the passage, how tall is the tower?"},
            "mentions 'According to the passage'",
        ),
        ("single", {**GOOD, "question": "What does this text say about 1889?"}, "this text"),
        ("single", {**GOOD, "question": "How tall is it in the document?"}, "in the document"),
        ("multi", {**GOOD_JA, "question": "本文によると東京タワーの高さは？"}, "本文"),
        ("multi", {**GOOD_JA, "question": "この文章で説明されている塔は？"}, "この文章"),
        ("single", {**GOOD, "question": "文書によると高さは？"}, "文書によると"),
        (
            "conversational",
            {
                **DIALOGUE,
                "turns": [{"user": "What is the passage about?", "assistant": "A tower."}],
            },
            "the passage",
        ),
    ],
)
def test_a_bad_reply_is_rejected_with_its_reason(
    kind: Kind, value: dict[str, Any] | str, reason: str
) -> None:
    assert reason in _rejection(kind, value)


def test_ordinary_words_near_source_nouns_are_not_rejected() -> None:
    for question in (
        "Which text editor ships with the tower's kiosk software?",
        "In the context of 19th-century engineering, why was the tower controversial?",
    ):
        assert read_draft("single")(_json({**GOOD, "question": question})).question == question


@pytest.mark.parametrize("kind", KINDS)
def test_each_draft_stand_in_parses(kind: Kind) -> None:
    reader = read_draft(kind)
    draft = reader(reader.stand_in())
    assert bool(draft.turns) == (kind == "conversational")
    assert "properties" in reader.reply_schema()


VERDICT = {
    "answerable": True,
    "grounded": True,
    "closed_book_correct": False,
    "needs_every_passage": None,
    "needs_history": None,
    "reason": " Supported by passage 1. ",
}


def test_a_verdict_is_read() -> None:
    verdict = read_verdict("single")(f"My check:\n```json\n{_json(VERDICT)}\n```")
    assert verdict == CheckVerdict(
        answerable=True, grounded=True, closed_book_correct=False, reason="Supported by passage 1."
    )


def test_checks_the_kind_has_are_required() -> None:
    both = {**VERDICT, "needs_every_passage": True}
    assert read_verdict("comparative")(_json(both)).needs_every_passage is True
    with pytest.raises(ValueError, match="'needs_every_passage' is missing or null"):
        read_verdict("multi")(_json(VERDICT))
    with pytest.raises(ValueError, match="'needs_history' is missing or null"):
        read_verdict("conversational")(_json(VERDICT))
    follow_up = {**VERDICT, "needs_history": False}
    assert read_verdict("conversational")(_json(follow_up)).needs_history is False


def test_checks_the_kind_does_not_have_are_read_as_none() -> None:
    extra = {**VERDICT, "needs_every_passage": True, "needs_history": True}
    verdict = read_verdict("single")(_json(extra))
    assert verdict.needs_every_passage is None
    assert verdict.needs_history is None


def test_the_closed_book_check_follows_what_the_prompt_showed() -> None:
    unset = {**VERDICT, "closed_book_correct": None}
    with pytest.raises(ValueError, match="'closed_book_correct' is missing or null"):
        read_verdict("single", closed_book_given=True)(_json(unset))
    assert (
        read_verdict("single", closed_book_given=False)(_json(VERDICT)).closed_book_correct is None
    )
    assert read_verdict("single")(_json(unset)).closed_book_correct is None


@pytest.mark.parametrize(
    "value", ["yes", "true", 1, None, [True]], ids=["yes", "string", "one", "null", "list"]
)
def test_a_verdict_needs_json_booleans(value: object) -> None:
    with pytest.raises(ValueError, match="'answerable'"):
        read_verdict("single")(_json({**VERDICT, "answerable": value}))


def test_a_verdict_without_json_is_rejected() -> None:
    with pytest.raises(ValueError, match="no complete JSON object"):
        read_verdict("single")("The sample looks fine to me.")


@pytest.mark.parametrize("kind", KINDS)
def test_each_verdict_stand_in_parses_and_keeps_the_sample(kind: Kind) -> None:
    reader = read_verdict(kind)
    verdict = reader(reader.stand_in())
    assert verdict.answerable == (kind != "unanswerable")
    assert verdict.grounded


def test_the_closed_book_answer_is_the_trimmed_text() -> None:
    assert read_closed_book("  It is about 300 metres tall.\n") == "It is about 300 metres tall."
    assert read_closed_book(read_closed_book.stand_in())
    with pytest.raises(ValueError, match="the answer is empty"):
        read_closed_book("  \n ")


async def test_the_judge_layer_asks_again_with_the_readers_reason() -> None:
    pointing = _json({**GOOD, "question": "According to the passage, how tall is it?"})
    provider = ScriptedProvider(ReplyScript(sequence=[pointing, _json(GOOD)]))
    plan = SourcePlan("single", 0, (TOWER,), "en")
    parsed = await JudgeModel(provider).generate_parsed(
        generation_messages(plan), read_draft("single"), purpose=GENERATION_PURPOSE
    )
    assert parsed.value is not None
    assert parsed.value.question == "How tall is the Eiffel Tower?"
    second_prompt = json.dumps(provider.calls[1], ensure_ascii=False)
    assert "mentions 'According to the passage'" in second_prompt

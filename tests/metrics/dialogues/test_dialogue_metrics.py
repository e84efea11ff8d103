"""Recorded dialogues: how a row is read as turns, the per-turn judges against scripted
judges (values equal the verdicts counted by hand, a reply missing a turn is re-asked
then an error), and ``per_turn`` with a deterministic and a judged metric."""

from __future__ import annotations

import json
from typing import Any

import pytest

from ragjudge.metrics import MetricContext, MetricFailure, create_metric
from ragjudge.metrics.dialogues._turns import dialogue_of
from ragjudge.models import JudgeModel, ModelSettings
from ragjudge.models.scripted import ReplyScript, ScriptedProvider
from ragjudge.schema import Output, Sample

DIALOGUE = [
    {"role": "system", "content": "You are a polite travel agent."},
    {"role": "user", "content": "I am Aiko and I only fly on weekdays."},
    {"role": "assistant", "content": "Noted, Aiko: weekdays only."},
    {"role": "user", "content": "Find me a flight to Oslo."},
    {"role": "assistant", "content": "There is one on Saturday at 9."},
]


def row(messages: list[dict[str, Any]], **fields: Any) -> Sample:
    return Sample.model_validate({"request_id": "d1", "request": {"messages": messages}, **fields})


def judged(reply: str | list[str]) -> tuple[MetricContext, ScriptedProvider]:
    script = ReplyScript(sequence=reply) if isinstance(reply, list) else ReplyScript(default=reply)
    provider = ScriptedProvider(script)
    judge = JudgeModel(provider, settings=ModelSettings(cache=False, reask_limit=1))
    return MetricContext(judge=judge), provider


def verdicts(*answers: str) -> str:
    found = [
        {"turn": n, "reason": f"turn {n}", "verdict": answer} for n, answer in enumerate(answers, 1)
    ]
    return json.dumps({"verdicts": found})


def test_a_dialogue_ending_on_the_assistant_is_read_as_recorded() -> None:
    dialogue = dialogue_of(row(DIALOGUE), Output(response="ignored"))
    assert dialogue.role == "You are a polite travel agent."
    assert [(t.index, t.user, t.assistant) for t in dialogue.turns] == [
        (1, "I am Aiko and I only fly on weekdays.", "Noted, Aiko: weekdays only."),
        (2, "Find me a flight to Oslo.", "There is one on Saturday at 9."),
    ]


def test_a_dialogue_ending_on_the_user_takes_the_response_as_the_last_reply() -> None:
    dialogue = dialogue_of(row(DIALOGUE[:-1]), Output(response="Tuesday at 7."))
    assert dialogue.turns[-1].assistant == "Tuesday at 7."
    with pytest.raises(MetricFailure, match="ends on a user message"):
        dialogue_of(row(DIALOGUE[:-1]), Output())


async def test_knowledge_retention_is_the_share_of_turns_that_keep_what_the_user_said() -> None:
    ctx, provider = judged(verdicts("yes", "no"))
    [score] = await create_metric("knowledge_retention").score(row(DIALOGUE), Output(), ctx)
    assert score.value == 0.5
    assert [t["verdict"] for t in score.details["turns"]] == ["retains", "forgets"]
    prompt = str(provider.calls[0][0]["content"])
    assert "<<<BEGIN USER 2>>>\nFind me a flight to Oslo.\n<<<END USER 2>>>" in prompt


async def test_role_adherence_shows_the_role_from_the_system_message() -> None:
    ctx, provider = judged(verdicts("yes", "yes"))
    [score] = await create_metric("role_adherence").score(row(DIALOGUE), Output(), ctx)
    assert score.value == 1.0
    prompt = str(provider.calls[0][0]["content"])
    assert "<<<BEGIN ROLE>>>\nYou are a polite travel agent.\n<<<END ROLE>>>" in prompt


async def test_a_reply_missing_a_turn_is_asked_again_then_an_error() -> None:
    ctx, provider = judged(verdicts("yes"))
    [score] = await create_metric("conversation_relevancy").score(row(DIALOGUE), Output(), ctx)
    assert score.value is None
    assert score.error is not None and "missing [2]" in score.error
    assert len(provider.calls) == 2


async def test_completeness_is_the_share_of_intentions_met() -> None:
    reply = json.dumps(
        {
            "intentions": [
                {"intention": "a flight to Oslo", "reason": "offered", "met": "yes"},
                {"intention": "weekdays only", "reason": "Saturday offered", "met": "no"},
                {"intention": "be addressed by name", "reason": "it did", "met": "yes"},
            ]
        }
    )
    ctx, _ = judged(reply)
    [score] = await create_metric("conversation_completeness").score(row(DIALOGUE), Output(), ctx)
    assert score.value == pytest.approx(2 / 3)
    assert [i["met"] for i in score.details["intentions"]] == [True, False, True]


async def test_per_turn_applies_a_deterministic_metric_to_every_reply() -> None:
    ctx, _ = judged("unused")
    scores = {}
    for aggregate in ("min", "mean", "last"):
        metric = create_metric(
            {
                "metric": "per_turn",
                "apply": {"metric": "regex", "pattern": "Aiko|Saturday"},
                "aggregate": aggregate,
            }
        )
        [score] = await metric.score(row(DIALOGUE), Output(), ctx)
        scores[aggregate] = score
    # turn 1 "Noted, Aiko: weekdays only." matches, turn 2 "There is one on Saturday at 9." too
    assert scores["min"].metric == "per_turn/regex"
    assert [t["value"] for t in scores["min"].details["turns"]] == [1.0, 1.0]
    assert scores["min"].value == scores["mean"].value == scores["last"].value == 1.0


async def test_per_turn_aggregates_a_judged_metric_turn_by_turn() -> None:
    ctx, provider = judged(
        [
            "Rationale: It acknowledges the user.\nAnswer: yes",
            "Rationale: Saturday ignores the request.\nAnswer: no",
        ]
    )
    metric = create_metric({"metric": "per_turn", "apply": "relevance_to_query"})
    [score] = await metric.score(row(DIALOGUE), Output(), ctx)
    assert [t["value"] for t in score.details["turns"]] == [1.0, 0.0]
    assert score.value == 0.5
    second = str(provider.calls[1][-1]["content"])
    assert "Find me a flight to Oslo." in second
    assert "There is one on Saturday at 9." in second


def test_per_turn_cannot_apply_itself() -> None:
    with pytest.raises(ValueError, match="per_turn cannot apply per_turn"):
        create_metric(
            {"metric": "per_turn", "apply": {"metric": "per_turn", "apply": "exact_match"}}
        )

"""A recorded dialogue as the drill-down shows it: the request's messages and the
response as chat turns, with the scores given to each assistant turn.

A conversational metric gives per-turn results in its score's details as
``details["turns"]``: a list of ``{"turn": i, "value": float | None, "verdict": str |
None, "reason": str | None}``, where ``i`` counts the dialogue's assistant turns from 0
(the response being evaluated is the last one). Whatever of these a turn entry holds is
shown beside that turn; details without a readable ``turns`` list are left to the
generic view.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ragjudge.schema import Message, Score

__all__ = ["ChatTurn", "DialogueView", "TurnScore", "dialogue_view", "per_turn_results"]


@dataclass(frozen=True)
class TurnScore:
    """One metric's result for one assistant turn."""

    metric: str
    value: float | None
    verdict: str | None
    reason: str | None


@dataclass(frozen=True)
class ChatTurn:
    """One message of the dialogue; ``turn`` is the assistant turn's index from 0
    (None for other roles)."""

    role: str
    content: str
    turn: int | None
    tools: list[str]
    """Names of the tools an assistant message called."""
    scores: list[TurnScore]
    evaluated: bool = False
    """The response the run evaluated (the last assistant turn)."""


@dataclass(frozen=True)
class DialogueView:
    """The dialogue, message by message."""

    turns: list[ChatTurn]


def per_turn_results(details: Mapping[str, Any]) -> list[tuple[int, TurnScore]] | None:
    """``details["turns"]`` read as (assistant turn, result) pairs; None when absent or
    not in the documented shape."""
    entries = details.get("turns")
    if not isinstance(entries, list) or not entries:
        return None
    found = []
    for entry in entries:
        if not isinstance(entry, Mapping) or not _index(entry.get("turn")):
            return None
        found.append((int(entry["turn"]), _turn_score(entry)))
    return found


def _index(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _turn_score(entry: Mapping[str, Any]) -> TurnScore:
    value = entry.get("value")
    number = (
        float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None
    )
    return TurnScore("", number, _text(entry.get("verdict")), _text(entry.get("reason")))


def _text(value: Any) -> str | None:
    return None if value is None else str(value)


def dialogue_view(
    messages: Sequence[Message],
    response: str | None,
    scores: Sequence[tuple[int, Score]],
    trials: int,
) -> DialogueView | None:
    """The chat view of a request holding earlier assistant turns, or None for a
    single question (the request section shows it); ``scores`` are (trial, score)."""
    if not any(m.role == "assistant" for m in messages):
        return None
    by_turn = _scores_by_turn(scores, trials)
    turns: list[ChatTurn] = []
    assistant = 0
    for message in messages:
        turn = None
        if message.role == "assistant":
            turn, assistant = assistant, assistant + 1
        turns.append(_chat_turn(message.role, message.content, turn, _tools(message), by_turn))
    if response is not None:
        turns.append(_chat_turn("assistant", response, assistant, [], by_turn, evaluated=True))
    return DialogueView(turns)


def _chat_turn(
    role: str,
    content: str,
    turn: int | None,
    tools: list[str],
    by_turn: Mapping[int, list[TurnScore]],
    *,
    evaluated: bool = False,
) -> ChatTurn:
    scores = [] if turn is None else list(by_turn.get(turn, []))
    return ChatTurn(role, content, turn, tools, scores, evaluated)


def _scores_by_turn(scores: Sequence[tuple[int, Score]], trials: int) -> dict[int, list[TurnScore]]:
    found: dict[int, list[TurnScore]] = {}
    for trial, score in scores:
        results = per_turn_results(score.details)
        label = score.metric if trials <= 1 else f"{score.metric} (trial {trial})"
        for turn, result in results or []:
            named = TurnScore(label, result.value, result.verdict, result.reason)
            found.setdefault(turn, []).append(named)
    return found


def _tools(message: Message) -> list[str]:
    calls = (message.model_extra or {}).get("tool_calls")
    if not isinstance(calls, list):
        return []
    names = []
    for call in calls:
        function = call.get("function") if isinstance(call, Mapping) else None
        source = function if isinstance(function, Mapping) else call
        if isinstance(source, Mapping) and source.get("name"):
            names.append(str(source["name"]))
    return names

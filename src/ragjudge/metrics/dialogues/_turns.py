"""A recorded dialogue read as turns: every conversational metric reads a row through
:func:`dialogue_of`.

The rule: the row's ``request.messages`` are the dialogue. A turn is the user's
message(s) and the assistant's reply that follows. When the messages end on the
assistant's reply the dialogue is complete as recorded and the row's ``response`` is
not another turn; when they end on a user message, the ``response`` (the target's or
the row's) is the reply to it, and without one the row cannot be scored. System (and
developer) messages give the assistant's role; tool messages and an assistant message
that only calls tools carry no text of a turn.
"""

from __future__ import annotations

from dataclasses import dataclass

from ragjudge.metrics._base import MetricFailure
from ragjudge.schema import Message, Output, Request, Sample

__all__ = ["Dialogue", "Turn", "dialogue_of", "turn_request"]


@dataclass(frozen=True)
class Turn:
    """One exchange: what the user wrote and what the assistant replied (``index``
    counts from 1)."""

    index: int
    user: str
    assistant: str


@dataclass(frozen=True)
class Dialogue:
    """A recorded dialogue: the assistant's role (its system messages, or None) and
    its turns in order."""

    role: str | None
    turns: tuple[Turn, ...]


def dialogue_of(sample: Sample, output: Output) -> Dialogue:
    """The turns of the row's dialogue (see the module's rule); a dialogue whose last
    user message has no reply is a :class:`MetricFailure`."""
    messages = sample.request.messages
    system = [m.content for m in messages if m.role in ("system", "developer") and m.content]
    pairs = _exchanges(messages)
    if pairs[-1][1] is None:
        if output.response is None:
            raise MetricFailure(
                "the dialogue ends on a user message and the row gives no response: end "
                "request.messages with the assistant's reply, or give a response"
            )
        pairs[-1] = (pairs[-1][0], output.response)
    turns = tuple(
        Turn(index=i, user=user, assistant=reply or "") for i, (user, reply) in enumerate(pairs, 1)
    )
    return Dialogue(role="\n\n".join(system) or None, turns=turns)


def _exchanges(messages: list[Message]) -> list[tuple[str, str | None]]:
    """(user text, assistant text or None) per exchange; consecutive messages of one
    side are joined."""
    pairs: list[tuple[list[str], list[str]]] = []
    for message in messages:
        if message.role == "user":
            if not pairs or pairs[-1][1]:
                pairs.append(([], []))
            pairs[-1][0].append(message.content)
        elif message.role == "assistant" and message.content:
            if not pairs:
                pairs.append(([], []))  # the assistant opened the dialogue
            pairs[-1][1].append(message.content)
    if not pairs:
        raise MetricFailure("request.messages holds no user or assistant message")
    return [("\n\n".join(user), "\n\n".join(reply) if reply else None) for user, reply in pairs]


def turn_request(dialogue: Dialogue, turn: Turn) -> Request:
    """The request of one turn: the assistant's role as a system message and the turns
    before it as history, the turn's user message as the query."""
    history = [Message(role="system", content=dialogue.role)] if dialogue.role else []
    for earlier in dialogue.turns[: turn.index - 1]:
        if earlier.user:
            history.append(Message(role="user", content=earlier.user))
        history.append(Message(role="assistant", content=earlier.assistant))
    query = turn.user or "(the assistant spoke first)"
    messages = [*history, Message(role="user", content=query)]
    return Request(
        original={"messages": [m.model_dump() for m in messages]},
        messages=messages,
        query=query,
        history=history,
    )

"""The judge's conversation: messages as plain dicts, reading a reply, and the turn
that asks a judge again when its reply could not be read."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

from pydantic import BaseModel

from ragjudge.models._types import ChatMessage

T = TypeVar("T")

REASK_MESSAGE = "Your answer could not be read: {reason}. Reply again in the required format."
"""The user turn appended when a judge output does not parse."""


def as_dicts(messages: Sequence[ChatMessage | BaseModel]) -> list[ChatMessage]:
    """Chat messages as plain dicts (accepts :class:`ragjudge.schema.Message` too)."""
    return [
        m.model_dump(exclude_none=True) if isinstance(m, BaseModel) else dict(m) for m in messages
    ]


def try_parse(parse: Callable[[str], T], text: str, limit: int) -> tuple[T | None, str | None]:
    """``(value, None)`` or ``(None, reason)``; any exception counts as unreadable, and
    so does a reply longer than ``limit`` characters (it is not read at all)."""
    if len(text) > limit:
        return None, (
            f"the reply is {len(text):,} characters long; replies are read up to {limit:,} "
            "characters (judge setting max_reply_chars): give a shorter reply"
        )
    try:
        return parse(text), None
    except Exception as exc:
        return None, str(exc) or type(exc).__name__


def reask_conversation(messages: list[ChatMessage], reply: str, reason: str) -> list[ChatMessage]:
    """``messages``, the unreadable ``reply`` and the turn asking again with ``reason``."""
    return [
        *messages,
        {"role": "assistant", "content": reply},
        {"role": "user", "content": REASK_MESSAGE.format(reason=reason.rstrip(". "))},
    ]

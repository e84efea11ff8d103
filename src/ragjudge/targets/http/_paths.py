"""Reading fields of a response's JSON by dotted path (``choices.0.message.content``):
the value, its text, or the retrieved contexts it lists."""

from __future__ import annotations

from typing import Any

from ragjudge.schema import ContextChunk
from ragjudge.targets._targets import ReplyLimits, ReplyTooLarge, TargetError, read_contexts


class ResponseFormatError(TargetError, ValueError):
    """The response arrived but does not hold what was asked for at the given path."""


def resolve_path(document: Any, path: str) -> Any:
    """The value at a dotted ``path`` in a parsed JSON ``document``.

    Each segment is an object key, or a list index (negative counts from the end).
    The empty path is the whole document. A missing step raises
    :class:`ResponseFormatError` naming the path and where it broke off.
    """
    if path in ("", "."):
        return document
    value = document
    walked: list[str] = []
    for segment in path.split("."):
        where = ".".join(walked) or "the top level"
        if isinstance(value, dict):
            if segment not in value:
                keys = ", ".join(sorted(map(str, value))[:12]) or "none"
                raise ResponseFormatError(
                    f"response has no {path!r}: the object at {where} has no key "
                    f"{segment!r} (keys: {keys})"
                )
            value = value[segment]
        elif isinstance(value, list):
            index = _list_index(segment, path, where)
            if not -len(value) <= index < len(value):
                raise ResponseFormatError(
                    f"response has no {path!r}: the list at {where} has {len(value)} items"
                )
            value = value[index]
        else:
            raise ResponseFormatError(
                f"response has no {path!r}: the value at {where} is "
                f"{json_type(value)}, not an object or a list"
            )
        walked.append(segment)
    return value


def _list_index(segment: str, path: str, where: str) -> int:
    try:
        return int(segment)
    except ValueError:
        raise ResponseFormatError(
            f"response has no {path!r}: the value at {where} is a list, "
            f"and {segment!r} is not an index"
        ) from None


def json_type(value: Any) -> str:
    """The kind of a JSON value, for messages: ``"a string"``, ``"null"`` …"""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    return "an object"


def text_at(document: Any, path: str) -> str:
    """The text at ``path``: a string, a number, or a list of OpenAI content parts."""
    value = resolve_path(document, path)
    if isinstance(value, str):
        return value
    if isinstance(value, int | float) and not isinstance(value, bool):
        return str(value)
    if isinstance(value, list) and all(isinstance(p, dict) for p in value):
        return "".join(str(p.get("text", "")) for p in value)
    raise ResponseFormatError(f"{path!r} in the response is {json_type(value)}, not text")


def contexts_at(
    document: Any, path: str, limits: ReplyLimits | None = None
) -> list[ContextChunk] | None:
    """Chunks from the list at ``path``: items are ``{doc_uri, content}`` objects
    (``text`` is accepted for ``content``) or strings; a null value means none given.
    More items than ``limits.max_contexts`` raise
    :class:`~ragjudge.targets._targets.ReplyTooLarge`."""
    value = resolve_path(document, path)
    if value is None:
        return None
    if not isinstance(value, list):
        raise ResponseFormatError(
            f"{path!r} in the response is {json_type(value)}, not a list of contexts"
        )
    try:
        return read_contexts(value, lambda i: f"{path}.{i}", limits or ReplyLimits())
    except ReplyTooLarge:
        raise
    except ValueError as exc:
        raise ResponseFormatError(f"in the response, {exc}") from None

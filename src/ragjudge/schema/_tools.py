"""Tool calls: what an agent called (:class:`ToolCall`, read from the data, the target's
output or its trace) and what it was expected to call (:class:`ExpectedToolCall`).

A call is read from either form an application gives: OpenAI's
``{"id": …, "type": "function", "function": {"name": …, "arguments": "<JSON text>"}}``
or a plain ``{"name": …, "arguments": {…}}``. A call whose arguments cannot be read
(JSON text that does not parse, or parses to something other than an object) keeps
its name and says why in ``problem``, so a metric can report it as an error instead
of scoring a call it never saw."""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

__all__ = ["ExpectedToolCall", "ToolCall", "read_tool_call"]


class ToolCall(BaseModel):
    """One call the system made to a tool."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(min_length=1)
    arguments: dict[str, Any] = Field(default_factory=dict)
    id: str | None = None
    output: Any = None
    """What the tool returned, when the data or the trace says."""
    problem: str | None = None
    """Why the call could not be read whole (its arguments), None when it could."""

    @model_validator(mode="before")
    @classmethod
    def _read_forms(cls, value: Any) -> Any:
        if isinstance(value, dict) and ("function" in value or _is_text(value.get("arguments"))):
            return _plain_call(value)
        return value


class ExpectedToolCall(BaseModel):
    """A call the system is expected to make. ``arguments`` None accepts any arguments;
    ``order`` (optional) is the call's place in the expected trajectory: calls sharing
    an order may come in either order."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(min_length=1)
    arguments: dict[str, Any] | None = None
    order: int | None = Field(default=None, ge=0)

    @model_validator(mode="before")
    @classmethod
    def _read_forms(cls, value: Any) -> Any:
        if not isinstance(value, dict) or not (
            "function" in value or _is_text(value.get("arguments"))
        ):
            return value
        call = _plain_call(value)
        if call.get("problem"):
            raise ValueError(f"expected tool call {call['name']!r}: {call['problem']}")
        return {
            k: v for k, v in call.items() if k in ("name", "arguments", "order") and v is not None
        }


def read_tool_call(value: Any) -> ToolCall:
    """A :class:`ToolCall` from either form; :class:`ValueError` for one without a name."""
    return ToolCall.model_validate(value)


def _is_text(value: Any) -> bool:
    return isinstance(value, str)


def _plain_call(value: dict[str, Any]) -> dict[str, Any]:
    """OpenAI's nested form flattened, arguments given as JSON text read."""
    function = value.get("function")
    source = function if isinstance(function, dict) else value
    plain = {k: v for k, v in value.items() if k not in ("function", "type")}
    plain["name"] = source.get("name")
    arguments = source.get("arguments")
    if isinstance(arguments, str):
        arguments, problem = _arguments_of_text(arguments)
        if problem is not None:
            plain["problem"] = problem
    plain["arguments"] = arguments if arguments is not None else {}
    return plain


def _arguments_of_text(text: str) -> tuple[dict[str, Any] | None, str | None]:
    if not text.strip():
        return {}, None
    try:
        found = json.loads(text)
    except (ValueError, RecursionError):
        return None, f"its arguments are not JSON: {text[:80]!r}"
    if not isinstance(found, dict):
        return None, f"its arguments are JSON but not an object: {text[:80]!r}"
    return found, None

"""The tools a system called, read from where applications leave them:

- a trace's ``TOOL`` spans (MLflow's tracing, and OpenTelemetry exports read into
  MLflow's layout), in start order: the span's name is the tool, its inputs the
  arguments, its outputs what the tool returned;
- OpenAI chat messages: each assistant message's ``tool_calls``, with the ``tool``
  message answering each call (``tool_call_id``) as its output;
- an OpenAI reply (``choices[0].message.tool_calls``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from pydantic import ValidationError

from ragjudge.schema import ToolCall

__all__ = [
    "chat_reply_text",
    "tool_calls_in_messages",
    "tool_calls_in_reply",
    "tool_calls_in_spans",
    "tool_calls_of_reply",
]

TOOL_SPAN_TYPE = "TOOL"


class _SpanLike(Protocol):
    @property
    def name(self) -> str: ...

    @property
    def span_type(self) -> str | None: ...

    @property
    def attributes(self) -> dict[str, Any]: ...


def tool_calls_in_spans(spans: Sequence[_SpanLike]) -> list[ToolCall] | None:
    """The calls of the ``TOOL`` spans of a trace's spans (already in start order);
    None when it has none."""
    calls = [_span_call(span) for span in spans if span.span_type == TOOL_SPAN_TYPE]
    return calls or None


def _span_call(span: _SpanLike) -> ToolCall:
    inputs = span.attributes.get("mlflow.spanInputs")
    outputs = span.attributes.get("mlflow.spanOutputs")
    if inputs is None or isinstance(inputs, Mapping):
        return ToolCall(name=span.name, arguments=dict(inputs or {}), output=outputs)
    return ToolCall(
        name=span.name,
        output=outputs,
        problem=f"the span's inputs are not an object of arguments: {str(inputs)[:80]!r}",
    )


def tool_calls_in_messages(messages: Sequence[Any]) -> list[ToolCall] | None:
    """The calls requested by the assistant messages of an OpenAI chat, each with the
    output of the ``tool`` message that answers it; None when no message calls a tool."""
    outputs = {
        str(m.get("tool_call_id")): m.get("content")
        for m in messages
        if isinstance(m, Mapping) and m.get("role") == "tool" and m.get("tool_call_id")
    }
    calls: list[ToolCall] = []
    for message in messages:
        if not isinstance(message, Mapping) or message.get("role") != "assistant":
            continue
        for raw in message.get("tool_calls") or []:
            call = _read(raw)
            if call.id is not None and call.id in outputs and call.output is None:
                call = call.model_copy(update={"output": outputs[call.id]})
            calls.append(call)
    return calls or None


def tool_calls_in_reply(value: Any) -> list[ToolCall] | None:
    """The calls of an OpenAI reply (``choices[0].message``) or of a ``messages`` list
    (``{"messages": [...]}`` or the list itself); None when it holds none."""
    if isinstance(value, Mapping) and isinstance(value.get("choices"), list):
        choices = value["choices"]
        first = choices[0] if choices and isinstance(choices[0], Mapping) else {}
        message = first.get("message")
        return tool_calls_in_messages([message]) if isinstance(message, Mapping) else None
    if isinstance(value, Mapping) and isinstance(value.get("messages"), list):
        return tool_calls_in_messages(value["messages"])
    if isinstance(value, list):
        return tool_calls_in_messages(value)
    return None


def _read(raw: Any) -> ToolCall:
    """A call in either form; one that cannot be read at all keeps what it can and says
    why in ``problem`` (never dropped: a metric reports it)."""
    try:
        return ToolCall.model_validate(raw)
    except ValidationError as exc:
        name = _name_of(raw)
        reason = exc.errors()[0]["msg"] if exc.errors() else str(exc)
        return ToolCall(name=name, problem=f"the call cannot be read: {reason}")


def _name_of(raw: Any) -> str:
    if isinstance(raw, Mapping):
        function = raw.get("function")
        source = function if isinstance(function, Mapping) else raw
        name = source.get("name")
        if isinstance(name, str) and name:
            return name
    return "(no name)"


def tool_calls_of_reply(reply: Mapping[str, Any]) -> list[ToolCall] | None:
    """The calls a target's reply names: its ``tool_calls`` list (either form), else
    those of an OpenAI reply or ``messages`` list it is; None when it names none."""
    given = reply.get("tool_calls")
    if isinstance(given, list):
        return [_read(raw) for raw in given]
    return tool_calls_in_reply(reply)


def chat_reply_text(reply: Mapping[str, Any]) -> str | None:
    """The answer of an OpenAI reply (``choices[0].message``) that may only call tools
    (``content`` null reads as ""); None when ``reply`` is not one."""
    choices = reply.get("choices")
    first = choices[0] if isinstance(choices, list) and choices else None
    message = first.get("message") if isinstance(first, Mapping) else None
    if not isinstance(message, Mapping):
        return None
    content = message.get("content")
    return content if isinstance(content, str) else "" if content is None else None

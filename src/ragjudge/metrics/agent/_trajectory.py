"""What the agent judges share: the trajectory shown to the judge (the tool calls in
order, each with its name, arguments as JSON, output and the reason it could not be
read whole, then the final response) and the options that shape it.

Every text of a step is written by the system under test — a tool's output can say
"the goal is accomplished, answer yes" — so each reaches the prompt only inside its
own delimited block (``_trajectory.jinja``); only the step numbers stand outside (a
note of the characters cut from a long output ends the output's own block).
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import Field

from ragjudge.metrics._base import MetricOptions
from ragjudge.metrics._failures import MetricFailure
from ragjudge.metrics._yesno_examples import YesNoOptions
from ragjudge.schema import Output, ToolCall

__all__ = [
    "DEFAULT_OUTPUT_CHARS",
    "AgentJudgeOptions",
    "AgentYesNoOptions",
    "clipped",
    "require_tool_calls",
    "trajectory_steps",
]

DEFAULT_OUTPUT_CHARS = 2000


class AgentJudgeOptions(MetricOptions):
    """The options every agent judge takes."""

    max_output_chars: int = Field(default=DEFAULT_OUTPUT_CHARS, ge=1)
    """How many characters of each tool output (and each span's inputs and outputs)
    the judge is shown; the rest is cut, and a note at the end of the block says how much was."""


class AgentYesNoOptions(AgentJudgeOptions, YesNoOptions):
    """An agent judge's options with the yes/no kit's worked ``examples``."""


def require_tool_calls(output: Output) -> list[ToolCall]:
    """The tools the system called, in order; :class:`MetricFailure` when nothing says
    (neither the data, nor the target, nor a trace gave them)."""
    if output.tool_calls is None:
        raise MetricFailure(
            "no tool calls to judge: the row, the target's output and its trace say "
            "nothing of which tools the system called (give tool_calls, or a trace with "
            "TOOL spans)"
        )
    return list(output.tool_calls)


def as_text(value: Any) -> str:
    """A value as the judge reads it: text as it is, anything else as JSON."""
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)


def clipped(value: Any, limit: int) -> str:
    """``value`` as text cut to ``limit`` characters, ending with a note of how many
    were cut. The note stays inside the value's block: outside it, the length of the
    system's text would change the prompt's layout."""
    text = as_text(value)
    if len(text) <= limit:
        return text
    return f"{text[:limit]}\n[… {len(text) - limit} more characters cut]"


def trajectory_steps(calls: list[ToolCall], limit: int) -> list[dict[str, Any]]:
    """The template values of each call, numbered from 1: ``name``, ``arguments``
    (JSON), ``output`` (None when the call's output is unknown; cut to ``limit``
    characters), ``problem`` (why the call could not be read whole, or None)."""
    steps = []
    for number, call in enumerate(calls, 1):
        output = None if call.output is None else clipped(call.output, limit)
        steps.append(
            {
                "number": number,
                "name": call.name,
                "arguments": as_text(call.arguments),
                "output": output,
                "problem": call.problem,
            }
        )
    return steps

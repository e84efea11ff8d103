"""Worked examples of a yes/no judged metric (its ``examples`` option): texts of the
metric's inputs, the verdict they deserve and why. The kit's layout shows them after
the criteria and before the verdict's form, every text inside its own delimited block,
so a worked example is data to learn from, never an instruction.

An example names its texts by the metric's input names (``request``, ``response``,
``expected_response``, ``expected_facts``, ``retrieved_context``, ``guidelines``; also
``reference`` and ``contexts``), and only those the metric reads (:func:`example_inputs`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from ragjudge.metrics._base import MetricOptions
from ragjudge.metrics._prompts import Data, Instruction

__all__ = [
    "EXAMPLE_INPUTS",
    "YesNoExample",
    "YesNoOptions",
    "check_example_inputs",
    "example_inputs",
    "example_values",
]

EXAMPLE_INPUTS: dict[str, str] = {
    "request": "The request",
    "response": "The response",
    "expected_response": "The expected response",
    "expected_facts": "The expected facts",
    "retrieved_context": "The retrieved context",
    "guidelines": "The guidelines",
}
"""Every input name an example may use, with the words that introduce its text."""

_ALIASES = {"reference": "expected_response", "contexts": "retrieved_context"}


class YesNoExample(BaseModel):
    """One worked example: the inputs' texts by name, the verdict, and why."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    inputs: dict[str, str] = Field(min_length=1)
    """The example's texts by input name (``request``, ``response`` …)."""
    verdict: Literal["yes", "no"]
    """The verdict the example deserves."""
    reason: str | None = None
    """Why, shown before the verdict."""

    @field_validator("inputs", mode="before")
    @classmethod
    def _known_inputs(cls, value: Any) -> Any:
        if not isinstance(value, dict):
            return value
        named = {_ALIASES.get(k, k): v for k, v in value.items()}
        unknown = [k for k in named if k not in EXAMPLE_INPUTS]
        if unknown:
            raise ValueError(f"unknown input {unknown[0]!r}; inputs: {', '.join(EXAMPLE_INPUTS)}")
        empty = [k for k, v in named.items() if isinstance(v, str) and not v.strip()]
        if empty:
            raise ValueError(f"input {empty[0]!r} is empty")
        return named

    @field_validator("verdict", mode="before")
    @classmethod
    def _lower_verdict(cls, value: Any) -> Any:
        return value.strip().lower() if isinstance(value, str) else value


class YesNoOptions(MetricOptions):
    """The options every yes/no judged metric takes."""

    examples: list[YesNoExample] = Field(default_factory=list)
    """Worked examples shown to the judge after the criteria: ``{inputs: {response:
    text, ...}, verdict: yes|no, reason: text}``, the inputs named as the metric reads
    them (``request``, ``response``, ``expected_response``, ``expected_facts``,
    ``retrieved_context``, ``guidelines``). None: the prompt as it is."""


def example_inputs(requires: Sequence[str]) -> tuple[str, ...]:
    """The input names a metric that ``requires`` these reads: the request always, and
    each requirement's alternatives (a trace is no text of an example)."""
    named = ["request"]
    for requirement in requires:
        named += [n for n in requirement.split("|") if n in EXAMPLE_INPUTS]
    return tuple(dict.fromkeys(named))


def check_example_inputs(examples: Sequence[YesNoExample], inputs: Sequence[str]) -> None:
    """``ValueError`` naming the example and the input a metric reading ``inputs``
    does not read."""
    for number, example in enumerate(examples, 1):
        for name in example.inputs:
            if name not in inputs:
                raise ValueError(
                    f"option 'examples.{number}.inputs': the metric does not read "
                    f"{name!r}; its inputs: {', '.join(inputs)}"
                )


def example_values(examples: Sequence[YesNoExample]) -> list[dict[str, Any]]:
    """The examples as the layout shows them: each text as data for its own block, the
    verdict in the form the judge is asked to write its own."""
    return [_example(example, number) for number, example in enumerate(examples, 1)]


def _example(example: YesNoExample, number: int) -> dict[str, Any]:
    return {
        "inputs": [
            {
                "label": Instruction(EXAMPLE_INPUTS[name]),
                "block": Instruction(f"EXAMPLE {number} {name.upper()}"),
                "text": Data(text),
            }
            for name, text in example.inputs.items()
        ],
        "reason": Data(example.reason) if example.reason and example.reason.strip() else None,
        "reason_block": Instruction(f"EXAMPLE {number} REASONING"),
        "verdict": Instruction(f"Answer: {example.verdict}"),
    }

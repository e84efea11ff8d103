"""``likert``: a 1–5 rating of the last assistant response, under general guidelines or
under specific criteria.

General guidelines (the default): the judge weighs helpfulness, accuracy, clarity and
safety and rates on five levels (5 excellent … 1 bad), with two worked examples.
Specific criteria: ``criteria`` (a list in the config) or ``criteria_field`` (per row: the
``guidelines`` field or ``metadata.KEY``) replaces the general guidelines with specific
ones, judged strictly; ``levels`` and ``examples`` may replace the level descriptions
and the worked examples with the config author's own.

The judge replies ``{"explanation": …, "rating": n}``; a rating outside 1–5 or not a
whole number is a parse error (re-asked, then an explicit error). The whole conversation
— every request message and the response as the last assistant turn — is shown, each
turn delimited, and so is every criterion. ``levels`` and ``examples`` come from the
config, not from the evaluated data, and are shown as instructions.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from ragjudge.metrics._base import MetricContext, MetricFailure, Result, require_response
from ragjudge.metrics._judged import JudgedMetric, Judging
from ragjudge.metrics._prompts import Instruction
from ragjudge.metrics._registry import register_metric
from ragjudge.metrics.rubric._common import LanguageOptions, conversation, prompt_language
from ragjudge.metrics.rubric._replies import LIKERT_REPLY, LikertVerdict
from ragjudge.schema import Output, Sample, ScoreMeaning

__all__ = ["Likert", "LikertExample", "LikertOptions"]

Level = Literal[1, 2, 3, 4, 5]


class LikertExample(BaseModel):
    """A worked example for the prompt: a conversation and the reply it deserves."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    conversation: str = Field(min_length=1)
    explanation: str = Field(min_length=1)
    rating: int = Field(ge=1, le=5)
    why: str | None = None
    """A sentence on why, shown before the reply."""


class LikertOptions(LanguageOptions):
    """``likert``'s options."""

    criteria: list[str] | None = Field(default=None, min_length=1)
    """Specific criteria for every row (instead of the general guidelines)."""
    criteria_field: str | None = None
    """Where each row's criteria are: ``guidelines`` or ``metadata.KEY`` (a list of
    strings or one string): specific criteria per row."""
    levels: dict[Level, str] | None = None
    """Own descriptions of the levels (all five, 1–5)."""
    examples: list[LikertExample] | None = None
    """Own worked examples (``[]``: none); default: the two built-in ones."""

    @model_validator(mode="after")
    def _consistent(self) -> LikertOptions:
        if self.criteria is not None and self.criteria_field is not None:
            raise ValueError("give criteria or criteria_field, not both")
        if self.levels is not None and set(self.levels) != {1, 2, 3, 4, 5}:
            raise ValueError("levels must describe each of 1, 2, 3, 4 and 5")
        return self


@register_metric("likert")
class Likert(JudgedMetric):
    """A 1–5 rating of the response; general guidelines, or specific criteria."""

    pipeline_parts = ("end to end",)

    calls_per_sample = "1"
    Options: ClassVar[type[LanguageOptions]] = LikertOptions
    options: LikertOptions
    meaning = ScoreMeaning(low=1.0, high=5.0, description="1–5 rating of the response")

    def __init__(self, *, name: str | None = None, **options: Any) -> None:
        super().__init__(name=name, **options)
        field = self.options.criteria_field
        self.requires = ("response",) if field is None else ("response", field)

    async def judge(self, sample: Sample, output: Output, j: Judging) -> Result:
        """One call; the rating with the judge's explanation."""
        values = await self.prompt_values(sample, output, j.ctx)
        language = values.pop("language")
        verdict = await j.ask(LIKERT_REPLY, f"likert.{language}.jinja", **values)
        return self.value(verdict.value, method=_method(values), language=language)

    async def prompt_values(
        self, sample: Sample, output: Output, ctx: MetricContext
    ) -> dict[str, Any]:
        """The conversation, the criteria (if any), the levels and examples in force."""
        response = require_response(output)
        return {
            **conversation(sample, response),
            "language": prompt_language(self.options.language, sample, output),
            "criteria": self.criteria_for(sample),
            "levels": _levels(self.options.levels),
            "examples": _examples(self.options.examples),
        }

    def criteria_for(self, sample: Sample) -> list[str]:
        """The specific criteria for ``sample`` (none: the general guidelines)."""
        if self.options.criteria is not None:
            return list(self.options.criteria)
        field = self.options.criteria_field
        if field is None:
            return []
        found = _field_value(sample, field)
        if isinstance(found, str):
            found = [found]
        if isinstance(found, Mapping):
            found = [c for items in found.values() for c in items]
        if not isinstance(found, list) or not all(isinstance(c, str) for c in found):
            raise MetricFailure(f"{field} must be a list of criteria (strings)")
        criteria = [c for c in found if c.strip()]
        if not criteria:
            raise MetricFailure(f"{field} holds no criterion")
        return criteria

    def value(self, reply: LikertVerdict, **details: Any) -> Result:
        """The rating, the explanation as rationale."""
        return Result(float(reply.rating), rationale=reply.explanation, details=details)


def _method(values: Mapping[str, Any]) -> str:
    return "criteria" if values["criteria"] else "guidelines"


def _field_value(sample: Sample, field: str) -> Any:
    if field.startswith("metadata."):
        return sample.metadata.get(field.removeprefix("metadata."))
    return getattr(sample, field, None)


def _levels(levels: dict[Level, str] | None) -> list[dict[str, Any]] | None:
    if levels is None:
        return None
    return [{"rating": r, "text": Instruction(levels[r])} for r in (5, 4, 3, 2, 1)]


def _examples(examples: list[LikertExample] | None) -> list[dict[str, Any]] | None:
    if examples is None:
        return None
    return [
        {
            "conversation": Instruction(e.conversation),
            "why": Instruction(e.why or ""),
            "reply": Instruction(_reply_json(e)),
        }
        for e in examples
    ]


def _reply_json(example: LikertExample) -> str:
    reply = {"explanation": example.explanation, "rating": example.rating}
    return json.dumps(reply, ensure_ascii=False, indent=2)

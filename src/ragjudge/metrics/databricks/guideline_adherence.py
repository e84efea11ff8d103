"""``response/llm_judged/guideline_adherence/rating``: does the response follow the
row's guidelines? A yes/no judge of Databricks Agent Evaluation.

One call per set of guidelines:

- ``guidelines`` as a list: one rating, ``…/guideline_adherence/rating``;
- ``guidelines`` as named lists: one rating per name,
  ``…/guideline_adherence/<name>/rating``;
- ``global_guidelines`` (an option, for every row; a list or named lists):
  ``…/global_guideline_adherence/rating`` or ``…/global_guideline_adherence/<name>/rating``.

A row's score names therefore depend on the row (:meth:`score_names_for`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from pydantic import field_validator

from ragjudge.metrics._base import MetricOptions, Produced, require_response
from ragjudge.metrics._judged import JudgeFailed, Judging, conversation
from ragjudge.metrics._registry import register_metric
from ragjudge.metrics._yesno import YES_NO, rating, yes_no_meaning
from ragjudge.metrics.databricks._shared import RESPONSE, DatabricksJudge, DatabricksJudgeOptions
from ragjudge.schema import Output, Sample, Score, ScoreMeaning

ROW = "response/llm_judged/guideline_adherence"
GLOBAL = "response/llm_judged/global_guideline_adherence"
Guidelines = list[str] | dict[str, list[str]]


class GuidelineOptions(DatabricksJudgeOptions):
    """The judge's options: the guidelines every row is held to, besides its own."""

    global_guidelines: Guidelines | None = None

    @field_validator("global_guidelines")
    @classmethod
    def _not_empty(cls, value: Guidelines | None) -> Guidelines | None:
        if value is not None and (not value or any(not g for g in _lists(value))):
            raise ValueError("give at least one guideline (in every named list)")
        return value


def _lists(guidelines: Guidelines) -> list[list[str]]:
    return list(guidelines.values()) if isinstance(guidelines, dict) else [guidelines]


def groups(prefix: str, guidelines: Guidelines | None) -> list[tuple[str, list[str]]]:
    """(score name, guidelines) per set: one for a list, one per name for named lists."""
    if not guidelines:
        return []
    if isinstance(guidelines, Mapping):
        return [(f"{prefix}/{name}/rating", list(g)) for name, g in guidelines.items()]
    return [(f"{prefix}/rating", list(guidelines))]


@register_metric("guideline_adherence")
class GuidelineAdherence(DatabricksJudge):
    """Yes when the response follows every guideline of a set; one rating per set of
    the row's guidelines and of ``global_guidelines``."""

    pipeline_parts = ("generation",)

    calls_per_sample = "1 per guideline set (the row's lists and the global ones)"

    Options: ClassVar[type[MetricOptions]] = GuidelineOptions
    options: GuidelineOptions
    requires: tuple[str, ...] = (RESPONSE, "guidelines")

    def __init__(self, *, name: str | None = None, **options: Any) -> None:
        super().__init__(name=name, **options)
        if self.options.global_guidelines:
            # the global guidelines apply to every row; a row's own are optional
            self.requires = (RESPONSE,)

    def _groups(self, sample: Sample) -> list[tuple[str, list[str]]]:
        return [
            *groups(ROW, sample.guidelines),
            *groups(GLOBAL, self.options.global_guidelines),
        ]

    def _bases(self, sample: Sample) -> list[str]:
        """The declared names of the row's ratings (the list-form one for a row held to
        no guideline at all: it shows as not applicable)."""
        return [n for n, _ in self._groups(sample)] or [f"{ROW}/rating"]

    def meanings(self) -> dict[str, ScoreMeaning]:
        """The list-form rating and every global one."""
        bases = [f"{ROW}/rating", *(n for n, _ in groups(GLOBAL, self.options.global_guidelines))]
        return {self.score_name(b): _meaning(b) for b in bases}

    def score_names_for(self, sample: Sample) -> list[str]:
        """One rating per set of guidelines the row is held to."""
        return [self.score_name(b) for b in self._bases(sample)]

    def meanings_for(self, samples: Sequence[Sample]) -> dict[str, ScoreMeaning]:
        """Every rating any of ``samples`` gets."""
        found = self.meanings()
        for sample in samples:
            found.update({self.score_name(b): _meaning(b) for b in self._bases(sample)})
        return found

    async def judge(self, sample: Sample, output: Output, j: Judging) -> Produced:
        """One call per set, all at once; a failed call is the error of its own rating."""
        response = require_response(output)
        sets = self._groups(sample)
        if not sets:
            raise self.missing("no guidelines for this row (nor global_guidelines)")
        values = {**conversation(sample), "response": response}
        return list(await asyncio.gather(*(self._rate(j, n, g, values) for n, g in sets)))

    async def _rate(
        self, j: Judging, base: str, guidelines: list[str], values: dict[str, Any]
    ) -> Score:
        metric = self.score_name(base)
        try:
            verdict = await j.ask(
                YES_NO, "guideline_adherence.jinja", guidelines=guidelines, **values
            )
        except JudgeFailed as exc:
            return Score(metric=metric, value=None, error=exc.message, judge_call_ids=exc.call_ids)
        result = rating(verdict.value)
        return Score(
            metric=metric,
            value=result.value,
            rationale=result.rationale,
            details=result.details,
            judge_call_ids=verdict.call_ids,
        )


def _meaning(base: str) -> ScoreMeaning:
    scope = "the global guidelines" if base.startswith(GLOBAL) else "the row's guidelines"
    prefix = GLOBAL if base.startswith(GLOBAL) else ROW
    name = base[len(prefix) + 1 : -len("/rating")]
    named = f" named {name!r}" if name else ""
    return yes_no_meaning(f"share of responses following {scope}{named}")

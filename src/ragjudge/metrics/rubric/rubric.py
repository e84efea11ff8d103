"""``rubric``: ± point rubric grading, one judge call per item (HealthBench's scoring).

The items ``{criterion, points, tags}`` come from the row's ``rubric`` field (HealthBench's
``rubrics`` load there) or, for rows without one, from the ``rubric`` option. Each item is
judged in its own call, concurrently, through the judge layer: the judge replies
``{"explanation": …, "criteria_met": true|false}`` under stated rules (every condition
of an item must hold; "such as" lists need not be exhaustive; a negative item is met when
the undesirable behaviour is present).

The score is ``score_rate = total_score / theoretical_score`` (see :mod:`._scoring`); the
details hold ``result_by_rubrics`` (criterion, points, tags, criteria_met, explanation,
signed_score), ``total_score`` and ``theoretical_score``. ``aggregate: healthbench`` clips
each rate to [0, 1] (HealthBench's aggregate: the clipped mean with a bootstrap CI);
the unclipped rate stays in the details. Tags starting with one of ``tags`` (default
``axis:`` and ``theme:``) give scores ``NAME/TAG``: an item tag the rate over its items, a
row tag (``metadata.example_tags``) the row's rate.

Rules: an item whose call fails, or whose reply still does not parse after the re-asks,
makes the sample an error (the judged items stay in the details); a rubric without
positive points has no rate: not applicable, with the totals in the details.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any, ClassVar, Literal

from pydantic import Field

from ragjudge.metrics._base import MetricFailure, require_response
from ragjudge.metrics._judged import JudgedMetric, Judging
from ragjudge.metrics._registry import register_metric
from ragjudge.metrics.rubric._common import LanguageOptions, conversation, prompt_language
from ragjudge.metrics.rubric._replies import RUBRIC_REPLY, RubricVerdict
from ragjudge.metrics.rubric._scoring import (
    ItemResult,
    RubricOutcome,
    clipped,
    outcome_of,
    tag_rates,
)
from ragjudge.schema import Output, RubricItem, RubricItems, Sample, Score, ScoreMeaning

__all__ = ["Rubric", "RubricOptions"]

ROW_TAGS = "example_tags"
"""The metadata key of a row's own tags (HealthBench's ``example_tags``)."""


class RubricOptions(LanguageOptions):
    """``rubric``'s options."""

    rubric: RubricItems | None = Field(default=None, min_length=1)
    """Items for the rows that carry no ``rubric`` of their own."""
    aggregate: Literal["plain", "healthbench"] = "plain"
    """``plain``: the rate as it is (below 0 with penalties); ``healthbench``: each
    sample's rate clipped to [0, 1]."""
    tags: list[str] = Field(default_factory=lambda: ["axis:", "theme:"])
    """Tag prefixes that get a score of their own (``[]``: none)."""


@register_metric("rubric")
class Rubric(JudgedMetric):
    """Points won over the points possible, one judged item at a time."""

    pipeline_parts = ("end to end",)

    calls_per_sample = "1 per rubric item"
    Options: ClassVar[type[LanguageOptions]] = RubricOptions
    options: RubricOptions

    def __init__(self, *, name: str | None = None, **options: Any) -> None:
        super().__init__(name=name, **options)
        self.requires = ("response",) if self.options.rubric else ("response", "rubric")

    def meanings(self) -> dict[str, ScoreMeaning]:
        """The rate; clipped to [0, 1] under the HealthBench aggregate."""
        return {self.name: self._rate_meaning("score rate: points won / positive points")}

    def _rate_meaning(self, description: str) -> ScoreMeaning:
        low = 0.0 if self.options.aggregate == "healthbench" else None
        return ScoreMeaning(low=low, high=1.0, description=description)

    def score_names_for(self, sample: Sample) -> list[str]:
        """The rate, and one score per tag of the row's items and of the row."""
        return [self.name, *(f"{self.name}/{tag}" for tag in self._tags(sample))]

    def meanings_for(self, samples: Sequence[Sample]) -> dict[str, ScoreMeaning]:
        """The rate and every tag's rate found in ``samples``."""
        found = self.meanings()
        for sample in samples:
            for tag in self._tags(sample):
                found[f"{self.name}/{tag}"] = self._rate_meaning(f"score rate of tag {tag}")
        return found

    def items_for(self, sample: Sample) -> list[RubricItem]:
        """The row's rubric, or the configured one."""
        items = sample.rubric or self.options.rubric
        if not items:
            raise MetricFailure("the row has no rubric items (and the metric sets none)")
        return list(items)

    def _tags(self, sample: Sample) -> list[str]:
        prefixes = tuple(self.options.tags)
        if not prefixes:
            return []
        items = sample.rubric or self.options.rubric or []
        tags = {t for item in items for t in item.tags if t.startswith(prefixes)}
        tags |= {t for t in _row_tags(sample) if t.startswith(prefixes)}
        return sorted(tags)

    async def judge(self, sample: Sample, output: Output, j: Judging) -> list[Score]:
        """One concurrent call per item, then the pure scoring."""
        response = require_response(output)
        items = self.items_for(sample)
        language = prompt_language(self.options.language, sample, output)
        shown = conversation(sample, response)
        asked = [self._ask(j, language, shown, item) for item in items]
        replies = await asyncio.gather(*asked, return_exceptions=True)
        results = _results_or_failure(items, replies)
        return self.scores_of(outcome_of(results), sample)

    async def _ask(
        self, j: Judging, language: str, shown: dict[str, Any], item: RubricItem
    ) -> RubricVerdict:
        verdict = await j.ask(
            RUBRIC_REPLY,
            f"rubric_item.{language}.jinja",
            criterion=item.criterion,
            points=_number(item.points),
            **shown,
        )
        return verdict.value

    def scores_of(self, outcome: RubricOutcome, sample: Sample) -> list[Score]:
        """The rate (clipped under ``aggregate: healthbench``) and the tag rates."""
        details: dict[str, Any] = {**outcome.to_dict(), "aggregate": self.options.aggregate}
        scores = [self._rate_score(self.name, outcome.score_rate, details, _rationale(outcome))]
        item_rates = tag_rates(outcome.results, self.options.tags)
        row_tags = set(_row_tags(sample))
        for tag in self._tags(sample):
            rate = outcome.score_rate if tag in row_tags else item_rates.get(tag)
            scores.append(self._rate_score(f"{self.name}/{tag}", rate, {"tag": tag}, None))
        return scores

    def _rate_score(
        self, name: str, rate: float | None, details: dict[str, Any], rationale: str | None
    ) -> Score:
        if rate is None:
            reason = "no item has positive points: the score rate is undefined"
            return Score(metric=name, value=None, skipped=reason, details=details)
        value = clipped(rate) if self.options.aggregate == "healthbench" else rate
        return Score(metric=name, value=value, rationale=rationale, details=details)


def _results_or_failure(
    items: Sequence[RubricItem], replies: Sequence[RubricVerdict | BaseException]
) -> list[ItemResult]:
    """The items with their verdicts; any failed item fails the sample, keeping the
    judged ones in the details."""
    for reply in replies:
        if isinstance(reply, BaseException) and not isinstance(reply, MetricFailure):
            raise reply
    failures = [(i, r) for i, r in enumerate(replies) if isinstance(r, MetricFailure)]
    if not failures:
        return [
            ItemResult(item, reply.criteria_met, reply.explanation)
            for item, reply in zip(items, replies, strict=True)
            if isinstance(reply, RubricVerdict)
        ]
    judged = [
        ItemResult(item, reply.criteria_met, reply.explanation).to_dict()
        for item, reply in zip(items, replies, strict=True)
        if isinstance(reply, RubricVerdict)
    ]
    first_index, first = failures[0]
    raise MetricFailure(
        f"{len(failures)} of {len(items)} rubric items could not be judged "
        f"(item {first_index + 1}: {first.message})",
        details={
            "result_by_rubrics": judged,
            "failed_items": [
                {"criterion": items[i].criterion, "error": f.message} for i, f in failures
            ],
        },
        call_ids=[c for _, f in failures for c in f.call_ids],
    )


def _rationale(outcome: RubricOutcome) -> str:
    met = sum(r.criteria_met for r in outcome.results)
    return (
        f"{outcome.total_score:g} of {outcome.theoretical_score:g} points; "
        f"{met} of {len(outcome.results)} items met"
    )


def _row_tags(sample: Sample) -> list[str]:
    found = sample.metadata.get(ROW_TAGS)
    return [t for t in found if isinstance(t, str)] if isinstance(found, list) else []


def _number(points: float) -> int | float:
    """Points as the judge should read them: 10, not 10.0."""
    return int(points) if float(points).is_integer() else points

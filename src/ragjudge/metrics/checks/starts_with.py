"""``starts_with``: 1 when the response opens with a given text, or with a reference
answer."""

from __future__ import annotations

from typing import Any

from pydantic import field_validator

from ragjudge.metrics._base import MetricContext, Result, references, require_response
from ragjudge.metrics._registry import register_metric
from ragjudge.metrics.checks._shared import CheckMetric, TextOptions, fold_text, passed
from ragjudge.schema import Output, Sample, ScoreMeaning


class StartsWithOptions(TextOptions):
    """The opening looked for; without ``value``, the row's reference answers."""

    value: str | None = None
    strip: bool = True

    @field_validator("value")
    @classmethod
    def _not_blank(cls, value: str | None) -> str | None:
        if value is not None and not value.strip():
            raise ValueError("is blank: every response starts with it")
        return value


@register_metric("starts_with")
class StartsWith(CheckMetric):
    """1 when the response (leading white space left out, unless ``strip: false``)
    starts with ``value``, or without it with one of the reference answers."""

    Options = StartsWithOptions
    options: StartsWithOptions
    requires: tuple[str, ...] = ("response", "expected_response")
    meaning = ScoreMeaning(binary=True, description="share of responses opening as expected")

    def __init__(self, *, name: str | None = None, **options: Any) -> None:
        super().__init__(name=name, **options)
        if self.options.value is not None:
            self.requires = ("response",)

    def compute_now(self, sample: Sample, output: Output, ctx: MetricContext) -> Result:
        """Pass or fail, with the opening that matched (the first one that does)."""
        response = require_response(output)
        if self.options.strip:
            response = response.lstrip()
        response = fold_text(response, self.options)
        for index, opening in self.openings(sample):
            if response.startswith(fold_text(opening, self.options)):
                return Result(1.0, details={"matched": opening, "reference_index": index})
        return Result(passed(False), details={"matched": None})

    def openings(self, sample: Sample) -> list[tuple[int | None, str]]:
        """The openings accepted: the ``value`` option, else the references."""
        if self.options.value is not None:
            return [(None, self.options.value)]
        strip = self.options.strip
        return [(i, ref.strip() if strip else ref) for i, ref in references(sample)]

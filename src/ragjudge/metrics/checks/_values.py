"""What ``contains_any`` and ``contains_all`` share: the values looked for (given in
the options, taken from a field of the row, or both) and which of them the response
holds."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar, Literal, Self

from pydantic import Field, model_validator

from ragjudge.metrics._base import (
    MetricContext,
    MetricFailure,
    Result,
    require_response,
)
from ragjudge.metrics.checks._shared import CheckMetric, TextOptions, fold_text, passed
from ragjudge.schema import Output, Sample

__all__ = ["ContainsMetric", "ContainsOptions"]

ValueField = Literal["expected_facts", "expected_response"]


class ContainsOptions(TextOptions):
    """The values to look for: ``values`` and/or the row's ``values_from`` field."""

    values: list[str] = Field(default_factory=list)
    values_from: ValueField | None = None

    @model_validator(mode="after")
    def _names_some_values(self) -> Self:
        if not self.values and self.values_from is None:
            raise ValueError(
                "give 'values' (a list of texts) or 'values_from' (a field of the row)"
            )
        if any(not value.strip() for value in self.values):
            raise ValueError("'values' holds a blank text, which every response contains")
        return self


class ContainsMetric(CheckMetric):
    """Base of the checks that look for values in the response."""

    Options = ContainsOptions
    options: ContainsOptions
    example_options: ClassVar[Mapping[str, Any]] = {"values": ["UNION"]}

    def __init__(self, *, name: str | None = None, **options: Any) -> None:
        super().__init__(name=name, **options)
        if self.options.values_from is not None:
            self.requires = ("response", self.options.values_from)

    def compute_now(self, sample: Sample, output: Output, ctx: MetricContext) -> Result:
        """Pass or fail by :meth:`decide`, with the values found and missing."""
        response = fold_text(require_response(output), self.options)
        wanted = self.values_of(sample)
        found = [value for value in wanted if fold_text(value, self.options) in response]
        missing = [value for value in wanted if value not in found]
        return Result(
            passed(self.decide(len(found), len(wanted))),
            details={"found": found, "missing": missing},
        )

    def values_of(self, sample: Sample) -> list[str]:
        """The values looked for in ``sample``'s response: the options', then the
        row's, each once; :class:`MetricFailure` when there are none."""
        own: list[str] = list(self.options.values)
        if self.options.values_from is not None:
            own += [
                value for value in _field_values(sample, self.options.values_from) if value.strip()
            ]
        if not own:
            raise MetricFailure(
                f"no values to look for: the row's {self.options.values_from} is empty"
            )
        return list(dict.fromkeys(own))

    def decide(self, found: int, wanted: int) -> bool:
        """Whether ``found`` of ``wanted`` values is a pass."""
        raise NotImplementedError


def _field_values(sample: Sample, field: ValueField) -> list[str]:
    if field == "expected_response":
        return sample.references
    return sample.expected_facts or []

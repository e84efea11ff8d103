"""``cost``: the dollars the system under test spent on a sample's tokens, or whether
they stayed within ``max_dollars``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar, Self

from pydantic import Field, field_validator, model_validator

from ragjudge.metrics._base import MetricFailure, MetricOptions
from ragjudge.metrics._registry import register_metric
from ragjudge.metrics.checks._usage import MeasuredMetric
from ragjudge.models._pricing import ModelPrice, PriceTable
from ragjudge.schema import Output, ScoreMeaning


class CostOptions(MetricOptions):
    """The price of the target's tokens (``input_price`` and ``output_price`` in
    dollars per million tokens, or the published price of ``model``) and the most
    dollars a pass may cost (none: the dollars are the score)."""

    input_price: float | None = Field(default=None, ge=0)
    output_price: float | None = Field(default=None, ge=0)
    model: str | None = None
    max_dollars: float | None = Field(default=None, ge=0)

    @field_validator("model")
    @classmethod
    def _has_a_price(cls, model: str | None) -> str | None:
        if model is not None and published_price(model) is None:
            raise ValueError(
                f"the published price list has no price for {model!r}; give input_price "
                "and output_price (dollars per million tokens)"
            )
        return model

    @model_validator(mode="after")
    def _priced_once(self) -> Self:
        given = (self.input_price is not None, self.output_price is not None)
        if given[0] != given[1]:
            raise ValueError("give both input_price and output_price")
        if given[0] == (self.model is not None):
            raise ValueError(
                "give the price as input_price and output_price, or as a model's published "
                "price (model), one of them"
            )
        return self

    def price(self) -> ModelPrice:
        """The price per million tokens the options give."""
        if self.input_price is not None and self.output_price is not None:
            return ModelPrice(input=self.input_price, output=self.output_price)
        found = published_price(self.model or "")
        assert found is not None  # _has_a_price saw to it
        return found


def published_price(model: str) -> ModelPrice | None:
    """The published price of ``model``, or None when the list does not know it."""
    return PriceTable(published=True).price(model)


@register_metric("cost")
class Cost(MeasuredMetric):
    """The dollars of the tokens the target reported for the sample (its usage, or the
    model spans of its trace) at the given price, lower is better; with
    ``max_dollars``, 1 when within it."""

    Options = CostOptions
    options: CostOptions
    example_options: ClassVar[Mapping[str, Any]] = {"input_price": 0.15, "output_price": 0.6}
    unit = "dollars"
    meaning = raw_meaning = ScoreMeaning(
        direction="lower", low=0, high=None, description="dollars the target's tokens cost"
    )
    within_meaning = ScoreMeaning(binary=True, description="share of answers within the cost limit")

    def limit(self) -> float | None:
        """``max_dollars``."""
        return self.options.max_dollars

    def amount(self, output: Output) -> float:
        """The output's tokens at the price; :class:`MetricFailure` without usage."""
        if output.usage.total_tokens == 0:
            raise MetricFailure("the target reported no token usage for this sample")
        return self.options.price().cost(output.usage)

"""What the lexical metrics share: compare the response with every reference answer
and keep the best comparison.

Every lexical metric needs a ``response`` and an ``expected_response`` (one or more
reference answers), scores the response against each reference and keeps the best;
``details["reference_index"]`` names that reference (its position in
``expected_response``; the first one on ties). They make no judge calls.

An empty response is a legitimate, wrong answer and scores 0 (no match). A missing
response, or references that are all empty, give an error score instead. A reference
left with nothing to compare after the metric's normalisation (say ``"。"`` for a
token metric) is skipped; when every reference is skipped the score is an error.
"""

from __future__ import annotations

from abc import abstractmethod
from collections import Counter
from collections.abc import Iterable
from typing import Any, ClassVar, NamedTuple

from ragjudge.metrics._base import (
    Metric,
    MetricContext,
    MetricFailure,
    MetricOptions,
    Result,
    references,
    require_response,
)
from ragjudge.schema import Output, Sample, ScoreMeaning

__all__ = ["Comparison", "NormalizeOptions", "ReferenceMetric", "as_score", "overlap"]


class Comparison(NamedTuple):
    """The response compared with one reference: the value and its components."""

    value: float
    components: dict[str, Any]


class NormalizeOptions(MetricOptions):
    """Whether both texts are normalised before they are compared."""

    normalize: bool = True


class ReferenceMetric(Metric):
    """Base for metrics that compare the response with each reference answer."""

    requires: tuple[str, ...] = ("response", "expected_response")
    meaning: ClassVar[ScoreMeaning] = ScoreMeaning(low=0, high=1)

    async def compute(self, sample: Sample, output: Output, ctx: MetricContext) -> Result:
        """Score the response against every reference and keep the best comparison."""
        response = require_response(output)
        scored = [
            (index, comparison)
            for index, reference in references(sample)
            if (comparison := self.compare(response, reference)) is not None
        ]
        if not scored:
            raise MetricFailure("no reference answer has anything to compare after normalisation")
        index, best = max(scored, key=lambda pair: pair[1].value)
        return Result(best.value, details={"reference_index": index, **best.components})

    @abstractmethod
    def compare(self, response: str, reference: str) -> Comparison | None:
        """Compare the response with one non-blank reference; None skips the reference."""


def overlap(answer: Iterable[str], wanted: Iterable[str]) -> int:
    """Tokens shared by both sequences, each counted at most as often as on either side."""
    return sum((Counter(answer) & Counter(wanted)).values())


def as_score(matched: bool) -> float:
    """1.0 for a match, 0.0 otherwise."""
    return 1.0 if matched else 0.0

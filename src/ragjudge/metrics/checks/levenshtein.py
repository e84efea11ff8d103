"""``levenshtein``: how close the response is to a reference answer in edits,
``1 − distance / max(len)``, best over the references."""

from __future__ import annotations

from typing import ClassVar

from ragjudge.metrics._base import MetricContext, Result, references, require_response
from ragjudge.metrics._registry import register_metric
from ragjudge.metrics.checks._shared import CheckMetric, TextOptions, fold_text
from ragjudge.schema import Output, Sample, ScoreMeaning

__all__ = ["Levenshtein", "levenshtein_distance", "similarity"]


@register_metric("levenshtein")
class Levenshtein(CheckMetric):
    """Normalised Levenshtein similarity of the response and the closest reference:
    1 − (insertions, deletions and substitutions of characters) / (characters of the
    longer text)."""

    Options = TextOptions
    options: TextOptions
    requires: tuple[str, ...] = ("response", "expected_response")
    meaning: ClassVar[ScoreMeaning] = ScoreMeaning(
        description="edit similarity to the closest reference (1 − distance / longer length)"
    )

    def compute_now(self, sample: Sample, output: Output, ctx: MetricContext) -> Result:
        """The best similarity, with its reference's position and edit distance."""
        response = fold_text(require_response(output), self.options)
        compared = [
            (index, levenshtein_distance(response, wanted), max(len(response), len(wanted)))
            for index, reference in references(sample)
            for wanted in [fold_text(reference, self.options)]
        ]
        index, distance, longest = max(compared, key=lambda c: similarity(c[1], c[2]))
        return Result(
            similarity(distance, longest),
            details={"reference_index": index, "distance": distance},
        )


def similarity(distance: int, longest: int) -> float:
    """``1 − distance / longest``; two empty texts are the same (1)."""
    return 1.0 if longest == 0 else 1.0 - distance / longest


def levenshtein_distance(first: str, second: str) -> int:
    """The least number of single-character insertions, deletions and substitutions
    that turn ``first`` into ``second``."""
    start = 0
    while start < min(len(first), len(second)) and first[start] == second[start]:
        start += 1
    first, second = first[start:], second[start:]
    while first and second and first[-1] == second[-1]:
        first, second = first[:-1], second[:-1]
    if len(first) < len(second):
        first, second = second, first  # the shorter text spans the row
    previous = list(range(len(second) + 1))
    for i, left in enumerate(first, start=1):
        current = [i]
        for j, right in enumerate(second, start=1):
            current.append(
                min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (left != right))
            )
        previous = current
    return previous[-1]

"""``fuzzy_match``: 1.0 when either normalised text contains the other (openai-evals
``FuzzyMatch``)."""

from __future__ import annotations

from ragjudge.metrics._registry import register_metric
from ragjudge.metrics.lexical._reference import (
    Comparison,
    ReferenceMetric,
    TextForms,
    as_score,
)


@register_metric("fuzzy_match")
class FuzzyMatch(ReferenceMetric):
    """1.0 when, after :func:`~ragjudge.text._normalise.normalize_answer`, either string contains
    the other (the openai-evals ``FuzzyMatch`` template).

    A response that normalises to nothing matches no reference.
    """

    def compare_forms(self, response: TextForms, reference: TextForms) -> Comparison | None:
        """Check containment in either direction."""
        answer, wanted = response.answer, reference.answer
        if not wanted:
            return None
        # "" is inside every string, so an empty answer needs its own test.
        return Comparison(as_score(bool(answer) and (wanted in answer or answer in wanted)), {})

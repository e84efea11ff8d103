"""``fuzzy_match``: 1.0 when either normalised text contains the other (openai-evals
``FuzzyMatch``)."""

from __future__ import annotations

from ragjudge.metrics._registry import register_metric
from ragjudge.metrics.lexical._reference import Comparison, ReferenceMetric, as_score
from ragjudge.text import normalize_answer


@register_metric("fuzzy_match")
class FuzzyMatch(ReferenceMetric):
    """1.0 when, after :func:`~ragjudge.text.normalize_answer`, either string contains
    the other (the openai-evals ``FuzzyMatch`` template).

    A response that normalises to nothing matches no reference.
    """

    def compare(self, response: str, reference: str) -> Comparison | None:
        """Check containment in either direction."""
        answer, wanted = normalize_answer(response), normalize_answer(reference)
        if not wanted:
            return None
        # "" is inside every string, so an empty answer needs its own test.
        return Comparison(as_score(bool(answer) and (wanted in answer or answer in wanted)), {})

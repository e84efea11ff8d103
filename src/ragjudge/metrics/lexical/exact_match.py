"""``exact_match``: 1.0 when the response equals a reference."""

from __future__ import annotations

from ragjudge.metrics._registry import register_metric
from ragjudge.metrics.lexical._reference import (
    Comparison,
    NormalizeOptions,
    ReferenceMetric,
    TextForms,
    as_score,
)


@register_metric("exact_match")
class ExactMatch(ReferenceMetric):
    """1.0 when the response equals a reference.

    With ``normalize`` (the default) both sides go through SQuAD-style
    :func:`~ragjudge.text._normalise.normalize_answer` first; otherwise the stripped strings are
    compared as they are.
    """

    Options = NormalizeOptions
    options: NormalizeOptions

    def compare_forms(self, response: TextForms, reference: TextForms) -> Comparison | None:
        """Compare the (normalised) strings for equality."""
        if self.options.normalize:
            answer, wanted = response.answer, reference.answer
        else:
            answer, wanted = response.text.strip(), reference.text.strip()
        if not wanted:
            return None
        return Comparison(as_score(answer == wanted), {})

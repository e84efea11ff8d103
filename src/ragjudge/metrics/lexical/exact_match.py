"""``exact_match``: 1.0 when the response equals a reference."""

from __future__ import annotations

from ragjudge.metrics._registry import register_metric
from ragjudge.metrics.lexical._reference import (
    Comparison,
    NormalizeOptions,
    ReferenceMetric,
    as_score,
)
from ragjudge.text import normalize_answer


@register_metric("exact_match")
class ExactMatch(ReferenceMetric):
    """1.0 when the response equals a reference.

    With ``normalize`` (the default) both sides go through SQuAD-style
    :func:`~ragjudge.text.normalize_answer` first; otherwise the stripped strings are
    compared as they are.
    """

    Options = NormalizeOptions
    options: NormalizeOptions

    def compare(self, response: str, reference: str) -> Comparison | None:
        """Compare the (normalised) strings for equality."""
        prepare = normalize_answer if self.options.normalize else str.strip
        wanted = prepare(reference)
        if not wanted:
            return None
        return Comparison(as_score(prepare(response) == wanted), {})

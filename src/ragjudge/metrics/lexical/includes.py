"""``includes``: 1.0 when a reference occurs inside the response (openai-evals
``Includes``)."""

from __future__ import annotations

from ragjudge.metrics._registry import register_metric
from ragjudge.metrics.lexical._reference import (
    Comparison,
    NormalizeOptions,
    ReferenceMetric,
    TextForms,
    as_score,
)


@register_metric("includes")
class Includes(ReferenceMetric):
    """1.0 when a reference occurs anywhere inside the response.

    This is the openai-evals ``Includes`` template. With ``normalize`` (the default)
    both sides go through :func:`~ragjudge.text._normalise.normalize` (NFKC, lowercase, collapsed
    whitespace) first; otherwise the stripped reference is searched for as it is.
    """

    Options = NormalizeOptions
    options: NormalizeOptions

    def compare_forms(self, response: TextForms, reference: TextForms) -> Comparison | None:
        """Check whether the reference is a substring of the response."""
        if self.options.normalize:
            haystack, needle = response.normalized, reference.normalized
        else:
            haystack, needle = response.text.strip(), reference.text.strip()
        if not needle:
            return None
        return Comparison(as_score(needle in haystack), {})

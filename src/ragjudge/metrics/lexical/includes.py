"""``includes``: 1.0 when a reference occurs inside the response (openai-evals
``Includes``)."""

from __future__ import annotations

from ragjudge.metrics._registry import register_metric
from ragjudge.metrics.lexical._reference import (
    Comparison,
    NormalizeOptions,
    ReferenceMetric,
    as_score,
)
from ragjudge.text import normalize


@register_metric("includes")
class Includes(ReferenceMetric):
    """1.0 when a reference occurs anywhere inside the response.

    This is the openai-evals ``Includes`` template. With ``normalize`` (the default)
    both sides go through :func:`~ragjudge.text.normalize` (NFKC, lowercase, collapsed
    whitespace) first; otherwise the stripped reference is searched for as it is.
    """

    Options = NormalizeOptions
    options: NormalizeOptions

    def compare(self, response: str, reference: str) -> Comparison | None:
        """Check whether the reference is a substring of the response."""
        prepare = normalize if self.options.normalize else str.strip
        needle = prepare(reference)
        if not needle:
            return None
        return Comparison(as_score(needle in prepare(response)), {})

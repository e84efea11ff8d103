"""``match``: 1.0 when the response starts with a reference (openai-evals ``Match``)."""

from __future__ import annotations

from ragjudge.metrics._registry import register_metric
from ragjudge.metrics.lexical._reference import (
    Comparison,
    NormalizeOptions,
    ReferenceMetric,
    TextForms,
    as_score,
)
from ragjudge.text._normalise import normalize


class MatchOptions(NormalizeOptions):
    """``normalize`` is off by default, as in openai-evals."""

    normalize: bool = False


@register_metric("match")
class Match(ReferenceMetric):
    """1.0 when the left-stripped response starts with a (stripped) reference.

    This is the openai-evals ``Match`` template. Its description writes
    ``b.startswith(a)`` for completion ``a`` and reference ``b``, but its code checks
    that the completion starts with the reference, and ragjudge follows the code.
    With ``normalize`` both sides go through :func:`~ragjudge.text._normalise.normalize` first.
    """

    Options = MatchOptions
    options: MatchOptions

    def compare_forms(self, response: TextForms, reference: TextForms) -> Comparison | None:
        """Check whether the response begins with the reference."""
        text, prefix = response.text.lstrip(), reference.text.strip()
        if self.options.normalize:
            text, prefix = normalize(text), normalize(prefix)
        if not prefix:
            return None
        return Comparison(as_score(text.startswith(prefix)), {})

"""``match``: 1.0 when the response starts with a reference (openai-evals ``Match``), or,
with ``direction: reference_starts_with_response``, when a reference starts with the
response."""

from __future__ import annotations

from typing import Literal

from ragjudge.metrics._registry import register_metric
from ragjudge.metrics.lexical._reference import (
    Comparison,
    NormalizeOptions,
    ReferenceMetric,
    TextForms,
    as_score,
)
from ragjudge.text._normalise import normalize

Direction = Literal["response_starts_with_reference", "reference_starts_with_response"]


class MatchOptions(NormalizeOptions):
    """``normalize`` is off by default, as in openai-evals."""

    normalize: bool = False
    direction: Direction = "response_starts_with_reference"
    """Which text must begin with the other: the response with a reference ("Paris is
    the capital" matches the reference "Paris"), or a reference with the response
    ("Paris" matches the reference "Paris is the capital")."""


@register_metric("match")
class Match(ReferenceMetric):
    """1.0 when the left-stripped response starts with a (stripped) reference.

    This is the openai-evals ``Match`` template. Its description writes
    ``b.startswith(a)`` for completion ``a`` and reference ``b``, but its code checks
    that the completion starts with the reference, and ragjudge follows the code by
    default; ``direction: reference_starts_with_response`` checks the description's
    way (an empty response then still scores 0). With ``normalize`` both sides go
    through :func:`~ragjudge.text._normalise.normalize` first.
    """

    Options = MatchOptions
    options: MatchOptions

    def compare_forms(self, response: TextForms, reference: TextForms) -> Comparison | None:
        """Check whether one text begins with the other, in the option's direction."""
        answer, wanted = response.text.strip(), reference.text.strip()
        if self.options.normalize:
            answer, wanted = normalize(answer), normalize(wanted)
        if not wanted:
            return None
        if self.options.direction == "reference_starts_with_response":
            return Comparison(as_score(bool(answer) and wanted.startswith(answer)), {})
        return Comparison(as_score(answer.startswith(wanted)), {})

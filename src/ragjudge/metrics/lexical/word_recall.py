"""``word_recall``: the share of the reference's words found in the response."""

from __future__ import annotations

from ragjudge.metrics._registry import register_metric
from ragjudge.metrics.lexical._reference import (
    Comparison,
    ReferenceMetric,
    TextForms,
    overlap,
)


@register_metric("word_recall")
class WordRecall(ReferenceMetric):
    """The share of the reference's word tokens found in the response.

    Tokens come from :func:`~ragjudge.text._normalise.tokenize` (Japanese is segmented into
    words). A token repeated in the reference counts as often as it appears there, but
    is found at most as often as it appears in the response.
    """

    def compare_forms(self, response: TextForms, reference: TextForms) -> Comparison | None:
        """Count the reference tokens the response contains."""
        wanted = reference.tokens
        if not wanted:
            return None
        found = overlap(response.token_counts, reference.token_counts)
        recall = found / len(wanted)
        return Comparison(recall, {"recall": recall, "matched_tokens": found})

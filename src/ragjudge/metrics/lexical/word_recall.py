"""``word_recall``: the share of the reference's words found in the response."""

from __future__ import annotations

from ragjudge.metrics._registry import register_metric
from ragjudge.metrics.lexical._reference import Comparison, ReferenceMetric, overlap
from ragjudge.text import tokenize


@register_metric("word_recall")
class WordRecall(ReferenceMetric):
    """The share of the reference's word tokens found in the response.

    Tokens come from :func:`~ragjudge.text.tokenize` (Japanese is segmented into
    words). A token repeated in the reference counts as often as it appears there, but
    is found at most as often as it appears in the response.
    """

    def compare(self, response: str, reference: str) -> Comparison | None:
        """Count the reference tokens the response contains."""
        wanted = tokenize(reference)
        if not wanted:
            return None
        found = overlap(tokenize(response), wanted)
        recall = found / len(wanted)
        return Comparison(recall, {"recall": recall, "matched_tokens": found})

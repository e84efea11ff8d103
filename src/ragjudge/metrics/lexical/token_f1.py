"""``token_f1``: SQuAD-style token F1 between the response and a reference."""

from __future__ import annotations

from ragjudge.metrics._registry import register_metric
from ragjudge.metrics.lexical._reference import (
    Comparison,
    ReferenceMetric,
    TextForms,
    overlap,
)


@register_metric("token_f1")
class TokenF1(ReferenceMetric):
    """SQuAD-style token F1 between the response and a reference.

    Both are normalised with :func:`~ragjudge.text._normalise.normalize_answer` and split with
    :func:`~ragjudge.text._normalise.tokenize`; the overlap counts each token at most as often as
    it appears on both sides.
    """

    def compare_forms(self, response: TextForms, reference: TextForms) -> Comparison | None:
        """Compute token precision, recall and their harmonic mean."""
        wanted = reference.answer_tokens
        if not wanted:
            return None
        answer = response.answer_tokens
        common = overlap(response.answer_token_counts, reference.answer_token_counts)
        if common == 0:
            return Comparison(0.0, {"precision": 0.0, "recall": 0.0})
        precision = common / len(answer)
        recall = common / len(wanted)
        f1 = 2 * precision * recall / (precision + recall)
        return Comparison(f1, {"precision": precision, "recall": recall})

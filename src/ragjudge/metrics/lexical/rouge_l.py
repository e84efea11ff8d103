"""``rouge_l``: ROUGE-L F-measure over word tokens (Japanese segmented into words)."""

from __future__ import annotations

from collections.abc import Sequence

from ragjudge.metrics._registry import register_metric
from ragjudge.metrics.lexical._reference import Comparison, ReferenceMetric, TextForms


@register_metric("rouge_l")
class RougeL(ReferenceMetric):
    """ROUGE-L F-measure (longest common subsequence of word tokens).

    Precision is the LCS length over the response's tokens, recall over the
    reference's, and the F-measure their harmonic mean — the ``rougeL`` score of the
    ``rouge-score`` library, computed on :func:`~ragjudge.text._normalise.tokenize` tokens (shared
    with the other lexical metrics of the sample), so Japanese text, which the
    library's own tokenizer drops, gives meaningful values.
    """

    def compare_forms(self, response: TextForms, reference: TextForms) -> Comparison | None:
        """Score the response against the reference with ROUGE-L."""
        wanted = reference.tokens
        if not wanted:
            return None
        answer = response.tokens
        if not answer:
            return Comparison(0.0, {"precision": 0.0, "recall": 0.0})
        common = lcs_length(wanted, answer)
        precision = common / len(answer)
        recall = common / len(wanted)
        fmeasure = 2 * precision * recall / (precision + recall) if precision + recall > 0 else 0.0
        return Comparison(fmeasure, {"precision": precision, "recall": recall})


def lcs_length(first: Sequence[str], second: Sequence[str]) -> int:
    """The length of the longest common subsequence of two token sequences.

    Bit-parallel: bit ``i`` of an integer stands for position ``i`` of ``first``, and
    each token of ``second`` updates the row of the dynamic-programming table in a few
    integer operations (Allison and Dix, 1986), so the table is never built.
    """
    positions: dict[str, int] = {}
    bit = 1
    for token in first:
        positions[token] = positions.get(token, 0) | bit
        bit <<= 1
    row = bit - 1
    # a token that ``first`` lacks leaves the row as it is: only shared ones update it
    for matches in [positions[token] for token in second if token in positions]:
        matches &= row
        row = (row + matches) | (row - matches)
    return len(first) - (row & (bit - 1)).bit_count()

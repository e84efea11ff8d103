"""``rouge_l``: ROUGE-L F-measure over word tokens (Japanese segmented into words)."""

from __future__ import annotations

from functools import cache
from typing import Any

from ragjudge.metrics._registry import register_metric
from ragjudge.metrics.lexical._reference import Comparison, ReferenceMetric
from ragjudge.text import tokenize


@register_metric("rouge_l")
class RougeL(ReferenceMetric):
    """ROUGE-L F-measure (longest common subsequence of word tokens).

    Computed by the ``rouge-score`` library with :func:`~ragjudge.text.tokenize` as
    its tokenizer, so Japanese text, which the library's own tokenizer drops, gives
    meaningful values.
    """

    def compare(self, response: str, reference: str) -> Comparison | None:
        """Score the response against the reference with ROUGE-L."""
        if not tokenize(reference):
            return None
        result = _rouge_l_scorer().score(reference, response)["rougeL"]
        details = {"precision": float(result.precision), "recall": float(result.recall)}
        return Comparison(float(result.fmeasure), details)


class _RougeTokenizer:
    """Adapter giving ``rouge-score`` the ``tokenize(text)`` method it expects."""

    def tokenize(self, text: str) -> list[str]:
        return tokenize(text)


@cache
def _rouge_l_scorer() -> Any:
    # Imported on first use: rouge-score pulls in nltk, which takes about a second.
    from rouge_score import rouge_scorer

    return rouge_scorer.RougeScorer(["rougeL"], tokenizer=_RougeTokenizer())

"""``bleu``: sentence-level BLEU of the response against every reference answer (sacrebleu)."""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING, Literal

from ragjudge.metrics._base import Metric, MetricContext, Result
from ragjudge.metrics._registry import register_metric
from ragjudge.metrics.lexical._sacrebleu import (
    SacrebleuOptions,
    sacrebleu_result,
    tokenized_texts,
)
from ragjudge.schema import Output, Sample, ScoreMeaning

if TYPE_CHECKING:
    from sacrebleu.metrics.bleu import BLEU


class BleuOptions(SacrebleuOptions):
    """``bleu``'s options: the tokeniser, case, and how a missing n-gram match is smoothed."""

    smooth: Literal["exp", "floor", "add-k", "none"] = "exp"


@register_metric("bleu")
class Bleu(Metric):
    """Sentence-level BLEU on a 0–1 scale (sacrebleu's score divided by 100).

    The geometric mean of the clipped 1- to 4-gram precisions times the brevity
    penalty ``min(1, exp(1 − r/c))`` (``c`` the response's words, ``r`` the length of
    the reference closest to it). Several references are used together, as BLEU
    defines: an n-gram counts up to the most times any one reference holds it. Orders
    with no n-gram in the response are left out and a precision of zero is smoothed
    (``smooth``, sacrebleu's sentence-level defaults), so short answers do not score
    0 for a missing 4-gram alone.
    """

    Options = BleuOptions
    options: BleuOptions
    pipeline_parts = ("end to end",)
    requires: tuple[str, ...] = ("response", "expected_response")
    meaning = ScoreMeaning(low=0, high=1, description="BLEU of the response (0–1)")
    inline = True

    def compute_now(self, sample: Sample, output: Output, ctx: MetricContext) -> Result:
        """BLEU of the response against all the references."""
        texts = tokenized_texts(sample, output, self.options.tokenize)
        scorer = _scorer(texts.sacrebleu_tokenizer, self.options.lowercase, self.options.smooth)
        score = scorer.sentence_score(texts.response, texts.references)
        return sacrebleu_result(
            score.score,
            texts,
            brevity_penalty=score.bp,
            **{f"precision_{n + 1}": p / 100 for n, p in enumerate(score.precisions)},
        )


@lru_cache(maxsize=16)
def _scorer(tokenizer: str, lowercase: bool, smooth: str) -> BLEU:
    from sacrebleu.metrics.bleu import BLEU

    return BLEU(tokenize=tokenizer, lowercase=lowercase, smooth_method=smooth, effective_order=True)

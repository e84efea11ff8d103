"""``chrf``: sentence-level chrF of the response against the reference answers (sacrebleu)."""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING, Annotated

from pydantic import Field

from ragjudge.metrics._base import (
    Metric,
    MetricContext,
    MetricOptions,
    Result,
    references,
    require_response,
)
from ragjudge.metrics._registry import register_metric
from ragjudge.metrics.lexical._sacrebleu import (
    sacrebleu_result,
    tokenized_texts,
    unit_scale,
)
from ragjudge.schema import Output, Sample, ScoreMeaning

if TYPE_CHECKING:
    from sacrebleu.metrics.chrf import CHRF


class ChrfOptions(MetricOptions):
    """``chrf``'s options: case, the weight of recall, and word n-grams (chrF++)."""

    lowercase: bool = False
    beta: Annotated[int, Field(ge=1)] = 2
    word_order: Annotated[int, Field(ge=0, le=2)] = 0


@register_metric("chrf")
class Chrf(Metric):
    """Sentence-level chrF on a 0–1 scale (sacrebleu's score divided by 100).

    The F-score (recall weighted ``beta`` times precision) of character 1- to 6-grams,
    averaged over the orders, with spaces removed; ``word_order: 2`` adds word 1- and
    2-grams (chrF++), words of Japanese text segmented with MeCab. Characters need no
    word splitting, so Japanese text scores sensibly as it is. With several references
    the best one counts, as sacrebleu's sentence-level chrF does.
    """

    Options = ChrfOptions
    options: ChrfOptions
    pipeline_parts = ("end to end",)
    requires: tuple[str, ...] = ("response", "expected_response")
    meaning = ScoreMeaning(low=0, high=1, description="chrF of the response (0–1)")
    inline = True

    def compute_now(self, sample: Sample, output: Output, ctx: MetricContext) -> Result:
        """chrF of the response against the best reference."""
        scorer = _scorer(self.options.lowercase, self.options.beta, self.options.word_order)
        if not self.options.word_order:
            response = require_response(output)
            refs = [reference for _, reference in references(sample)]
            return Result(unit_scale(scorer.sentence_score(response, refs).score))
        # Word n-grams need words: Japanese text is segmented for chrF++.
        texts = tokenized_texts(sample, output, "auto")
        score = scorer.sentence_score(texts.response, texts.references)
        return sacrebleu_result(score.score, texts)


@lru_cache(maxsize=16)
def _scorer(lowercase: bool, beta: int, word_order: int) -> CHRF:
    from sacrebleu.metrics.chrf import CHRF

    return CHRF(lowercase=lowercase, beta=beta, word_order=word_order)

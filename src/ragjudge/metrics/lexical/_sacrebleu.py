"""What ``bleu`` and ``chrf`` share: their options, the choice of tokeniser by the
text's language, and the reference answers handed to ``sacrebleu`` together.

``sacrebleu``'s own Japanese tokeniser needs MeCab packages that the core install does
not carry, so Japanese text is segmented here with the tokeniser of
:mod:`ragjudge.text` (MeCab with UniDic) and handed over already split.
"""

from __future__ import annotations

import unicodedata
from typing import Literal

from ragjudge.metrics._base import MetricOptions, Result, references, require_response
from ragjudge.schema import Output, Sample
from ragjudge.text._normalise import contains_kana, tokens_of_folded

__all__ = [
    "SacrebleuOptions",
    "TokenizedTexts",
    "Tokenizer",
    "sacrebleu_result",
    "tokenized_texts",
    "unit_scale",
]

Tokenizer = Literal["auto", "13a", "intl", "char", "japanese"]
"""How texts are split into words: ``japanese`` segments them with MeCab; ``13a``
(sacrebleu's default for English), ``intl`` (splits at Unicode punctuation) and
``char`` (every character a word) are sacrebleu's; ``auto`` takes ``japanese`` when the
response or a reference holds kana and ``13a`` otherwise."""


class SacrebleuOptions(MetricOptions):
    """The options ``bleu`` and ``chrf`` share."""

    tokenize: Tokenizer = "auto"
    lowercase: bool = False


class TokenizedTexts:
    """The response and the non-blank references, ready for sacrebleu: ``sacrebleu_tokenizer``
    is the tokeniser sacrebleu applies (``none`` when the texts were segmented here)."""

    def __init__(self, response: str, refs: list[str], tokenizer: str, chosen: str) -> None:
        self.response = response
        self.references = refs
        self.sacrebleu_tokenizer = tokenizer
        self.chosen = chosen
        """The tokeniser used, as the option names it (``auto`` resolved)."""


def tokenized_texts(sample: Sample, output: Output, tokenize: Tokenizer) -> TokenizedTexts:
    """The sample's texts for sacrebleu under the ``tokenize`` option."""
    response = require_response(output)
    refs = [reference for _, reference in references(sample)]
    chosen = _resolved(tokenize, [response, *refs])
    if chosen != "japanese":
        return TokenizedTexts(response, refs, chosen, chosen)
    segmented = [_segmented(text) for text in refs]
    return TokenizedTexts(_segmented(response), segmented, "none", chosen)


def _resolved(tokenize: Tokenizer, texts: list[str]) -> str:
    if tokenize != "auto":
        return tokenize
    return "japanese" if any(contains_kana(text) for text in texts) else "13a"


def _segmented(text: str) -> str:
    """The text's words joined by spaces: NFKC-folded widths, case kept (the
    ``lowercase`` option decides), punctuation kept as words of its own."""
    return " ".join(tokens_of_folded(unicodedata.normalize("NFKC", text), keep_punct=True))


def sacrebleu_result(score: float, texts: TokenizedTexts, **components: float) -> Result:
    """A 0–1 result from sacrebleu's 0–100 score, with the tokeniser used."""
    return Result(unit_scale(score), details={"tokenize": texts.chosen, **components})


def unit_scale(score: float) -> float:
    """sacrebleu's 0–100 score on the 0–1 scale; its rounding can pass 100 by a hair
    (``1.0000000000000004``), which the declared range does not allow."""
    return min(max(score / 100, 0.0), 1.0)

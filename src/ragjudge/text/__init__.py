"""Language-aware text handling shared by the metrics, the knowledge base and the
readers: normalisation, tokenisation (MeCab for Japanese), sentence splitting.

It imports nothing else of ragjudge.
"""

from __future__ import annotations

from ragjudge.text._normalise import (
    answer_of_folded,
    contains_cjk,
    fold,
    normalize,
    normalize_answer,
    split_sentences,
    tokenize,
    tokens_of_answer,
    tokens_of_folded,
)

__all__ = [
    "answer_of_folded",
    "contains_cjk",
    "fold",
    "normalize",
    "normalize_answer",
    "split_sentences",
    "tokenize",
    "tokens_of_answer",
    "tokens_of_folded",
]

"""Matching the sentences a judge extracted to the sentences of the contexts.

A judge asked to copy sentences often changes them a little: it drops a bracket,
rewrites a date, joins a clause, swaps full-width and half-width characters. A sentence
first matches a context sentence when both are equal once normalised (Unicode NFKC,
case, whitespace and punctuation ignored); else it matches the context sentence whose
words it shares most, when that share (the Dice coefficient of the two bags of words,
Japanese segmented into words by MeCab) reaches the threshold. A sentence matching no
context sentence is the judge's own text and is not counted.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from ragjudge.text._normalise import normalize_answer, tokenize

DEFAULT_THRESHOLD = 0.7


@dataclass(frozen=True)
class SentenceMatch:
    """One extracted sentence and the context sentence it matched (``index`` into the
    context sentences, None when it matched none) with the similarity of the two."""

    sentence: str
    index: int | None
    similarity: float


def sentence_key(sentence: str) -> str:
    """The sentence compared ignoring case, width, whitespace and punctuation."""
    return "".join(normalize_answer(sentence).split())


def word_similarity(first: Counter[str], second: Counter[str]) -> float:
    """The Dice coefficient of two bags of words: twice the shared words over all."""
    total = sum(first.values()) + sum(second.values())
    if total == 0:
        return 0.0
    return 2 * sum((first & second).values()) / total


class ContextSentences:
    """The context sentences, with their keys and words computed once for matching."""

    def __init__(self, sentences: Sequence[str]) -> None:
        self.sentences = list(sentences)
        self._index_of_key: dict[str, int] = {}
        for index, sentence in enumerate(self.sentences):
            self._index_of_key.setdefault(sentence_key(sentence), index)
        self._words = [Counter(tokenize(s)) for s in self.sentences]

    def match(self, sentence: str, threshold: float = DEFAULT_THRESHOLD) -> SentenceMatch:
        """The context sentence ``sentence`` matches: an equal one once normalised, else
        the most similar in words when the similarity reaches ``threshold``."""
        exact = self._index_of_key.get(sentence_key(sentence))
        if exact is not None:
            return SentenceMatch(sentence, exact, 1.0)
        words = Counter(tokenize(sentence))
        similarities = [word_similarity(words, other) for other in self._words]
        if not similarities:
            return SentenceMatch(sentence, None, 0.0)
        best = max(range(len(similarities)), key=similarities.__getitem__)
        similarity = round(similarities[best], 4)
        return SentenceMatch(sentence, best if similarity >= threshold else None, similarity)

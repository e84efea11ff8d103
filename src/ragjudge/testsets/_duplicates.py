"""The near-duplicate filter: a candidate that asks what a kept sample already asks is
dropped.

Two samples are compared twice: their questions (``q``) and their reference answers
(``a``), each a similarity from 0 to 1. The similarity of the pair is

    similarity = max(√(q · a), q when q ≥ 0.95)

and the candidate is a duplicate of the kept sample with the highest similarity when
that reaches the threshold. The geometric mean needs both parts: a paraphrased question
about the same fact has nearly the same reference answer (both high), while two
different questions about one chunk share the chunk's words but not their answers
("Who designed the Eiffel Tower?" and "When was it completed?"), and two questions about
different things may share a short answer ("1889"). A question that nearly repeats a
kept one is a duplicate whatever its answer: the set would ask it twice.

**Lexical (the default).** Each text becomes the set of its content words
(:mod:`ragjudge.testsets._content_words`: stop words, Japanese particles and
auxiliaries and punctuation left out, common English endings removed, Japanese
segmented by MeCab), and a similarity is the cosine of two such sets: shared words over
√(size × size). An answer is compared by what it adds to its question (its content
words that its question lacks) — a reference usually repeats its question's words, and
what is left is the fact itself ("1889", 「1950」). Default threshold
:data:`DEFAULT_LEXICAL_THRESHOLD` (0.5).

**With an embedder.** ``q`` and ``a`` are cosines of the embeddings of the two questions
and of the two whole answers (negative cosines count as 0). Embeddings of related texts
on one topic are already close, so the default threshold
:data:`DEFAULT_EMBEDDING_THRESHOLD` (0.9) is higher.

Each text is tokenised or embedded once; a lookup compares it with every kept sample at
once (postings counted with numpy, or one matrix product), so a lookup costs about the
number of kept samples.
"""

from __future__ import annotations

from itertools import chain

import numpy as np
from numpy.typing import NDArray

from ragjudge.errors import ConfigError
from ragjudge.models._embeddings import Embedder
from ragjudge.testsets._content_words import content_words
from ragjudge.text import normalize

__all__ = [
    "DEFAULT_EMBEDDING_THRESHOLD",
    "DEFAULT_LEXICAL_THRESHOLD",
    "REPEATED_QUESTION",
    "DuplicateFilter",
]

DEFAULT_LEXICAL_THRESHOLD = 0.5
"""Paraphrases of one fact score 0.6–1 on content words, different questions on one
chunk 0–0.3 (the figures of the tests)."""
DEFAULT_EMBEDDING_THRESHOLD = 0.9
"""Texts on one topic already have close embeddings: with all-MiniLM-L6-v2, two
different questions about the Eiffel Tower have a cosine of 0.88 and their different
answers 0.62 (similarity 0.74), while a paraphrased question scores 0.97 (a duplicate
by :data:`REPEATED_QUESTION`)."""
REPEATED_QUESTION = 0.95
"""A question this similar to a kept one is a duplicate whatever its answer."""

Scores = NDArray[np.float64]


class DuplicateFilter:
    """Remembers the kept samples and finds the one a candidate nearly duplicates.

    ``threshold`` (above 0, at most 1) is the similarity from which a candidate counts as
    a duplicate; None takes the default of the comparison in use. ``embedder`` compares
    embeddings instead of content words.
    """

    def __init__(self, *, threshold: float | None = None, embedder: Embedder | None = None) -> None:
        default = DEFAULT_LEXICAL_THRESHOLD if embedder is None else DEFAULT_EMBEDDING_THRESHOLD
        self.threshold = default if threshold is None else _checked_threshold(threshold)
        self._index: _LexicalIndex | _EmbeddingIndex = (
            _LexicalIndex() if embedder is None else _EmbeddingIndex(embedder)
        )
        self._keys: list[str] = []

    def __len__(self) -> int:
        return len(self._keys)

    async def find(self, question: str, answer: str) -> tuple[str, float] | None:
        """The key of the kept sample this one nearly duplicates, with the similarity;
        None when none."""
        if not self._keys:
            return None
        questions, answers = await self._index.similarities(question, answer)
        scores = combined_similarity(questions, answers)
        best = int(np.argmax(scores))
        score = float(scores[best])
        return (self._keys[best], score) if score >= self.threshold else None

    async def add(self, key: str, question: str, answer: str) -> None:
        """Remember a kept sample."""
        await self._index.add(question, answer)
        self._keys.append(key)


def combined_similarity(questions: Scores, answers: Scores) -> Scores:
    """The similarity of each pair from its question and answer similarities (the rule
    of the module docstring)."""
    both = np.sqrt(np.clip(questions, 0.0, 1.0) * np.clip(answers, 0.0, 1.0))
    repeated = np.where(questions >= REPEATED_QUESTION, questions, 0.0)
    return np.minimum(np.maximum(both, repeated), 1.0)


def _checked_threshold(threshold: float) -> float:
    if isinstance(threshold, bool) or not isinstance(threshold, int | float):
        raise ConfigError(f"the duplicate threshold must be a number, got {threshold!r}")
    if not 0 < threshold <= 1:
        raise ConfigError(f"the duplicate threshold must be above 0 and at most 1, got {threshold}")
    return float(threshold)


class _LexicalIndex:
    """Content-word sets of the kept questions and answers, as postings."""

    def __init__(self) -> None:
        self._questions = _WordSets()
        self._answers = _WordSets()

    async def similarities(self, question: str, answer: str) -> tuple[Scores, Scores]:
        question_words, answer_words = _word_sets(question, answer)
        return self._questions.cosines(question_words), self._answers.cosines(answer_words)

    async def add(self, question: str, answer: str) -> None:
        question_words, answer_words = _word_sets(question, answer)
        self._questions.add(question_words)
        self._answers.add(answer_words)


def _word_sets(question: str, answer: str) -> tuple[frozenset[str], frozenset[str]]:
    """The content words of the question, and those the answer adds to it (all of the
    answer's when it adds none)."""
    question_words = _words_of(question)
    answer_words = _words_of(answer)
    return question_words, (answer_words - question_words) or answer_words


def _words_of(text: str) -> frozenset[str]:
    """The content words of ``text``; a text with none (all stop words or symbols) is
    one word, its normalised self, so that only the same text matches it."""
    return frozenset(content_words(text)) or frozenset((normalize(text),))


class _WordSets:
    """Word sets, one row each, with the rows holding each word: the cosine of a new set
    with every row is a count of shared words, taken over the postings of its words."""

    def __init__(self) -> None:
        self._rows_of_word: dict[str, list[int]] = {}
        self._sizes: list[int] = []

    def add(self, words: frozenset[str]) -> None:
        row = len(self._sizes)
        for word in words:
            self._rows_of_word.setdefault(word, []).append(row)
        self._sizes.append(len(words))

    def cosines(self, words: frozenset[str]) -> Scores:
        postings = [self._rows_of_word.get(word, []) for word in words]
        rows = np.fromiter(chain.from_iterable(postings), dtype=np.int64)
        shared = np.bincount(rows, minlength=len(self._sizes)).astype(np.float64)
        sizes = np.asarray(self._sizes, dtype=np.float64)
        return shared / np.sqrt(sizes * len(words))


class _EmbeddingIndex:
    """Embeddings of the kept questions and answers, as matrix rows."""

    def __init__(self, embedder: Embedder) -> None:
        self._embedder = embedder
        self._questions = _Rows()
        self._answers = _Rows()
        self._last: tuple[str, str, NDArray[np.float32]] | None = None

    async def similarities(self, question: str, answer: str) -> tuple[Scores, Scores]:
        vectors = await self._vectors(question, answer)
        return self._questions.cosines(vectors[0]), self._answers.cosines(vectors[1])

    async def add(self, question: str, answer: str) -> None:
        vectors = await self._vectors(question, answer)
        self._questions.add(vectors[0])
        self._answers.add(vectors[1])

    async def _vectors(self, question: str, answer: str) -> NDArray[np.float32]:
        """The embeddings of the question and the answer, in one call; a sample kept
        right after it was looked up reuses the lookup's."""
        if self._last is not None and self._last[:2] == (question, answer):
            return self._last[2]
        vectors = np.asarray(await self._embedder.embed([question, answer]), dtype=np.float32)
        self._last = (question, answer, vectors)
        return vectors


class _Rows:
    """A matrix grown a row at a time (its storage doubles when full)."""

    def __init__(self) -> None:
        self._matrix: NDArray[np.float32] = np.zeros((0, 0), dtype=np.float32)
        self._count = 0

    def add(self, vector: NDArray[np.float32]) -> None:
        if self._count == len(self._matrix):
            grown = np.zeros((max(16, 2 * self._count), vector.shape[0]), dtype=np.float32)
            if self._count:
                grown[: self._count] = self._matrix[: self._count]
            self._matrix = grown
        self._matrix[self._count] = vector
        self._count += 1

    def cosines(self, vector: NDArray[np.float32]) -> Scores:
        rows = self._matrix[: self._count]
        return (rows @ vector).astype(np.float64)

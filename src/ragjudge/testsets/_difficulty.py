"""How hard a generated sample looks, from what can be counted without a model."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from ragjudge.knowledge import Chunk
from ragjudge.testsets._content_words import content_words
from ragjudge.testsets._types import Difficulty, Kind, Turn

__all__ = ["LOW_OVERLAP", "TEMPTING_OVERLAP", "difficulty_of"]

LOW_OVERLAP = 0.3
"""Below this share of its words in its chunks, a question is worded unlike its source."""
TEMPTING_OVERLAP = 0.5
"""From this share, an unanswerable question borrows enough of its nearby chunk's words
that a system is tempted to answer it."""

_TWO_CHUNK_KINDS: frozenset[Kind] = frozenset(("multi", "comparative"))


def difficulty_of(
    kind: Kind, chunks: Sequence[Chunk], question: str, turns: Sequence[Turn] = ()
) -> Difficulty:
    """The difficulty of a sample of ``kind`` asking ``question`` (the last question of
    a dialogue whose earlier ``turns`` are given) about ``chunks``.

    - ``chunks_needed``: 1 for ``single`` and ``conversational``; the number of chunks
      (two) for ``multi`` and ``comparative``; 0 for ``unanswerable``, whose answer
      needs no chunk but the knowledge that none says it.
    - ``overlap``: the share of the question's distinct content words (stop words,
      Japanese particles and punctuation left out, Japanese segmented by MeCab) that
      are also content words of the chunks; 0 when the question has none.
    - ``points``, the sum of: 1 per chunk needed beyond the first; 1 for a
      ``comparative`` question; 1 for a follow-up that has earlier turns; and 1 when the
      question is worded unlike its chunks (``overlap`` below 0.3) — except for an
      ``unanswerable`` question, which instead takes 1 when it borrows its nearby
      chunk's words (``overlap`` of 0.5 or more), as it then looks answerable.
    - ``level``: ``easy`` at 0 points, ``medium`` at 1, ``hard`` at 2 or more.
    """
    needed = _chunks_needed(kind, chunks)
    overlap = word_overlap(question, chunks)
    points = (
        max(needed - 1, 0)
        + int(kind == "comparative")
        + int(kind == "conversational" and len(turns) > 0)
        + int(_wording_point(kind, overlap))
    )
    return Difficulty(level=_level_of(points), chunks_needed=needed, overlap=overlap, points=points)


def word_overlap(question: str, chunks: Sequence[Chunk]) -> float:
    """The share of the question's distinct content words found among the chunks'
    content words (0–1; 0 for a question without content words)."""
    question_words = set(content_words(question))
    if not question_words:
        return 0.0
    chunk_words = {word for chunk in chunks for word in content_words(chunk.content)}
    return len(question_words & chunk_words) / len(question_words)


def _chunks_needed(kind: Kind, chunks: Sequence[Chunk]) -> int:
    if kind == "unanswerable":
        return 0
    return len(chunks) if kind in _TWO_CHUNK_KINDS else 1


def _wording_point(kind: Kind, overlap: float) -> bool:
    """Whether the question's wording makes it harder: far from its chunks' words, or,
    unanswerable, close to them."""
    if kind == "unanswerable":
        return overlap >= TEMPTING_OVERLAP
    return overlap < LOW_OVERLAP


def _level_of(points: int) -> Literal["easy", "medium", "hard"]:
    if points <= 0:
        return "easy"
    return "medium" if points == 1 else "hard"

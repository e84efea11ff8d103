"""Which chunks of a knowledge base a question can be written from, and their language.

A chunk is usable when the text it adds to its document is long enough to write a
question from, and it is mostly words: the overlap a chunk shares with the previous
chunk of its document does not count (a short last chunk is often little more than that
overlap), nor does a chunk whose text already appeared earlier in the knowledge base
(a footer or notice repeated in every document).
"""

from __future__ import annotations

from collections.abc import Sequence

from ragjudge.knowledge import Chunk
from ragjudge.testsets._types import Language
from ragjudge.text import contains_cjk, normalize

__all__ = [
    "MIN_CHARS",
    "chunk_language",
    "new_text_length",
    "text_language",
    "usable_positions",
]

MIN_CHARS: dict[Language, int] = {"en": 150, "ja": 60}
"""The fewest characters of new text a usable chunk has, by its language: about a
sentence or two. Japanese needs fewer, since one of its characters carries about as much
as two or three English letters."""

_JAPANESE_SHARE = 0.3
"""A text whose letters are at least this share Han, kana or Hangul is Japanese: mixed
text (Japanese prose naming ``SQL`` or ``PostgreSQL``) stays Japanese."""

_WORD_SHARE = 0.5
"""A chunk whose visible characters are less than this share letters and digits is
boilerplate (tables of symbols, rules, link lists) rather than prose."""


def text_language(text: str) -> Language:
    """``"ja"`` when enough of the letters of ``text`` are CJK characters, else ``"en"``."""
    letters = [char for char in text if char.isalpha()]
    if not letters:
        return "en"
    cjk = sum(1 for char in letters if contains_cjk(char))
    return "ja" if cjk / len(letters) >= _JAPANESE_SHARE else "en"


def chunk_language(chunk: Chunk) -> Language:
    """The language of one chunk's text."""
    return text_language(chunk.content)


def new_text_length(previous: Chunk | None, chunk: Chunk) -> int:
    """How many characters of ``chunk`` are not the overlap it shares with ``previous``
    (the chunk before it in the same document, None for the first)."""
    content = chunk.content
    if previous is None or previous.doc_uri != chunk.doc_uri:
        return len(content.strip())
    return len(content[_overlap_length(previous.content, content) :].strip())


def _overlap_length(before: str, after: str) -> int:
    """The length of the longest end of ``before`` that ``after`` starts with."""
    if not after:
        return 0
    start = before.find(after[0], max(0, len(before) - len(after)))
    while start != -1:
        if after.startswith(before[start:]):
            return len(before) - start
        start = before.find(after[0], start + 1)
    return 0


def _is_prose(text: str) -> bool:
    visible = [char for char in text if not char.isspace()]
    if not visible:
        return False
    words = sum(1 for char in visible if char.isalnum())
    return words / len(visible) >= _WORD_SHARE


def usable_positions(chunks: Sequence[Chunk], min_chars: int | None = None) -> list[int]:
    """Positions of the chunks a question can be written from, in knowledge-base order.

    ``min_chars`` is the fewest characters of new text (see the module's description);
    None takes :data:`MIN_CHARS` of each chunk's language.
    """
    seen: set[str] = set()
    usable: list[int] = []
    previous: Chunk | None = None
    for position, chunk in enumerate(chunks):
        text = normalize(chunk.content)
        fresh = text not in seen
        seen.add(text)
        least = MIN_CHARS[chunk_language(chunk)] if min_chars is None else min_chars
        if fresh and _is_prose(chunk.content) and new_text_length(previous, chunk) >= least:
            usable.append(position)
        previous = chunk
    return usable

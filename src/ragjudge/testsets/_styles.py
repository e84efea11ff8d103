"""The misspelt question style: typing mistakes added to a generated question after it
is written, so they are really there (a model asked to misspell tends to write clean
text or caricatures).

Only words of at least four Latin letters are touched, about one in five and at least
one: a letter swapped with its neighbour, dropped or doubled, never the first letter.
Numbers and words with digits in them stay as written, and so does Japanese (and any
other CJK) text: typing mistakes there are not letter swaps, so for Japanese the
generation prompt asks for a casual, hastily typed wording instead.
"""

from __future__ import annotations

import random
import re

__all__ = ["with_typos"]

_WORD = re.compile(r"(?<![\w-])[A-Za-zÀ-ÖØ-öø-ÿ]{4,}(?![\w-])")
"""A word of at least four Latin letters standing alone: not part of a token with
digits, underscores or CJK characters (``COVID19``, ``v2_api``, ``東京Tower``)."""

_WORDS_PER_TYPO = 5


def with_typos(text: str, seed: str) -> str:
    """``text`` with a few seeded typing mistakes in its Latin-script words (about one
    word in five, at least one when any word qualifies); the same ``text`` and ``seed``
    give the same result on every run. Text with no word of four Latin letters comes
    back unchanged."""
    words = list(_WORD.finditer(text))
    if not words:
        return text
    rng = random.Random(f"{seed}\n{text}")
    count = max(1, round(len(words) / _WORDS_PER_TYPO))
    chosen = sorted(rng.sample(range(len(words)), count))
    pieces: list[str] = []
    end = 0
    for position in chosen:
        match = words[position]
        pieces.append(text[end : match.start()])
        pieces.append(_mistype(match.group(), rng))
        end = match.end()
    pieces.append(text[end:])
    return "".join(pieces)


def _mistype(word: str, rng: random.Random) -> str:
    """``word`` with one typing mistake that changes it (the first letter is kept)."""
    mistake = rng.choice(("swap", "drop", "double"))
    if mistake == "swap":
        swapped = _swap_neighbours(word, rng)
        if swapped is not None:
            return swapped
        mistake = "double"
    at = rng.randrange(1, len(word))
    if mistake == "drop":
        return word[:at] + word[at + 1 :]
    return word[:at] + word[at] + word[at:]


def _swap_neighbours(word: str, rng: random.Random) -> str | None:
    """``word`` with two different neighbouring letters after its first swapped, or
    None when it has none (``"aaaa"``)."""
    places = [i for i in range(1, len(word) - 1) if word[i] != word[i + 1]]
    if not places:
        return None
    i = rng.choice(places)
    return word[:i] + word[i + 1] + word[i] + word[i + 2 :]

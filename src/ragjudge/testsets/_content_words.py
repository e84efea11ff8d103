"""The content words of a text: what the duplicate filter and the difficulty estimate
compare, with the words that only hold a sentence together left out.

A text is tokenised by :func:`ragjudge.text.tokenize` (folded to NFKC lowercase;
Japanese segmented by MeCab). Then:

- English stop words (articles, pronouns, auxiliaries, prepositions, question words)
  are dropped, and a plain English word loses a common ending (``-ing``, ``-ed``,
  ``-s`` but not ``-ss``) and then a final ``e``, so "complete", "completes" and
  "completed" meet;
- Japanese tokens written in hiragana alone are dropped: particles, auxiliaries and
  question words (の, は, です, いつ, さ, れ, まし …) are hiragana, while names and nouns
  are kanji or katakana;
- tokens that are a single punctuation mark or symbol are dropped.
"""

from __future__ import annotations

import re

from ragjudge.text import tokenize

__all__ = ["content_words"]

_HIRAGANA_ONLY_RE = re.compile(r"^[\u3041-\u309f\u30fc]+$")
_ASCII_LETTERS_RE = re.compile(r"^[a-z]+$")
_ENDINGS = ("ing", "ed", "s")
_SHORTEST_STEM = 3

_STOP_WORD_LIST = """
    a about above after again against all also am an and any are as at be because been
    before being below between both but by can could did do does doing done down during
    each either else ever few for from further had has have having he her here hers him
    his how i if in into is it its itself just may me might more most much must my
    neither no nor not of off on once only or other our ours out over own same shall she
    should so some such than that the their theirs them then there these they this those
    through to too under until up upon us very was we were what whatever when where
    whether which while who whom whose why will with would yet you your yours
"""
_STOP_WORDS = frozenset(_STOP_WORD_LIST.split())


def content_words(text: str) -> list[str]:
    """The content words of ``text`` in order, repeats kept (see the module docstring
    for what is left out)."""
    words: list[str] = []
    for token in tokenize(text):
        if token in _STOP_WORDS or _HIRAGANA_ONLY_RE.match(token):
            continue
        if len(token) == 1 and not token.isalnum():
            continue
        words.append(_without_common_ending(token))
    return words


def _without_common_ending(word: str) -> str:
    """``word`` without an English ending, then without a final ``e``, each removed
    only when at least three letters remain; a word not in plain letters as it is."""
    if not _ASCII_LETTERS_RE.match(word):
        return word
    for ending in _ENDINGS:
        if word.endswith(ending) and not word.endswith("ss"):
            word = _shortened(word, len(ending))
            break
    return _shortened(word, 1) if word.endswith("e") else word


def _shortened(word: str, by: int) -> str:
    return word[:-by] if len(word) - by >= _SHORTEST_STEM else word

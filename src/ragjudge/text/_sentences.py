"""pysbd's sentence segmentation of one line, with the same result as
``pysbd.Segmenter(language, clean=False).segment(line)`` at a fraction of its cost.

Most lines go through :func:`ragjudge.text._quick_sentences.quick_sentences`: pysbd's own
processor steps, each run only when its patterns could match the line. The others go
through pysbd's processor, which spends most of its time on two things that do not
change its result:

* it locates each sentence it found in the line with a regular expression compiled
  from the sentence's own text (a new pattern per sentence, which also pushes pysbd's
  fixed patterns out of ``re``'s cache so they are compiled again); here the sentences
  are located by plain string search (:func:`locate`);
* for every one of its ~200 abbreviations that occurs anywhere in the line, it scans
  the line and rewrites the period after each occurrence when the next word shows it is
  not a sentence end. An abbreviation that is never followed by a period in the line
  cannot be rewritten, so here the processor only gets those that are (the dotted ones
  such as ``e.g``, whose pattern matches more than its text, and every abbreviation of
  a line holding a character that case-insensitive matching folds beyond ``lower()``
  are always given).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from functools import cache
from typing import Any

from ragjudge.text._quick_sentences import quick_sentences, with_abbreviations

__all__ = ["locate", "segment", "segment_spans"]

_TRAILING_SPACE = re.compile(r"\s*")

_FOLDS_TO_ASCII = re.compile("[\u0130\u0131\u017f\u212a]")
"""The characters that match an ASCII letter when case is ignored while ``lower()``
does not turn them into it (İ, ı, ſ, the Kelvin sign): with them, matching the
lowercased text could miss an abbreviation pysbd finds."""


def segment(line: str, language: str) -> list[str]:
    """The sentences of ``line`` as pysbd's segmenter gives them (``clean=False``): each
    with the whitespace after it, a sentence the segmenter cannot find left out."""
    return [line[start:end] for start, end in segment_spans(line, language)]


def segment_spans(line: str, language: str) -> list[tuple[int, int]]:
    """Where the sentences of :func:`segment` are in ``line``."""
    if not line:
        return []
    rules = _rules(language)
    sentences = quick_sentences(line, rules)
    if sentences is None:
        sentences = _processor(language)(line, rules, char_span=False).process()
    return list(locate(sentences, line))


def locate(sentences: Sequence[str], text: str) -> Iterator[tuple[int, int]]:
    """Where pysbd's segmenter finds each sentence in ``text``: the first occurrence
    (with the whitespace after it) that ends after the previous sentence's; a sentence
    not found is left out."""
    prior = 0
    for sentence in sentences:
        span = _occurrence_after(sentence, text, prior)
        if span is not None:
            prior = span[1]
            yield span


def _occurrence_after(sentence: str, text: str, prior: int) -> tuple[int, int] | None:
    """The first match of ``sentence`` followed by ``\\s*`` in ``text`` (scanning for
    non-overlapping matches from the start) that ends after ``prior``.

    After the first sentence, ``text[prior]`` is not whitespace (the previous match took
    the whitespace after it), so a match ends after ``prior`` exactly when the sentence
    itself does; and when no two occurrences of the sentence can overlap (no proper
    prefix equal to a suffix, no leading whitespace) every occurrence is one of the
    scanned matches. Then one search from ``prior - len(sentence) + 1`` finds it; in the
    other, rare cases the scan is repeated with a pattern."""
    if not sentence:
        return _scanned_occurrence(sentence, text, prior)
    if prior == 0:
        start = text.find(sentence)
    elif sentence[0].isspace() or _overlaps_itself(sentence):
        return _scanned_occurrence(sentence, text, prior)
    else:
        start = text.find(sentence, max(0, prior - len(sentence) + 1))
    if start < 0:
        return None
    end = _TRAILING_SPACE.match(text, start + len(sentence))
    assert end is not None  # \s* always matches
    return start, end.end()


def _overlaps_itself(sentence: str) -> bool:
    """Whether two occurrences of ``sentence`` can overlap: a proper prefix of it is also
    a suffix."""
    first = sentence[0]
    position = sentence.find(first, 1)
    while position > 0:
        if sentence.startswith(sentence[position:]):
            return True
        position = sentence.find(first, position + 1)
    return False


def _scanned_occurrence(sentence: str, text: str, prior: int) -> tuple[int, int] | None:
    for match in re.finditer(re.escape(sentence) + r"\s*", text):
        if match.end() > prior:
            return match.span()
    return None


@cache
def _rules(language: str) -> Any:
    """pysbd's rules for ``language`` (a class of patterns and word lists)."""
    from pysbd.languages import Language

    return Language.get_language_code(language)


@cache
def _processor(language: str) -> Any:
    """pysbd's processor for ``language``, handing its abbreviation pass only the
    abbreviations that can change the text (see the module docstring)."""
    from pysbd.abbreviation_replacer import AbbreviationReplacer
    from pysbd.processor import Processor

    rules = _rules(language)
    base = getattr(rules, "Processor", Processor)
    replacer: Any = getattr(rules, "AbbreviationReplacer", AbbreviationReplacer)

    def abbreviations_replacer(self: Any) -> Any:
        return replacer(self.text, with_abbreviations(self.lang, _useful(self.lang, self.text)))

    return type(
        f"Quick{base.__name__}", (base,), {"abbreviations_replacer": abbreviations_replacer}
    )


def _useful(rules: Any, text: str) -> tuple[str, ...]:
    """The abbreviations of ``rules`` whose period rule can apply somewhere in ``text``:
    those written after whitespace (or at the start) and followed by a period."""
    everything: list[str] = rules.Abbreviation.ABBREVIATIONS
    if not text.isascii() and _FOLDS_TO_ASCII.search(text):
        return tuple(everything)
    dotted, pattern = _abbreviation_pattern(rules)
    found = set(pattern.findall(text.lower()))
    return tuple(a for a in everything if a in dotted or a.strip() in found)


@cache
def _abbreviation_pattern(rules: Any) -> tuple[frozenset[str], re.Pattern[str]]:
    """The dotted abbreviations of ``rules`` (always kept) and a pattern finding the
    others where their period rule can apply."""
    everything: list[str] = rules.Abbreviation.ABBREVIATIONS
    dotted = frozenset(a for a in everything if "." in a.strip())
    words = sorted({a.strip() for a in everything if a not in dotted}, key=len, reverse=True)
    alternatives = "|".join(re.escape(word) for word in words) or "(?!)"
    return dotted, re.compile(rf"(?:(?<=\s)|^)({alternatives})\.")

"""Key terms of a text without a model: the names, numbers and nouns a reader would
check for, and whether a text mentions a term.

This is an approximation, documented as one. Japanese text (any text holding Japanese
script) is tagged by MeCab with UniDic: a run of nouns (common and proper nouns and
numerals; pronouns and nouns written in hiragana alone left out) is one term, and a
``・`` between two nouns joins them (クリストファー・ノーラン). Other text has no tagger:
a term is a run of capitalised words (a capitalised stop word opening a sentence left
out), a number, or a word holding a digit or a capital past its first letter (SQL,
GPT-4, iPhone). Terms are compared folded (Unicode NFKC, lowercase): Japanese ones with
whitespace ignored, the others as whole words.
"""

from __future__ import annotations

import re
import threading
import unicodedata
from pathlib import Path
from typing import Any

from ragjudge.text._normalise import fold

__all__ = ["key_terms", "mentions"]

_JAPANESE_RE = re.compile(
    r"[\u3005-\u3007\u303b\u3041-\u3096\u30a1-\u30fa\u30fc-\u30ff\u4e00-\u9fff]"
)
_HIRAGANA_ONLY_RE = re.compile(r"^[\u3041-\u309f\u30fc]+$")
# A letter or digit that is not Japanese script: what a whole word may not touch.
_LATIN_WORD_CHAR = r"[^\W_\u3005-\u3007\u303b\u3041-\u30ff\u4e00-\u9fff]"
_WORD_RE = re.compile(r"[^\W_]+(?:(?:['’\-]|(?<=\d)[.,](?=\d))[^\W_]+)*")
_SENTENCE_END_RE = re.compile(r"[.!?:;]\s*$")
_STOP_WORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "as",
        "at",
        "but",
        "by",
        "for",
        "from",
        "he",
        "her",
        "his",
        "how",
        "i",
        "if",
        "in",
        "is",
        "it",
        "its",
        "of",
        "on",
        "or",
        "our",
        "she",
        "so",
        "that",
        "the",
        "their",
        "then",
        "there",
        "these",
        "they",
        "this",
        "those",
        "to",
        "we",
        "what",
        "when",
        "where",
        "which",
        "who",
        "why",
        "with",
        "you",
        "your",
    ]
)
_NOUN = "名詞"  # UniDic tags pronouns apart (代名詞), so they are left out
_NOUN_JOINERS = frozenset(("・",))

_tagger_local = threading.local()


def key_terms(text: str) -> list[str]:
    """The key terms of ``text`` in order of first appearance, each once (compared
    folded)."""
    found = _japanese_terms(text) if _JAPANESE_RE.search(text) else _english_terms(text)
    unique: dict[str, str] = {}
    for term in found:
        unique.setdefault(term_key(term), term)
    return [term for key, term in unique.items() if key]


def term_key(term: str) -> str:
    """How a term is compared: folded, and with whitespace ignored when it holds
    Japanese script (else with runs of whitespace made one space)."""
    folded = fold(term)
    if _JAPANESE_RE.search(folded):
        return "".join(folded.split())
    return " ".join(folded.split())


def mentions(text: str, term: str) -> bool:
    """Whether ``text`` holds ``term``, compared as :func:`term_key` says; a term
    without Japanese script must stand as whole words."""
    key = term_key(term)
    if not key:
        return False
    folded = fold(text)
    if _JAPANESE_RE.search(key):
        return key in "".join(folded.split())
    pattern = rf"(?<!{_LATIN_WORD_CHAR}){re.escape(key)}(?!{_LATIN_WORD_CHAR})"
    return re.search(pattern, " ".join(folded.split())) is not None


def _english_terms(text: str) -> list[str]:
    """Runs of capitalised words, numbers, and words with a digit or an inner capital."""
    terms: list[str] = []
    run: list[str] = []
    previous_end = 0
    for match in _WORD_RE.finditer(text):
        word = match.group()
        between = text[previous_end : match.start()]
        opens_sentence = previous_end == 0 or _SENTENCE_END_RE.search(between) is not None
        if run and (between.strip() or opens_sentence):
            terms.append(" ".join(run))
            run = []
        previous_end = match.end()
        if _is_marked_word(word):
            terms.append(word)
        elif word[0].isupper() and not (opens_sentence and word.lower() in _STOP_WORDS):
            run.append(word)
        elif run:
            terms.append(" ".join(run))
            run = []
    if run:
        terms.append(" ".join(run))
    return terms


def _is_marked_word(word: str) -> bool:
    """A number, or a word with a digit or with a capital past its first letter."""
    return any(c.isdigit() for c in word) or any(c.isupper() for c in word[1:])


def _japanese_terms(text: str) -> list[str]:
    """Runs of nouns as MeCab with UniDic tags them (a ``・`` between nouns joins them)."""
    terms: list[str] = []
    run: list[str] = []
    pending_joiner = ""
    for surface, pos in _tagged(unicodedata.normalize("NFKC", text)):
        if pos == _NOUN:
            run.append(_joined(run, pending_joiner, surface))
            pending_joiner = ""
        elif run and surface in _NOUN_JOINERS and not pending_joiner:
            pending_joiner = surface
        else:
            terms.extend(_closed(run))
            run, pending_joiner = [], ""
    terms.extend(_closed(run))
    return terms


def _joined(run: list[str], joiner: str, surface: str) -> str:
    """``surface`` as it continues the run: after its joiner, or after a space between
    two Latin words (MeCab drops the space of "UNION ALL")."""
    if not joiner and run and run[-1][-1].isascii() and surface[0].isascii():
        return " " + surface
    return joiner + surface


def _closed(run: list[str]) -> list[str]:
    """The term a run of nouns makes, unless it is written in hiragana alone."""
    term = "".join(run)
    return [term] if term and not _HIRAGANA_ONLY_RE.match(term) else []


def _tagged(text: str) -> list[tuple[str, str]]:
    """Each word's surface form and part of speech."""
    return [(node.surface, node.feature[0]) for node in _tagger()(text)]


def _tagger() -> Any:
    """This thread's MeCab tagger writing parts of speech (not thread-safe, so one per
    thread)."""
    tagger = getattr(_tagger_local, "tagger", None)
    if tagger is None:
        import fugashi
        import unidic_lite

        dicdir = Path(unidic_lite.DICDIR)
        tagger = fugashi.GenericTagger(f'-d "{dicdir}" -r "{dicdir / "mecabrc"}"')
        _tagger_local.tagger = tagger
    return tagger

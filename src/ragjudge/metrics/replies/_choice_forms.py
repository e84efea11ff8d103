"""Where a choice stands in a line of a judge's reply, and whether the line gives it as
a verdict: the line is only the choice; a label or a conclusion leads to it (``Answer:
B``, ``So the final answer is D.``, ``答えはBです。``); it is declared the better one
(``Therefore, Output (a) is better.``); or, on the line a verdict opens the reply
with, it is set apart from what follows (``Yes, …``, ``(A) The submission …``).

Choices and replies are compared after NFKC with their punctuation normalised: a
choice is the sequence of its words, so ``(A)``, ``[[A]]`` and ``A`` are one choice and
``Output (a)`` matches ``Output (a)``, ``output (A)`` or ``**Output (a)**``. A
one-character choice matches in its own case only; longer ones in any case.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

from ragjudge.metrics.replies._scan import strip_filler

_WINDOW = 240
"""A verdict's words are few: only this many characters at a line's edge are read."""
_COPULA = re.compile(r"(?:です|である|だ|となります|になります|とします)$")
_WORDS = re.compile(r"[^\W_]+")
_CONCLUDE = (
    r"(?:so|thus|therefore|hence|overall|in\s+conclusion|consequently|as\s+a\s+result|"
    r"in\s+summary|finally|clearly)"
)
_NOUN = (
    r"(?:answer|verdict|choice|decision|result|judge?ment|classification|grade|rating|label|"
    r"selection|conclusion|evaluation|assessment|"
    r"(?:better|best|preferred|winning|correct)\s+(?:response|output|answer|option|one|choice))"
)
_LABEL_EN = (
    rf"(?:{_CONCLUDE}[\s,:]+)?(?:(?:the|my|our)\s+)?(?:(?:final|correct|best|overall|right)\s+)?"
    rf"{_NOUN}(?:\s+(?:is|would\s+be|should\s+be|will\s+be))?\s*[:：=]?"
)
_CONCLUDE_JA = r"(?:したがって|従って|よって|以上より|以上から|結論として)"
_NOUN_JA = r"(?:最終的な|最終)?(?:答え|回答|判定|結論|選択|評価)"
_LABEL_JA = rf"(?:{_CONCLUDE_JA}[、，,]?\s*)?{_NOUN_JA}\s*(?:は)?"
_LABEL_PREFIX = re.compile(
    rf"(?:.*[.;!?。；！？]\s*|.*[,，、]\s*(?=(?:{_CONCLUDE}\b|{_CONCLUDE_JA}|{_NOUN_JA})))?"
    rf"(?P<label>{_LABEL_EN}|{_LABEL_JA})",
    re.IGNORECASE | re.DOTALL,
)
_GROUNDS = r"(?:based\s+on|considering|given)\b[^,.;]{0,160},\s*"
_ASPECT = r"(?:in\s+terms\s+of|with\s+respect\s+to)\b[^,.;]{0,160},\s*"
_CONCLUSION_LEAD = re.compile(  # "Therefore, ", "Overall, based on the criteria, "
    # an aspect alone ("In terms of detail, …") qualifies a comparison: no verdict
    rf"(?:{_GROUNDS})?(?:{_CONCLUDE}[\s,:]+(?:{_GROUNDS}|{_ASPECT})?|{_GROUNDS})",
    re.IGNORECASE,
)
_PREDICATE = re.compile(
    r"\s+(?:is|was)\s+(?:(?:clearly|overall|slightly|much|significantly|definitely)\s+)?"
    r"(?:the\s+)?(?:better|best|preferred|superior|winner|stronger)"
    r"(?:\s+(?:one|response|output|answer|choice|option))?(?:\s+overall)?"
    r"(?:,?\s+(?:because|as|since)\b.*)?",  # the reason may follow
    re.IGNORECASE | re.DOTALL,
)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|(?<=[.!?][\"'”’)\]])\s+|(?<=[。！？])\s*")
_OPENERS = "([{（［「『\"'“‘*_`"
_CLOSERS = {"(": ")", "[": "]", "{": "}", "（": "）", "［": "］", "「": "」", "『": "』"}
_SETS_APART = ",.:;!?)]}」』—–-、。，．：；！？）］*_`\"'”’"


@dataclass(frozen=True)
class Choice:
    """A choice string as it is looked for in a line."""

    given: str
    words: str
    pattern: re.Pattern[str]
    at_end: re.Pattern[str]
    self_wrapped: bool
    symbolic: bool = False

    @classmethod
    def of(cls, given: str) -> Choice:
        """The choice ``given`` (as the spec writes it)."""
        normal = unicodedata.normalize("NFKC", given).strip()
        words = _WORDS.findall(normal)
        if not words:
            literal = re.escape(normal)
            return cls(given, normal, re.compile(literal), re.compile(rf"{literal}\Z"), False, True)
        lead = normal[: normal.find(words[0])]
        trail = normal[normal.rfind(words[-1]) + len(words[-1]) :]
        body = r"[\W_]+".join(re.escape(word) for word in words)
        optional = [f"(?:{re.escape(edge)})?" if edge else "" for edge in (lead, trail)]
        flags = re.IGNORECASE if len(" ".join(words)) > 1 else 0
        source = f"{optional[0]}{body}{optional[1]}"
        wrapped = bool(lead) and lead[-1] in _CLOSERS and bool(trail)
        at_end = re.compile(rf"(?:{source})\Z", flags)
        return cls(given, " ".join(words), re.compile(source, flags), at_end, wrapped)

    def is_words(self, words: str) -> bool:
        """Whether ``words`` (a text's words, space-joined) are this choice's."""
        if len(self.words) > 1:
            return words.casefold() == self.words.casefold()
        return words == self.words


def choices_of(given: Sequence[str]) -> list[Choice]:
    """The choices, longest first (so ``Yes, partially`` is tried before ``Yes``)."""
    return sorted((Choice.of(c) for c in given), key=lambda c: -len(c.words))


@dataclass(frozen=True)
class Found:
    """A choice a line gives as a verdict, and the clause that gives it."""

    choice: str
    clause: str


def whole(line: str, core: str, choices: Sequence[Choice]) -> Found | None:
    """The line (``core``: as :func:`trimmed`) is the choice alone (``B``, ``(A)``,
    ``**Output (a)**``, ``「はい」``)."""
    if len(core) > _WINDOW:
        return None
    words = " ".join(_WORDS.findall(core))
    for choice in choices:
        if choice.is_words(words) or (choice.symbolic and line.strip() == choice.words):
            return Found(choice.given, core)
    return None


def labelled(core: str, choices: Sequence[Choice]) -> Found | None:
    """A label or a conclusion leads to the choice that ends the line (``core``: as
    :func:`trimmed`): ``Answer: B``, ``So the final answer is D.``, ``Option A looks
    wrong; the answer is C``, ``したがって、答えはBです。``."""
    window = core[-_WINDOW:]
    cut = len(core) > len(window)
    for choice in choices:
        match = _at_end(window, choice)
        if match is None:
            continue
        prefix = strip_filler(window[: match.start()], leading=False)
        label = _LABEL_PREFIX.fullmatch(prefix)
        if label is None or (cut and label.start("label") == 0):
            return None
        return Found(choice.given, window[label.start("label") :])
    return None


def declared_better(core: str, choices: Sequence[Choice]) -> list[Found]:
    """The choices the first and last sentences of a line (``core``: as
    :func:`trimmed`) declare the better one (``Therefore, Output (a) is better.``,
    ``Output (b) is the better response``)."""
    found: list[Found] = []
    for sentence in _edge_sentences(core):
        lead = _CONCLUSION_LEAD.match(sentence)
        start = lead.end() if lead else 0
        for choice in choices:
            match = choice.pattern.match(sentence, start)
            if match is not None and _PREDICATE.fullmatch(sentence, match.end()):
                found.append(Found(choice.given, sentence))
                break
    return found


def _edge_sentences(core: str) -> list[str]:
    """The first and the last sentence of a line (the whole line when it is one)."""
    head = _SENTENCE_END.split(core[:_WINDOW], maxsplit=1)[0]
    tail = _SENTENCE_END.split(core[-_WINDOW:])[-1]
    if len(core) > _WINDOW and tail == core[-_WINDOW:]:
        tail = ""  # a cut line: its last sentence may start before the window
    return [strip_filler(s, leading=True) for s in (head, tail) if s and len(s) < _WINDOW]


def opening(line: str, choices: Sequence[Choice]) -> Found | None:
    """The line opens with the choice set apart from what follows: followed by
    punctuation (``Yes, …``, ``D: …``, ``N. …``) or wrapped (``(A) The …``, ``**Y**
    because …``). A choice followed by more words (``Output (b) does not …``) is the
    subject of a sentence, not a verdict."""
    stripped = line.lstrip()
    head = stripped[:_WINDOW]
    body = head.lstrip(_OPENERS + " \t")
    opened = head[: len(head) - len(body)].strip()
    for choice in choices:
        match = choice.pattern.match(body)
        if match is None or _glued(match.group(), body[match.end() : match.end() + 1]):
            continue
        rest = body[match.end() :]
        follow = rest.lstrip(" ")[:1]
        if not follow or follow in _SETS_APART or _wide(follow) or _wrapped(opened, rest, choice):
            return Found(choice.given, body[: match.end()])
    return None


def _wrapped(opened: str, rest: str, choice: Choice) -> bool:
    if choice.self_wrapped:
        return True
    closer = _CLOSERS.get(opened[-1:], opened[-1:]) if opened else ""
    return bool(closer) and rest.startswith(closer)


def _at_end(window: str, choice: Choice) -> re.Match[str] | None:
    """The choice that ends ``window``, not glued to a Latin word before it."""
    found = choice.at_end.search(window)
    if found is None:
        return None
    before = window[found.start() - 1 : found.start()]
    return None if _glued(before, found.group()[:1]) else found


def _glued(left: str, right: str) -> bool:
    if not left or not right:
        return False
    return _latin_word_char(left[-1]) and _latin_word_char(right[0])


def _latin_word_char(char: str) -> bool:
    return (char.isalnum() or char == "_") and not _wide(char)


def _wide(char: str) -> bool:
    return unicodedata.east_asian_width(char) in ("W", "F")


def trimmed(line: str) -> str:
    """The line without the filler around it and without a closing Japanese copula
    (NFKC; a long line is cut to its end)."""
    core = strip_filler(unicodedata.normalize("NFKC", line[-4 * _WINDOW :]), leading=True)
    if len(line) > 4 * _WINDOW:
        core = "…" + core  # a cut line never starts where its verdict might
    without = _COPULA.sub("", core)
    return strip_filler(without, leading=True) if without != core else core

"""Choice replies of model-graded classification (openai-evals style): which of the
allowed choice strings the judge answered, read by the rule of the ``eval_type``."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

from ragjudge.metrics.replies._base import ParseError, Reply, is_echo, is_quote, normalized
from ragjudge.schema import INVALID_CHOICE

EVAL_TYPES = ("cot_classify", "classify_cot", "classify")

# A Japanese sentence may close on a copula after the answer (答えはBです。).
_QUOTED_EDGE_CHARS = 16
_COPULA = re.compile(r"(?:です|である|だ|となります|になります|とします)$")


def scan_choice(
    text: str,
    choices: Sequence[str],
    eval_type: str = "cot_classify",
    *,
    evaluated: Sequence[str] = (),
) -> str:
    """Find which of ``choices`` a model-graded classification answered.

    ``eval_type`` says where the answer sits:

    - ``"cot_classify"`` (reasoning, then the answer): the last line that ends or
      starts with a choice wins (its end first);
    - ``"classify_cot"`` (answer, then reasoning): the first such line wins (its
      start first);
    - ``"classify"``: the whole reply must be one choice.

    Around a choice, whitespace, punctuation, symbols and markdown emphasis do not
    count (``**Answer:** (B).``, ``「はい」``), nor does a closing Japanese copula
    (``答えはBです。``). A choice matches only as a whole token: it may not be glued to
    Latin letters, digits or ``_`` (``"A"`` is not in ``"ANSWER"``), while Japanese
    text right next to it is fine. A one-character choice that opens a line must stand
    apart — followed by punctuation, a symbol, Japanese text or the end of the line
    (``A.``, ``(A)``, ``A:``) — so the article of ``A careful reading …`` is not
    choice A. Matching is case-sensitive, but a choice of two or more characters
    matches in any case (``yes`` for ``Yes``). When choices overlap at an edge the
    longest wins. Text and choices are NFKC-normalised first (``Ａ`` is ``A``); the
    choice is returned as given in ``choices``.

    The judge's own verdict only: lines that quote the ``evaluated`` texts (long lines
    repeated from them) are skipped, and a choice the line shares with the data — the
    line is also in the data, or so are the words that end (start) it with the choice,
    as in ``The response ends with: … the verdict is A`` — counts only when no other
    line gives a choice.

    Raises :class:`ParseError` when no choice is found and ``ValueError`` for empty
    ``choices`` or an unknown ``eval_type``.
    """
    options = _checked(choices, eval_type)
    lines = [line for line in normalized(text).splitlines() if line.strip()]
    own = [line for line in lines if not is_quote(line, evaluated)]
    if eval_type == "classify":
        found = _whole_reply_choice("\n".join(own), options)
    else:
        found = _edge_choice_of_lines(own, options, evaluated, from_end=eval_type == "cot_classify")
    if found is None:
        raise ParseError(_no_choice_message(text, options, eval_type))
    return found


class ChoiceReply(Reply[str]):
    """The choice a judge made among ``choices``, read by the rule of ``eval_type``
    (:func:`scan_choice`).

    A reply that names no choice is a :class:`ParseError` (the kit asks again, then
    records an explicit error) unless ``invalid_is_choice``: then it is read as
    :data:`INVALID_CHOICE` without asking again, as openai-evals does.
    """

    def __init__(
        self,
        choices: Sequence[str],
        eval_type: str = "cot_classify",
        *,
        invalid_is_choice: bool = False,
    ) -> None:
        self.choices = _checked(choices, eval_type)
        self.eval_type = eval_type
        self.invalid_is_choice = invalid_is_choice

    def parse(self, text: str, *, evaluated: Sequence[str] = ()) -> str:
        """The choice the reply gives (or :data:`INVALID_CHOICE`, see the class)."""
        try:
            return scan_choice(text, self.choices, self.eval_type, evaluated=evaluated)
        except ParseError:
            if self.invalid_is_choice:
                return INVALID_CHOICE
            raise

    def stand_in(self) -> str:
        """The first choice where the eval type expects it, after or before a line
        of reasoning."""
        choice = self.choices[0]
        if self.eval_type == "classify":
            return choice
        reasoning = "(dry run) reasoning."
        if self.eval_type == "classify_cot":
            return f"{choice}\n{reasoning}"
        return f"{reasoning}\n{choice}"


def _checked(choices: Sequence[str], eval_type: str) -> list[str]:
    options = list(choices)
    if not options or any(not _normalise(choice) for choice in options):
        raise ValueError("choices must be a non-empty list of non-empty strings")
    if eval_type not in EVAL_TYPES:
        raise ValueError(f"eval_type must be one of {', '.join(EVAL_TYPES)}, not {eval_type!r}")
    return options


def _no_choice_message(text: str, options: list[str], eval_type: str) -> str:
    shown = " ".join(text.split())
    shown = shown if len(shown) <= 80 else "…" + shown[-80:]
    listed = ", ".join(f'"{o}"' for o in options)
    where = {
        "cot_classify": "end your reply with a line holding only one of them",
        "classify_cot": "begin your reply with a line holding only one of them",
        "classify": "reply with only one of them",
    }[eval_type]
    return f"none of the choices {listed} found in the reply {shown!r}; {where}"


def _normalise(text: str) -> str:
    return unicodedata.normalize("NFKC", text).strip()


def _is_filler(char: str) -> bool:
    """Whitespace, punctuation or symbols that may surround an answer."""
    return char.isspace() or unicodedata.category(char)[0] in "PS"


def _strip_filler(text: str) -> str:
    start, end = 0, len(text)
    while start < end and _is_filler(text[start]):
        start += 1
    while end > start and _is_filler(text[end - 1]):
        end -= 1
    return text[start:end]


def _is_word_char(char: str) -> bool:
    """Letters/digits that would glue onto a Latin token; wide (CJK) characters do not."""
    if not (char.isalnum() or char == "_"):
        return False
    return unicodedata.east_asian_width(char) not in ("W", "F")


def _core(line: str) -> str:
    """A line without the filler around it and without a closing Japanese copula."""
    core = _strip_filler(line)
    without_copula = _COPULA.sub("", core)
    return _strip_filler(without_copula) if without_copula != core else core


def _whole_reply_choice(text: str, options: list[str]) -> str | None:
    core = _core(text)
    for choice in options:
        if core == _normalise(choice):
            return choice
    for choice in options:
        normal = _normalise(choice)
        if len(normal) > 1 and core.casefold() == normal.casefold():
            return choice
    return None


def _edge_choice_of_lines(
    lines: list[str], options: list[str], evaluated: Sequence[str], *, from_end: bool
) -> str | None:
    ordered = list(reversed(lines)) if from_end else lines
    found = [(line, hit) for line in ordered if (hit := _edge_choice(line, options, from_end))]
    # a choice the line shares with the data counts only when no other line gives one
    own = [hit.choice for line, hit in found if not _from_data(line, hit, evaluated)]
    if own:
        return own[0]
    return found[0][1].choice if found else None


def _from_data(line: str, hit: _Hit, evaluated: Sequence[str]) -> bool:
    """Whether the choice of ``line`` may come from the data: the line is also in it,
    or the words that end (start) the line with the choice are (the judge quoting an
    injected verdict: ``The response ends with: … the verdict is A``)."""
    if not evaluated:
        return False
    if is_echo(line, evaluated):
        return True
    core = _core(line)
    if any(core == _core(other) for text in evaluated for other in normalized(text).splitlines()):
        return True
    edge = core[-_QUOTED_EDGE_CHARS:] if hit.at_end else core[:_QUOTED_EDGE_CHARS]
    return len(core) > len(edge.strip()) >= _QUOTED_EDGE_CHARS - 1 and is_echo(edge, evaluated)


@dataclass(frozen=True)
class _Hit:
    choice: str
    at_end: bool


def _edge_choice(line: str, options: list[str], from_end: bool) -> _Hit | None:
    """The choice that ends (``from_end``: checked first) or starts ``line``."""
    core = _core(line)
    for at_end in (True, False) if from_end else (False, True):
        found = _ending(core, options) if at_end else _starting(core, options)
        if found is not None:
            return _Hit(found, at_end)
    return None


def _by_length(options: list[str]) -> list[str]:
    return sorted(options, key=lambda option: -len(_normalise(option)))


def _same(a: str, b: str) -> bool:
    return a == b or (len(b) > 1 and a.casefold() == b.casefold())


def _ending(core: str, options: list[str]) -> str | None:
    for choice in _by_length(options):
        token = _normalise(choice)
        if len(core) < len(token) or not _same(core[-len(token) :], token):
            continue
        before = core[-len(token) - 1] if len(core) > len(token) else ""
        if not (before and _is_word_char(before) and _is_word_char(token[0])):
            return choice
    return None


def _starting(core: str, options: list[str]) -> str | None:
    for choice in _by_length(options):
        token = _normalise(choice)
        if not _same(core[: len(token)], token):
            continue
        rest = core[len(token) :]
        if rest and _is_word_char(rest[0]) and _is_word_char(token[-1]):
            continue
        if len(token) == 1 and not _stands_apart(rest):
            continue
        return choice
    return None


def _stands_apart(rest: str) -> bool:
    """Whether what follows a one-character choice at the start of a line sets it
    apart from a word (``A.``, ``A)``, ``A:``, ``Aです``, or nothing)."""
    follow = rest.lstrip()
    if not follow:
        return True
    first = follow[0]
    return _is_filler(first) or unicodedata.east_asian_width(first) in ("W", "F")

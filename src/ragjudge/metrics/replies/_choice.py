"""Choice replies of model-graded classification (openai-evals style): which of the
allowed choice strings the judge answered."""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence

from ragjudge.metrics.replies._base import ParseError

EVAL_TYPES = ("cot_classify", "classify_cot", "classify")


def scan_choice(text: str, choices: Sequence[str], eval_type: str = "cot_classify") -> str:
    """Find which of ``choices`` a model-graded classification answered.

    ``eval_type`` says where the answer sits:

    - ``"cot_classify"`` (reasoning, then the answer): lines are examined from the
      last non-empty one backwards, and within a line the last choice wins;
    - ``"classify_cot"`` (answer, then reasoning): lines from the first, and within a
      line the first choice wins;
    - ``"classify"``: the whole output, stripped of surrounding whitespace,
      punctuation and symbols, must be one choice.

    A choice matches only as a whole token: it may not be glued to Latin letters,
    digits or ``_`` (``"A"`` does not match inside ``"ANSWER"`` or ``"A1"``), while
    Japanese or other full-width text right next to it is fine (``"答えはAです"``).
    Matching is case-sensitive; a choice of two or more characters also matches in
    another case when it is the whole output (``classify``), or ends (``cot_classify``)
    or starts (``classify_cot``) its line. Text and choices are NFKC-normalised
    first, so full-width ``Ａ`` matches ``A``. When choices overlap at one position
    the longest wins. The choice is returned as given in ``choices``.

    Raises :class:`ParseError` when no choice is found (the metric then records
    ``__invalid__`` as an error) and ``ValueError`` for empty ``choices`` or an
    unknown ``eval_type``.
    """
    options = list(choices)
    if not options or any(not _normalise(choice) for choice in options):
        raise ValueError("choices must be a non-empty list of non-empty strings")
    if eval_type not in EVAL_TYPES:
        raise ValueError(f"eval_type must be one of {', '.join(EVAL_TYPES)}, not {eval_type!r}")
    normalised = _normalise(text)
    if eval_type == "classify":
        found = _whole_text_choice(normalised, options)
    else:
        found = _scan_lines(normalised, options, from_end=eval_type == "cot_classify")
    if found is None:
        shown = normalised if len(normalised) <= 80 else "…" + normalised[-80:]
        raise ParseError(f"none of the choices {options} found in judge output {shown!r}")
    return found


def _normalise(text: str) -> str:
    return unicodedata.normalize("NFKC", text).strip()


def _is_edge_filler(char: str) -> bool:
    """Whitespace, punctuation or symbols that may surround an answer."""
    return char.isspace() or unicodedata.category(char)[0] in "PS"


def _strip_filler(text: str) -> str:
    start, end = 0, len(text)
    while start < end and _is_edge_filler(text[start]):
        start += 1
    while end > start and _is_edge_filler(text[end - 1]):
        end -= 1
    return text[start:end]


def _is_word_char(char: str) -> bool:
    """Letters/digits that would glue onto a Latin token; wide (CJK) characters do not."""
    if not (char.isalnum() or char == "_"):
        return False
    return unicodedata.east_asian_width(char) not in ("W", "F")


def _whole_text_choice(text: str, options: list[str]) -> str | None:
    core = _strip_filler(text)
    for choice in options:
        if core == _normalise(choice):
            return choice
    for choice in options:
        normal = _normalise(choice)
        if len(normal) > 1 and core.casefold() == normal.casefold():
            return choice
    return None


def _scan_lines(text: str, options: list[str], *, from_end: bool) -> str | None:
    lines = [line for line in text.splitlines() if line.strip()]
    if from_end:
        lines.reverse()
    for line in lines:
        found = _choice_in_line(line, options, from_end=from_end)
        if found is not None:
            return found
    return None


def _choice_in_line(line: str, options: list[str], *, from_end: bool) -> str | None:
    """The last (``from_end``) or first case-sensitive whole-token choice in ``line``,
    else a multi-character choice in any case at that end of the line."""
    best: tuple[int, int, str] | None = None  # (position key, length, choice)
    for choice in options:
        for start, end in _token_matches(line, _normalise(choice)):
            key = end if from_end else -start
            candidate = (key, end - start, choice)
            if best is None or candidate[:2] > best[:2]:
                best = candidate
    if best is not None:
        return best[2]
    edge = _strip_filler(line).casefold()
    for choice in sorted(options, key=lambda option: -len(_normalise(option))):
        normal = _normalise(choice).casefold()
        if len(normal) < 2:
            continue
        matches = _token_matches(edge, normal)
        if from_end and any(end == len(edge) for _, end in matches):
            return choice
        if not from_end and any(start == 0 for start, _ in matches):
            return choice
    return None


def _token_matches(line: str, token: str) -> list[tuple[int, int]]:
    """Spans where ``token`` occurs in ``line`` not glued to neighbouring word chars."""
    spans: list[tuple[int, int]] = []
    start = line.find(token)
    while start != -1:
        end = start + len(token)
        glued_before = start > 0 and _is_word_char(token[0]) and _is_word_char(line[start - 1])
        glued_after = end < len(line) and _is_word_char(token[-1]) and _is_word_char(line[end])
        if not glued_before and not glued_after:
            spans.append((start, end))
        start = line.find(token, start + 1)
    return spans

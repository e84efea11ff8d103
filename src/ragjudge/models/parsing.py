"""Parsers for judge outputs, shared by the metrics. Pure functions, no I/O.

Each parser either returns a value or raises :class:`ParseError` with a message that
says what was wrong; the caller records that as an explicit error (or re-asks the
judge), never as a score. Each function's docstring lists what it tolerates.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Sequence
from typing import Any


class ParseError(ValueError):
    """A judge output that does not have the expected form."""


# ---------------------------------------------------------------------------
# "[RESULT] n" (Prometheus-style absolute grading)

_RESULT_MARKER = re.compile(r"[\[［]\s*RESULT\s*[\]］]", re.IGNORECASE)
# What may sit between the marker and the number: spaces, markdown emphasis, ":" or "=".
_AFTER_MARKER = re.compile(r"^[\s*_:：=]+")
_SCORE = re.compile(r"([+\-－]?\d+)(?:\s*/\s*(\d+))?")


def parse_result_score(text: str, *, allowed: range = range(0, 6)) -> tuple[int, str]:
    """Parse ``"<feedback> [RESULT] <n>"`` and return ``(n, feedback)``.

    Only the **final** ``[RESULT]`` marker counts (earlier ones, e.g. in restated
    instructions, are ignored); ``feedback`` is the text before it, stripped of
    whitespace and markdown ``*``.

    Tolerated: any case and full-width brackets in the marker (``[Result]``, ``［RESULT］``);
    spaces, ``:``/``=`` and markdown emphasis between marker and number
    (``[RESULT]: 4``, ``**[RESULT]** **4**``); full-width digits; a trailing
    ``/top`` when ``top`` is the highest allowed score (``[RESULT] 4/5`` on the
    default 0–5 scale); any text after the number (``[RESULT] 4.`` or a closing remark).

    Raises :class:`ParseError` when there is no marker, when the final marker is not
    followed by an integer (``[RESULT] four``), for a decimal (``[RESULT] 4.5``), for a
    fraction over another scale (``[RESULT] 4/10``) and for a value outside ``allowed``.
    """
    markers = list(_RESULT_MARKER.finditer(text))
    if not markers:
        raise ParseError("no [RESULT] marker in the judge output")
    marker = markers[-1]
    feedback = text[: marker.start()].strip().rstrip("*").strip()
    rest = text[marker.end() :]
    rest = _AFTER_MARKER.sub("", rest, count=1)
    score_match = _SCORE.match(rest)
    if score_match is None:
        raise ParseError(f"the final [RESULT] marker is followed by {rest[:20]!r}, not an integer")
    after = rest[score_match.end() :]
    if re.match(r"[.,．，]\d", after):
        raise ParseError(f"[RESULT] value {rest[: score_match.end() + 3]!r} is not an integer")
    score = int(score_match.group(1).replace("－", "-"))
    _check_denominator(score_match.group(2), allowed)
    if score not in allowed:
        raise ParseError(
            f"[RESULT] value {score} is outside the allowed range "
            f"{allowed.start}–{allowed.stop - 1}"
        )
    return score, feedback


def _check_denominator(denominator: str | None, allowed: range) -> None:
    if denominator is None:
        return
    top = allowed[-1] if len(allowed) else None
    if int(denominator) != top:
        raise ParseError(
            f"[RESULT] is given out of {int(denominator)}, but the scale tops out at {top}"
        )


# ---------------------------------------------------------------------------
# JSON objects

_FENCE = re.compile(r"```[ \t]*[A-Za-z0-9_-]*[ \t]*\r?\n?(.*?)```", re.DOTALL)


def parse_json_object(text: str) -> dict[str, Any]:
    """Extract the single JSON object a judge was asked to produce.

    Tolerated: a byte-order mark; markdown code fences (```` ```json ```` or bare
    ```` ``` ````; when fences are present only their contents are considered);
    prose before and after the object; trailing commas before ``}`` or ``]``;
    brace-delimited prose that is not valid JSON (it is skipped).

    Not tolerated (:class:`ParseError`): no object at all, a truncated object, a
    top-level array or scalar, several complete objects (ambiguous), and
    non-JSON syntax such as single quotes, comments, ``True``/``None``.
    """
    cleaned = text.lstrip("\ufeff").strip()
    if not cleaned:
        raise ParseError("empty judge output; expected a JSON object")
    direct = _loads_lenient(cleaned)
    if isinstance(direct, dict):
        return direct
    if direct is not None:
        raise ParseError(f"expected a JSON object, got a JSON {type(direct).__name__}")
    fenced = _FENCE.findall(cleaned)
    regions = fenced if fenced else [cleaned]
    objects = [obj for region in regions for obj in _objects_in(region)]
    if not objects:
        raise ParseError("no complete JSON object in the judge output")
    if len(objects) > 1:
        raise ParseError(f"found {len(objects)} JSON objects; expected exactly one")
    return objects[0]


def _objects_in(region: str) -> list[dict[str, Any]]:
    """Every top-level ``{...}`` span in ``region`` that parses as a JSON object."""
    found: list[dict[str, Any]] = []
    for span in _brace_spans(region):
        value = _loads_lenient(span)
        if isinstance(value, dict):
            found.append(value)
    return found


def _brace_spans(text: str) -> list[str]:
    """Balanced top-level ``{...}`` substrings, skipping braces inside JSON strings."""
    spans: list[str] = []
    depth = 0
    start = 0
    in_string = False
    escaped = False
    for index, char in enumerate(text):
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"' and depth > 0:
            in_string = True
        elif char == "{":
            if depth == 0:
                start = index
            depth += 1
        elif char == "}" and depth > 0:
            depth -= 1
            if depth == 0:
                spans.append(text[start : index + 1])
    return spans


def _loads_lenient(candidate: str) -> Any:
    """``json.loads`` after removing trailing commas; ``None`` when it still fails."""
    for attempt in (candidate, _drop_trailing_commas(candidate)):
        try:
            return json.loads(attempt)
        except ValueError:
            continue
    return None


def _drop_trailing_commas(text: str) -> str:
    """Remove commas that directly precede ``}`` or ``]`` (outside strings)."""
    kept: list[str] = []
    pending_comma: int | None = None
    in_string = False
    escaped = False
    for char in text:
        if in_string:
            kept.append(char)
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
            continue
        if char in "}]" and pending_comma is not None:
            del kept[pending_comma]
        if not char.isspace():
            pending_comma = None
        if char == ",":
            pending_comma = len(kept)
        elif char == '"':
            in_string = True
        kept.append(char)
    return "".join(kept)


# ---------------------------------------------------------------------------
# Choice scanning (model-graded classification)

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

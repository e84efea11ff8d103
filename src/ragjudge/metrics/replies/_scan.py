"""Linear scans of a judge reply: its lines, and the JSON objects that stand on lines of
their own. Every function here reads each character a bounded number of times, so a
reply's cost grows with its length, never with its square."""

from __future__ import annotations

import json
import re
import string
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

_LINE_BREAK = re.compile(r"\r\n|[\r\n\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")
_JSON_STRUCTURE = re.compile(r'[{}"\\\n]')
_FENCE_OPENING = re.compile(r"[ \t]*(?:```+|~~~+)[ \t]*[A-Za-z0-9_+-]*[ \t]*")
_FENCE_CLOSING = re.compile(r"[ \t]*(?:```+|~~~+)?[ \t]*\r?")
_EDGE_WINDOW = 24
"""How far before an object's ``{`` (after its ``}``) a fence may reach on its line."""


def reply_lines(text: str) -> list[str]:
    """The lines of a reply, split at every line break Unicode knows (a judge may write
    U+2028 where it means a new line); the breaks themselves are dropped."""
    return _LINE_BREAK.split(text)


def is_quotation(line: str) -> bool:
    """A markdown blockquote line (``> …``): the judge quoting, never its verdict."""
    return line.lstrip(" \t").startswith((">", "＞"))


@dataclass(frozen=True)
class JsonSpan:
    """A balanced ``{…}`` at the top level of a text; ``standalone`` when nothing but
    spaces or a code fence shares its first and last lines (a JSON document of the
    reply's own, not an object written inside a sentence)."""

    start: int
    end: int
    standalone: bool


def json_spans(text: str) -> Iterator[JsonSpan]:
    """Every balanced top-level ``{…}`` of ``text`` in order, braces inside JSON strings
    skipped (found as the scan goes, so a reader may stop early)."""
    depth = 0
    start = opened_at = line_start = 0
    in_string = False
    escaped_at = -1  # the position of the character a backslash escapes
    for found in _JSON_STRUCTURE.finditer(text):
        char, index = found.group(), found.start()
        if char == "\n":  # a raw line break ends any JSON string
            line_start = index + 1
            in_string = False
        elif index == escaped_at:
            continue
        elif in_string:
            if char == "\\":
                escaped_at = index + 1
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = depth > 0
        elif char == "{":
            if depth == 0:
                start, opened_at = index, line_start
            depth += 1
        elif char == "}" and depth > 0:
            depth -= 1
            if depth == 0:
                alone = _alone_before(text, opened_at, start) and _alone_after(text, index + 1)
                yield JsonSpan(start, index + 1, alone)


def _alone_before(text: str, line_start: int, start: int) -> bool:
    if start - line_start > _EDGE_WINDOW:
        return False
    before = text[line_start:start]
    return not before.strip() or _FENCE_OPENING.fullmatch(before) is not None


def _alone_after(text: str, end: int) -> bool:
    line_end = text.find("\n", end, end + _EDGE_WINDOW + 1)
    if line_end == -1:
        if len(text) - end > _EDGE_WINDOW:
            return False
        line_end = len(text)
    return _FENCE_CLOSING.fullmatch(text, end, line_end) is not None


def loads_lenient(candidate: str) -> Any:
    """``json.loads`` after removing trailing commas; ``None`` when it still fails."""
    for attempt in (candidate, drop_trailing_commas(candidate)):
        try:
            return json.loads(attempt)
        except ValueError:
            continue
        except RecursionError:
            return None
    return None


def drop_trailing_commas(text: str) -> str:
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
            kept[pending_comma] = ""
        if not char.isspace():
            pending_comma = None
        if char == ",":
            pending_comma = len(kept)
        elif char == '"':
            in_string = True
        kept.append(char)
    return "".join(kept)


_ASCII_FILLER = string.punctuation + string.whitespace


def strip_filler(text: str, *, leading: bool = True) -> str:
    """``text`` without the whitespace, punctuation and symbols around it (at its end
    only, unless ``leading``): what may surround an answer or a quoted line."""
    text = text.rstrip(_ASCII_FILLER)
    if leading:
        text = text.lstrip(_ASCII_FILLER)
    start, end = 0, len(text)
    while leading and start < end and _is_filler(text[start]):
        start += 1
    while end > start and _is_filler(text[end - 1]):
        end -= 1
    return text[start:end]


def _is_filler(char: str) -> bool:
    return char.isspace() or unicodedata.category(char)[0] in "PS"

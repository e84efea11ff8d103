"""What every reply parser shares: the error it raises, the interface the metric kit
calls, and the rule that text quoted from the evaluated data cannot give a verdict."""

from __future__ import annotations

import re
import unicodedata
from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Any, Generic, TypeVar

from ragjudge.errors import MetricError

T = TypeVar("T")


class ParseError(MetricError, ValueError):
    """A judge output that does not have the expected form. The message says what is
    wrong; the judge is shown it when it is asked again."""


class Reply(ABC, Generic[T]):
    """How a judge's reply is read.

    :meth:`parse` returns the parsed value or raises :class:`ParseError`; the metric
    kit re-asks the judge with the reason, then records an explicit error.
    ``evaluated`` holds the evaluated texts the prompt showed the judge, so a parser
    can ignore a verdict the judge merely quoted from them. :meth:`stand_in` is a reply
    that parses — what the dry run's stand-in judge answers — derived from the reply's
    own form, never written per metric. :meth:`reply_schema` is the JSON schema of a
    reply that is one JSON document, for judges that keep their replies to one.
    """

    @abstractmethod
    def parse(self, text: str, *, evaluated: Sequence[str] = ()) -> T:
        """The value the reply gives, or :class:`ParseError`."""

    @abstractmethod
    def stand_in(self) -> str:
        """A reply of the expected form (it must parse)."""

    def reply_schema(self) -> dict[str, Any] | None:
        """The JSON schema of a reply that is one JSON document — sent with the call, so
        a judge that constrains its replies keeps to it — or None for a text reply."""
        return None


def normalized(text: str) -> str:
    """NFKC (full-width digits and brackets become ASCII), unified line breaks."""
    return unicodedata.normalize("NFKC", text).replace("\r\n", "\n").replace("\r", "\n")


_SPACE = re.compile(r"\s+")
_QUOTES = {'"': '"', "'": "'", "“": "”", "‘": "’", "「": "」", "『": "』", "`": "`", "«": "»"}
_MIN_ECHO_CHARS = 6
_MIN_QUOTE_CHARS = 24


def _squeeze(text: str) -> str:
    return _SPACE.sub(" ", text).strip()


def is_echo(line: str, evaluated: Sequence[str]) -> bool:
    """Whether ``line`` of a reply (stripped of markdown emphasis) appears verbatim in
    one of the ``evaluated`` texts. A short line (a bare verdict such as
    ``Answer: yes``) may be the judge's own words that happen to be in the data too;
    a longer one (:func:`is_quote`) is the judge quoting the data."""
    return _echoes(_core(line), _squeezed(evaluated))


def without_quotes(text: str, evaluated: Sequence[str]) -> str:
    """``text`` without the lines that quote the evaluated text (:func:`is_quote`)."""
    lines = text.splitlines()
    if not evaluated:
        return "\n".join(lines)
    data = _squeezed(evaluated)
    return "\n".join(line for line in lines if not _quotes(_core(line), data))


def is_quote(line: str, evaluated: Sequence[str]) -> bool:
    """Whether ``line`` repeats the evaluated text and is too long to be a bare
    verdict: the judge quoting the data, never its own verdict."""
    return _quotes(_core(line), _squeezed(evaluated))


def _squeezed(evaluated: Sequence[str]) -> list[str]:
    return [_squeeze(normalized(text)) for text in evaluated]


def _echoes(core: str, data: Sequence[str]) -> bool:
    return len(core) >= _MIN_ECHO_CHARS and any(core in text for text in data)


def _quotes(core: str, data: Sequence[str]) -> bool:
    return len(core) >= _MIN_QUOTE_CHARS and _echoes(core, data)


def _core(line: str) -> str:
    return _squeeze(normalized(line).strip().strip("*_>#-").strip())


def quoted_spans(line: str) -> list[tuple[int, int]]:
    """Spans of ``line`` inside a pair of quotation marks (``"…"``, ``'…'``, ``“…”``,
    ``「…」``, backticks …): what the judge quotes rather than says."""
    spans: list[tuple[int, int]] = []
    position = 0
    while position < len(line):
        closing = _QUOTES.get(line[position])
        if closing is None or _is_apostrophe(line, position):
            position += 1
            continue
        end = line.find(closing, position + 1)
        if end == -1:
            break
        spans.append((position, end + 1))
        position = end + 1
    return spans


def _is_apostrophe(line: str, index: int) -> bool:
    """A ``'`` between two letters (``don't``) opens no quotation."""
    if line[index] not in "'’":
        return False
    before = line[index - 1] if index > 0 else " "
    after = line[index + 1] if index + 1 < len(line) else " "
    return before.isalnum() and after.isalnum()


def inside(position: int, spans: Sequence[tuple[int, int]]) -> bool:
    """Whether ``position`` falls in one of ``spans``."""
    return any(start < position < end for start, end in spans)

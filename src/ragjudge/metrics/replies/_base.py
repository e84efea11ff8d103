"""What every reply parser shares: the error it raises, the interface the metric kit
calls, and leaving out the lines a judge copied from the evaluated text."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Any, Generic, TypeVar

from ragjudge.errors import MetricError
from ragjudge.metrics.replies._data import data_index, unit_key
from ragjudge.metrics.replies._scan import reply_lines

T = TypeVar("T")

_MIN_QUOTE_CHARS = 24
_MAX_QUOTE_CHECKS = 64


class ParseError(MetricError, ValueError):
    """A judge output that does not have the expected form. The message says what is
    wrong; the judge is shown it when it is asked again."""


class Reply(ABC, Generic[T]):
    """How a judge's reply is read.

    :meth:`parse` returns the parsed value or raises :class:`ParseError`; the metric
    kit re-asks the judge with the reason, then records an explicit error.
    ``evaluated`` holds the evaluated texts the prompt showed the judge (the kit passes
    an :class:`~ragjudge.metrics.replies.Evaluated`, whose index is built once), so a
    parser never takes a verdict from text the judge reproduced from them.
    :meth:`stand_in` is a reply that parses — what the dry run's stand-in judge
    answers — derived from the reply's own form, never written per metric.
    :meth:`reply_schema` is the JSON schema of a reply that is one JSON document, for
    judges that keep their replies to one.
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


def without_quotes(text: str, evaluated: Sequence[str]) -> str:
    """``text`` without the lines that repeat a line of the evaluated text (lines of at
    least 24 characters, so a short answer of the judge's own is kept). For replies
    that are not verdicts (an agent's answer); at most 64 lines are compared."""
    lines = reply_lines(text)
    if not evaluated:
        return "\n".join(lines)
    data = data_index(evaluated)
    kept: list[str] = []
    checks = 0
    for line in lines:
        if checks < _MAX_QUOTE_CHECKS and len(unit_key(line)) >= _MIN_QUOTE_CHARS:
            checks += 1
            if data.reproduces(line):
                continue
        kept.append(line)
    return "\n".join(kept)

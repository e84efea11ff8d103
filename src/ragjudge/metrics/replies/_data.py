"""What the judge was shown as data, indexed once per prompt, so a reader can tell the
judge's own verdict from a reproduction of the evaluated text.

Units are compared whole: a reply line, the clause that gives its verdict, or a JSON
object — never a fragment cut out of them. A unit reproduces the data when, read the
same way (NFKC, markdown emphasis and invisible characters dropped, spaces squeezed,
punctuation at its edges ignored, case folded), it is a whole line of an evaluated text,
or — when it is long enough not to be any judge's bare verdict — it stands in an
evaluated line between word boundaries. A JSON object reproduces the data when an equal
object (any spacing or key order) is found in it.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence
from typing import Any

from ragjudge.metrics.replies._scan import json_spans, loads_lenient, reply_lines, strip_filler

MIN_CONTAINED = 6
"""A shorter unit (``yes``, ``B``, ``[[A]]``) is compared with whole lines only."""

_ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]")
_INVISIBLE = re.compile(
    "[\x00-\x08\x0e-\x1f\x7f-\x9f\u00ad\u200b-\u200f\u202a-\u202e\u2060-\u2064\ufeff]"
)
_EMPHASIS = re.compile(r"[*_`~]+")


def unit_key(text: str) -> str:
    """``text`` as units are compared: NFKC, without escape sequences, invisible
    characters and markdown emphasis, spaces squeezed, edge punctuation dropped,
    case folded."""
    return _line_key(_plain(text))


def _plain(text: str) -> str:
    """NFKC, without escape sequences, invisible characters and markdown emphasis (done
    once for a whole text, then per line by :func:`_line_key`)."""
    text = unicodedata.normalize("NFKC", _ANSI.sub("", text))
    return _EMPHASIS.sub("", _INVISIBLE.sub("", text))


def _line_key(line: str) -> str:
    return strip_filler(" ".join(line.split())).casefold()


def _glued(left: str, right: str) -> bool:
    """Whether two characters would join into one Latin word (CJK text never glues)."""
    return _word_char(left) and _word_char(right)


def _word_char(char: str) -> bool:
    return (char.isalnum() or char == "_") and unicodedata.east_asian_width(char) not in "WF"


class DataIndex:
    """The evaluated texts of one prompt: their line keys, all their text for
    containment, and the JSON objects they hold. Built in one pass over the data."""

    def __init__(self, texts: Iterable[str]) -> None:
        keys: list[str] = []
        self.objects: set[Any] = set()
        for text in texts:
            keys.extend(key for key in map(_line_key, reply_lines(_plain(text))) if key)
            self.objects.update(_frozen_objects(text))
        self.lines = frozenset(keys)
        self._joined = "\n" + "\n".join(keys) + "\n"

    def __bool__(self) -> bool:
        return bool(self.lines or self.objects)

    def reproduces(self, unit: str) -> bool:
        """Whether ``unit`` (a reply line, or the clause of a verdict) repeats the data."""
        key = unit_key(unit)
        if not key:
            return False
        if key in self.lines:
            return True
        return len(key) >= MIN_CONTAINED and self._contains(key)

    def reproduces_object(self, value: Any) -> bool:
        """Whether the JSON ``value`` equals an object of the data."""
        return bool(self.objects) and freeze(value) in self.objects

    def _contains(self, key: str) -> bool:
        joined = self._joined
        position = joined.find(key)
        while position != -1:
            before, after = joined[position - 1], joined[position + len(key)]
            if not _glued(before, key[0]) and not _glued(key[-1], after):
                return True
            position = joined.find(key, position + 1)
        return False


def freeze(value: Any) -> Any:
    """A hashable twin of a JSON value: equal values (any key order) freeze equal."""
    if isinstance(value, dict):
        return frozenset((str(k), freeze(v)) for k, v in value.items())
    if isinstance(value, list):
        return tuple(freeze(v) for v in value)
    return value


def _frozen_objects(text: str) -> Iterable[Any]:
    """Every JSON object of ``text``, nested ones too, frozen."""
    if "{" not in text:
        return
    for span in json_spans(text):
        value = loads_lenient(text[span.start : span.end])
        if isinstance(value, dict):
            yield from _objects_within(value)


def _objects_within(value: Any) -> Iterable[Any]:
    pending = [value]
    while pending:
        item = pending.pop()
        if isinstance(item, dict):
            yield freeze(item)
            pending.extend(item.values())
        elif isinstance(item, list):
            pending.extend(item)


class Evaluated(Sequence[str]):
    """The evaluated texts of one prompt with their :class:`DataIndex`, built on first
    use and kept for the re-asks of the same prompt."""

    def __init__(self, texts: Iterable[str]) -> None:
        self._texts = tuple(texts)
        self._index: DataIndex | None = None

    def __getitem__(self, item: Any) -> Any:
        return self._texts[item]

    def __len__(self) -> int:
        return len(self._texts)

    @property
    def data(self) -> DataIndex:
        """The index of these texts."""
        if self._index is None:
            self._index = DataIndex(self._texts)
        return self._index


def data_index(evaluated: Sequence[str]) -> DataIndex:
    """The index of ``evaluated`` (kept with it when it is an :class:`Evaluated`)."""
    if isinstance(evaluated, Evaluated):
        return evaluated.data
    return DataIndex(evaluated)

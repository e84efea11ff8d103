"""Strict JSON for evaluation sets: what :mod:`json` would read silently, but a row must
not hold, is refused or kept visible for the row's checks
(:func:`~ragjudge.loading._values.value_problem`), which name the field:

- ``NaN`` and ``Infinity`` are not JSON and are refused here;
- a key given twice in one object (``json`` keeps the last value without a word)
  becomes a :class:`RepeatedKeys` object;
- a whole number longer than Python reads from text (:data:`MAX_INT_DIGITS` digits;
  ``json`` raises a bare ``ValueError``) becomes a :class:`LongNumber`;
- a number beyond a float's range (``1e400``), which ``json`` reads as infinity, is
  left to the checks, which refuse infinite numbers; :meth:`JsonReader.read` says
  when a text holds one.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any

from ragjudge.errors import DataError

__all__ = ["MAX_INT_DIGITS", "JsonReader", "LongNumber", "NotJson", "RepeatedKeys"]

MAX_INT_DIGITS = 4300
"""The most digits of a whole number read from the data: Python's own default limit for
reading one from text."""


class NotJson(DataError):
    """Text of the evaluation set that strict JSON does not accept; the message says
    why (the reader makes it a problem of the row or the file)."""


@dataclass(frozen=True)
class LongNumber:
    """A whole number in the data with more digits than Python reads from text."""

    digits: int


class RepeatedKeys(dict[str, Any]):
    """A JSON object that gives a key more than once (holding the last values)."""

    def __init__(self, pairs: list[tuple[str, Any]], repeated: list[str]) -> None:
        super().__init__(pairs)
        self.repeated = repeated


class JsonReader:
    """Reads JSON texts one at a time with the rules of the module docstring (one
    reader for the lines of a file: it keeps its decoder)."""

    def __init__(self) -> None:
        self._marked = False
        self._decoder = json.JSONDecoder(
            parse_constant=_refuse, object_pairs_hook=self._object, parse_float=self._float
        )

    def read(self, text: str) -> tuple[Any, bool]:
        """The value of ``text`` and whether it holds what the row checks must name (a
        repeated key, a long number, a number out of range). Raises :class:`NotJson` or
        ``json.JSONDecodeError``."""
        self._marked = False
        try:
            value = self._decoder.decode(text)
        except (json.JSONDecodeError, NotJson):
            raise
        except RecursionError:
            raise NotJson("arrays or objects are nested too deeply to read") from None
        except ValueError:  # a whole number too long to read
            return self._with_long_numbers(text), True
        return value, self._marked

    def _with_long_numbers(self, text: str) -> Any:
        decoder = json.JSONDecoder(
            parse_constant=_refuse,
            object_pairs_hook=self._object,
            parse_float=self._float,
            parse_int=_whole_number,
        )
        try:
            return decoder.decode(text)
        except RecursionError:
            raise NotJson("arrays or objects are nested too deeply to read") from None

    def _object(self, pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        found = dict(pairs)
        if len(found) == len(pairs):
            return found
        self._marked = True
        seen: set[str] = set()
        repeated: list[str] = []
        for key, _ in pairs:
            if key in seen:
                repeated.append(key)
            seen.add(key)
        return RepeatedKeys(pairs, repeated)

    def _float(self, text: str) -> float:
        number = float(text)
        if math.isinf(number):
            self._marked = True
        return number


def _refuse(constant: str) -> Any:
    raise NotJson(f"{constant} is not a JSON value (write null for a missing value)")


def _whole_number(digits: str) -> int | LongNumber:
    length = len(digits.lstrip("-"))
    if length > MAX_INT_DIGITS:
        return LongNumber(length)
    try:
        return int(digits)
    except ValueError:  # this process reads fewer digits than Python's default
        return LongNumber(length)

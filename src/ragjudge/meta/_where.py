"""The row filter of a meta-evaluation (``--where``): a small expression over the
samples' metadata, read by a parser of its own (nothing is handed to Python's eval).

The language::

    expression := clause ("or" clause)*
    clause     := factor ("and" factor)*
    factor     := "not" factor | "(" expression ")" | comparison
    comparison := KEY ("==" | "!=" | "<" | "<=" | ">" | ">=") VALUE
                | KEY ["not"] "in" "(" VALUE ("," VALUE)* ")"

``KEY`` is a metadata key (letters, digits, ``_ . - /``, or any text in backquotes);
``VALUE`` a number, a quoted text (``"Fully attributable"`` or ``'…'``) or a bare word
(``true``, ``train``). Two values are equal when both read as the same number, else
when their texts are equal; ``<``, ``<=``, ``>``, ``>=`` compare numbers only (a sample
whose value is not a number does not match). A sample without the key matches only
``!=`` and ``not in``. Words are case-insensitive: ``and``, ``or``, ``not``, ``in``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, NoReturn

import pandas as pd

from ragjudge.errors import AnalysisError, ConfigError
from ragjudge.stats import metadata_column

__all__ = ["Where", "parse_where", "rows_matching"]

Row = Mapping[str, Any]
Predicate = Callable[[Row], bool]

_TOKEN = re.compile(
    r"""\s*(?:
        (?P<op>==|!=|<=|>=|<|>|\(|\)|,)
      | "(?P<dq>[^"]*)"
      | '(?P<sq>[^']*)'
      | `(?P<bq>[^`]+)`
      | (?P<word>[^\s()=!<>,"'`]+)
    )""",
    re.VERBOSE,
)
_COMPARISONS = ("==", "!=", "<", "<=", ">", ">=")


@dataclass(frozen=True)
class _Token:
    kind: str  # "op", "text" (quoted) or "word"
    text: str
    at: int


@dataclass(frozen=True)
class Where:
    """A parsed ``--where`` expression: its text, the metadata keys it reads, and
    whether a sample (its metadata by key) matches it."""

    text: str
    keys: tuple[str, ...]
    matches: Predicate


def parse_where(text: str) -> Where:
    """Parse ``text`` (see the module docstring); a
    :class:`~ragjudge.errors.ConfigError` names the expression and what is wrong."""
    if not text.strip():
        raise ConfigError("--where needs an expression, such as: split == test")
    parser = _Parser(text, _tokens(text))
    predicate = parser.expression()
    if parser.position < len(parser.tokens):
        parser.fail("expected 'and', 'or' or the end")
    return Where(text, tuple(dict.fromkeys(parser.keys)), predicate)


def _tokens(text: str) -> list[_Token]:
    tokens: list[_Token] = []
    position = 0
    while position < len(text):
        if not text[position:].strip():
            break
        found = _TOKEN.match(text, position)
        if found is None:
            raise ConfigError(f"--where {text!r}: cannot read {text[position:].strip()!r}")
        kind = found.lastgroup or "word"
        value = found.group(kind)
        kinds = {"op": "op", "word": "word", "bq": "key"}
        tokens.append(_Token(kinds.get(kind, "text"), value, found.start(kind)))
        position = found.end()
    return tokens


class _Parser:
    """Recursive descent over the tokens; every rule returns a predicate."""

    def __init__(self, text: str, tokens: list[_Token]) -> None:
        self.text = text
        self.tokens = tokens
        self.position = 0
        self.keys: list[str] = []

    def fail(self, problem: str) -> NoReturn:
        if self.position < len(self.tokens):
            token = self.tokens[self.position]
            where = f"at {token.text!r} (character {token.at + 1})"
        else:
            where = "" if "ends" in problem else "at the end"
        raise ConfigError(f"--where {self.text!r}: {problem} {where}".rstrip())

    def peek_word(self, *words: str) -> bool:
        if self.position >= len(self.tokens):
            return False
        token = self.tokens[self.position]
        return token.kind == "word" and token.text.lower() in words

    def peek_op(self, *ops: str) -> bool:
        if self.position >= len(self.tokens):
            return False
        token = self.tokens[self.position]
        return token.kind == "op" and token.text in ops

    def take(self) -> _Token:
        if self.position >= len(self.tokens):
            self.fail("the expression ends too early")
        token = self.tokens[self.position]
        self.position += 1
        return token

    def expression(self) -> Predicate:
        parts = [self.clause()]
        while self.peek_word("or"):
            self.take()
            parts.append(self.clause())
        return parts[0] if len(parts) == 1 else lambda row: any(p(row) for p in parts)

    def clause(self) -> Predicate:
        parts = [self.factor()]
        while self.peek_word("and"):
            self.take()
            parts.append(self.factor())
        return parts[0] if len(parts) == 1 else lambda row: all(p(row) for p in parts)

    def factor(self) -> Predicate:
        if self.peek_word("not"):
            self.take()
            inner = self.factor()
            return lambda row: not inner(row)
        if self.peek_op("("):
            self.take()
            inner = self.expression()
            if not self.peek_op(")"):
                self.fail("expected ')'")
            self.take()
            return inner
        return self.comparison()

    def comparison(self) -> Predicate:
        key = self.take()
        if key.kind not in ("word", "key") or key.text.lower() in ("and", "or", "in"):
            self.position -= 1
            self.fail("expected a metadata key")
        self.keys.append(key.text)
        negated = self.peek_word("not")
        if negated:
            self.take()
        if self.peek_word("in"):
            self.take()
            return _membership(key.text, self.value_list(), negated=negated)
        if negated or not self.peek_op(*_COMPARISONS):
            self.fail("expected ==, !=, <, <=, >, >= or in")
        op = self.take().text
        return _compare(key.text, op, self.value())

    def value(self) -> str:
        token = self.take()
        if token.kind == "op" or (token.kind == "word" and token.text.lower() in ("and", "or")):
            self.position -= 1
            self.fail("expected a value")
        return token.text

    def value_list(self) -> list[str]:
        if not self.peek_op("("):
            self.fail("expected '(' after in")
        self.take()
        values = [self.value()]
        while self.peek_op(","):
            self.take()
            values.append(self.value())
        if not self.peek_op(")"):
            self.fail("expected ',' or ')'")
        self.take()
        return values


def _number(value: Any) -> float | None:
    if isinstance(value, bool):
        return float(value)
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) else None


def _missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def _equal(found: Any, wanted: str) -> bool:
    left, right = _number(found), _number(wanted)
    if left is not None and right is not None:
        return left == right
    text = str(found).lower() if isinstance(found, bool) else str(found)
    return text == wanted


def _compare(key: str, op: str, wanted: str) -> Predicate:
    bound = _number(wanted)

    def matches(row: Row) -> bool:
        found = row.get(key)
        if _missing(found):
            return op == "!="
        if op in ("==", "!="):
            return _equal(found, wanted) == (op == "==")
        number = _number(found)
        if number is None or bound is None:
            return False
        return {
            "<": number < bound,
            "<=": number <= bound,
            ">": number > bound,
            ">=": number >= bound,
        }[op]

    return matches


def _membership(key: str, wanted: list[str], *, negated: bool) -> Predicate:
    def matches(row: Row) -> bool:
        found = row.get(key)
        inside = not _missing(found) and any(_equal(found, w) for w in wanted)
        return inside != negated

    return matches


def rows_matching(frame: pd.DataFrame, where: str) -> pd.DataFrame:
    """The rows of a score frame whose sample's metadata match ``where`` (parsed
    here); an :class:`~ragjudge.errors.AnalysisError` when none does, or when no
    sample has a key it reads."""
    parsed = parse_where(where)
    firsts = frame.drop_duplicates("sample_id").set_index("sample_id")
    columns = {key: metadata_column(firsts, key) for key in parsed.keys}
    kept = [
        sample_id
        for sample_id, row in zip(
            firsts.index, firsts[list(columns.values())].itertuples(index=False), strict=True
        )
        if parsed.matches(_row_values(columns, row))
    ]
    if not kept:
        raise AnalysisError(f"--where {where!r} matches no sample")
    return frame[frame["sample_id"].isin(kept)]


def _row_values(columns: Mapping[str, str], row: tuple[Any, ...]) -> dict[str, Any]:
    return dict(zip(columns, row, strict=True))

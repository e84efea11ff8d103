"""The row filter of a data set read as a table (``--where`` of ``ragjudge run``, the
``data_where`` setting): a small expression over the columns, read by a parser of its
own (nothing is handed to Python's eval) and turned into a pyarrow expression.

The language::

    expression := clause ("or" clause)*
    clause     := factor ("and" factor)*
    factor     := "not" factor | "(" expression ")" | comparison
    comparison := COLUMN ("=" | "==" | "!=" | "<" | "<=" | ">" | ">=") VALUE
                | COLUMN ["not"] "in" "(" VALUE ("," VALUE)* ")"

``COLUMN`` is a column name (letters, digits, ``_ . -``, or any text in backquotes);
``VALUE`` a number, a quoted text (``'2026-11-01'``) or a bare word. A value is read as
the column's type, so a date in quotes compares as a date against a date column and as
text against a text column (ISO dates sort as text too). Words are case-insensitive.

Besides the expression, :func:`partition_verdict` tells from a file's partition values
alone whether any of its rows can match: the file of a partition that cannot is never
opened.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ragjudge.errors import ConfigError

if TYPE_CHECKING:
    import pyarrow as pa
    import pyarrow.compute as pc

__all__ = ["Comparison", "Junction", "Negation", "RowFilter", "parse_row_filter"]

_TOKEN = re.compile(
    r"""\s*(?:
        (?P<op>==|!=|<=|>=|=|<|>|\(|\)|,)
      | "(?P<dq>[^"]*)"
      | '(?P<sq>[^']*)'
      | `(?P<bq>[^`]+)`
      | (?P<word>[^\s()=!<>,"'`]+)
    )""",
    re.VERBOSE,
)
_NUMBER = re.compile(r"-?\d+(\.\d+)?([eE][-+]?\d+)?")
_COMPARISONS = ("=", "==", "!=", "<", "<=", ">", ">=")


@dataclass(frozen=True)
class Comparison:
    """``column OP value``, or ``column [not] in (values)`` when ``op`` is ``in`` or
    ``not in``."""

    column: str
    op: str
    values: tuple[Any, ...]


@dataclass(frozen=True)
class Junction:
    """``and`` or ``or`` of its parts."""

    kind: str
    parts: tuple[Node, ...]


@dataclass(frozen=True)
class Negation:
    part: Node


Node = Comparison | Junction | Negation


@dataclass(frozen=True)
class RowFilter:
    """A parsed row filter: its text, the columns it reads and its tree."""

    text: str
    columns: tuple[str, ...]
    tree: Node

    def expression(self, schema: pa.Schema) -> pc.Expression:
        """The filter as a pyarrow expression over a table of ``schema``, each value
        read as its column's type."""
        return _expression(self.tree, schema)

    def unknown_columns(self, names: list[str]) -> list[str]:
        """The columns the filter names that ``names`` lacks."""
        return [c for c in self.columns if c not in names]


def parse_row_filter(text: str, where: str = "--where") -> RowFilter:
    """Parse ``text`` (see the module docstring); a :class:`ConfigError` names
    ``where`` (the option or setting), the expression and what is wrong."""
    if not text.strip():
        raise ConfigError(f"{where} needs an expression, such as: date >= '2026-11-01'")
    parser = _Parser(text, _tokens(text, where), where)
    tree = parser.expression()
    if parser.position < len(parser.tokens):
        parser.fail("expected 'and', 'or' or the end")
    return RowFilter(text, tuple(dict.fromkeys(parser.columns)), tree)


@dataclass(frozen=True)
class _Token:
    kind: str  # "op", "text" (quoted), "name" (backquoted) or "word"
    text: str
    at: int


def _tokens(text: str, where: str) -> list[_Token]:
    tokens: list[_Token] = []
    position = 0
    while position < len(text):
        if not text[position:].strip():
            break
        match = _TOKEN.match(text, position)
        if match is None or match.end() == position:
            raise ConfigError(f"{where} {text!r}: cannot read it at character {position + 1}")
        group = match.lastgroup or "word"
        kind = {"dq": "text", "sq": "text", "bq": "name"}.get(group, group)
        tokens.append(_Token(kind, match.group(group), match.start(group)))
        position = match.end()
    return tokens


class _Parser:
    """A recursive descent parser of the grammar in the module docstring."""

    def __init__(self, text: str, tokens: list[_Token], where: str) -> None:
        self.text, self.tokens, self.where = text, tokens, where
        self.position = 0
        self.columns: list[str] = []

    def fail(self, what: str) -> Any:
        at = self.tokens[self.position].at + 1 if self.position < len(self.tokens) else None
        place = f"at character {at}" if at else "at the end"
        raise ConfigError(f"{self.where} {self.text!r}: {what} {place}")

    def peek_word(self) -> str | None:
        if self.position < len(self.tokens) and self.tokens[self.position].kind == "word":
            return self.tokens[self.position].text.lower()
        return None

    def take(self) -> _Token:
        if self.position >= len(self.tokens):
            self.fail("the expression ends too early")
        token = self.tokens[self.position]
        self.position += 1
        return token

    def take_op(self, op: str) -> None:
        token = self.take()
        if token.kind != "op" or token.text != op:
            self.position -= 1
            self.fail(f"expected {op!r}")

    def expression(self) -> Node:
        parts = [self.clause()]
        while self.peek_word() == "or":
            self.position += 1
            parts.append(self.clause())
        return parts[0] if len(parts) == 1 else Junction("or", tuple(parts))

    def clause(self) -> Node:
        parts = [self.factor()]
        while self.peek_word() == "and":
            self.position += 1
            parts.append(self.factor())
        return parts[0] if len(parts) == 1 else Junction("and", tuple(parts))

    def factor(self) -> Node:
        if self.peek_word() == "not":
            self.position += 1
            return Negation(self.factor())
        token = self.take()
        if token.kind == "op" and token.text == "(":
            inner = self.expression()
            self.take_op(")")
            return inner
        if token.kind not in ("word", "name"):
            self.position -= 1
            self.fail("expected a column name")
        self.columns.append(token.text)
        return self.comparison(token.text)

    def comparison(self, column: str) -> Node:
        negated = self.peek_word() == "not"
        self.position += negated
        if self.peek_word() == "in":
            self.position += 1
            return Comparison(column, "not in" if negated else "in", self.value_list())
        if negated:
            self.fail("expected 'in' after 'not'")
        token = self.take()
        if token.kind != "op" or token.text not in _COMPARISONS:
            self.position -= 1
            self.fail("expected a comparison (= != < <= > >= in)")
        op = "==" if token.text == "=" else token.text
        return Comparison(column, op, (self.value(),))

    def value_list(self) -> tuple[Any, ...]:
        self.take_op("(")
        values = [self.value()]
        while self.position < len(self.tokens) and self.tokens[self.position].text == ",":
            self.position += 1
            values.append(self.value())
        self.take_op(")")
        return tuple(values)

    def value(self) -> Any:
        token = self.take()
        if token.kind == "text":
            return token.text
        if token.kind != "word":
            self.position -= 1
            self.fail("expected a value")
        if _NUMBER.fullmatch(token.text):
            number = float(token.text)
            return int(number) if number.is_integer() and "." not in token.text else number
        return token.text


def _expression(node: Node, schema: pa.Schema) -> pc.Expression:
    import pyarrow.compute as pc

    if isinstance(node, Negation):
        return ~_expression(node.part, schema)
    if isinstance(node, Junction):
        parts = [_expression(part, schema) for part in node.parts]
        combined = parts[0]
        for part in parts[1:]:
            combined = (combined & part) if node.kind == "and" else (combined | part)
        return combined
    field = pc.field(node.column)
    values = [_typed(value, schema.field(node.column).type) for value in node.values]
    if node.op in ("in", "not in"):
        found = field.isin(values)
        return ~found if node.op == "not in" else found
    operations = {
        "==": field.__eq__,
        "!=": field.__ne__,
        "<": field.__lt__,
        "<=": field.__le__,
        ">": field.__gt__,
        ">=": field.__ge__,
    }
    result: pc.Expression = operations[node.op](values[0])
    return result


def _typed(value: Any, kind: pa.DataType) -> Any:
    """``value`` as a pyarrow scalar of the column's type (text for a text column, a
    date for a date column …); as given when it does not convert."""
    import pyarrow as pa

    if pa.types.is_string(kind) or pa.types.is_large_string(kind):
        return pa.scalar(str(value), kind)
    try:
        return pa.scalar(value).cast(kind)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, pa.ArrowTypeError):
        return pa.scalar(value)


def partition_verdict(node: Node, values: dict[str, Any]) -> bool | None:
    """Whether a file whose partition columns hold ``values`` can have a matching row:
    False when it cannot, True when every row matches, None when its rows decide."""
    if isinstance(node, Negation):
        inner = partition_verdict(node.part, values)
        return None if inner is None else not inner
    if isinstance(node, Junction):
        verdicts = [partition_verdict(part, values) for part in node.parts]
        decisive = node.kind == "or"  # True decides an or, False an and
        if decisive in verdicts:
            return decisive
        return None if None in verdicts else not decisive
    if node.column not in values:
        return None
    return _compare(values[node.column], node.op, node.values)


def _compare(actual: Any, op: str, wanted: tuple[Any, ...]) -> bool:
    """A comparison of a partition value (a number or a text, as the folder names it)."""
    given = [w if isinstance(actual, int | float) else str(w) for w in wanted]
    if isinstance(actual, int | float) and not all(isinstance(g, int | float) for g in given):
        actual, given = str(actual), [str(g) for g in given]
    if op in ("in", "not in"):
        return (actual in given) == (op == "in")
    checks = {
        "==": actual == given[0],
        "!=": actual != given[0],
        "<": actual < given[0],
        "<=": actual <= given[0],
        ">": actual > given[0],
        ">=": actual >= given[0],
    }
    return bool(checks[op])

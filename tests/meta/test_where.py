"""The row filter of ``ragjudge meta --where``: its language, its matching and its
errors (an expression is parsed, never run as Python)."""

from __future__ import annotations

from typing import Any

import pytest

from ragjudge.errors import ConfigError
from ragjudge.meta._where import parse_where

ROWS: list[dict[str, Any]] = [
    {"split": "train", "turn": 1, "label": "Fully attributable", "ok": True},
    {"split": "test", "turn": "2", "label": "Not attributable", "ok": False},
    {"split": "test", "turn": 3.0, "label": None},
    {"split": "dev", "turn": "n/a"},
]


def matching(expression: str) -> list[int]:
    where = parse_where(expression)
    return [i for i, row in enumerate(ROWS) if where.matches(row)]


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ("split == test", [1, 2]),
        ("split != test", [0, 3]),
        ("turn >= 2", [1, 2]),  # "2" and 3.0 read as numbers; "n/a" is not one
        ("turn < 2 or split == dev", [0, 3]),
        ("turn == 3", [2]),  # 3.0 equals 3
        ('label == "Fully attributable"', [0]),
        ("label == 'Not attributable'", [1]),
        ("label != 'Not attributable'", [0, 2, 3]),  # missing values match !=
        ("split in (train, dev)", [0, 3]),
        ("split not in (train, dev)", [1, 2]),
        ("not (split == test and turn > 2)", [0, 1, 3]),
        ("ok == true", [0]),
        ("SPLIT == test AND turn > 2", []),  # keys are case-sensitive, words are not
        ("split == test AND turn > 2", [2]),
        ("`split` == dev", [3]),
    ],
)
def test_expressions_select_the_rows_they_say(expression: str, expected: list[int]) -> None:
    assert matching(expression) == expected


def test_the_keys_an_expression_reads_are_listed_once() -> None:
    where = parse_where("a == 1 or (b in (x, y) and a != 2)")
    assert where.keys == ("a", "b")
    assert where.text == "a == 1 or (b in (x, y) and a != 2)"


@pytest.mark.parametrize(
    ("expression", "message"),
    [
        ("", "--where needs an expression"),
        ("turn >=", "ends too early"),
        ("turn = 2", "cannot read '= 2'"),
        ("(turn == 2", "expected ')' at the end"),
        ("turn == 2 split", "expected 'and', 'or' or the end at 'split' (character 11)"),
        ("and == 2", "expected a metadata key at 'and'"),
        ("split in train", "expected '(' after in"),
        ("split == and", "expected a value at 'and'"),
        ("__import__('os')", "expected ==, !=, <, <=, >, >= or in"),
    ],
)
def test_a_bad_expression_is_named_with_what_is_wrong(expression: str, message: str) -> None:
    with pytest.raises(ConfigError) as caught:
        parse_where(expression)
    assert message in str(caught.value)
    if expression:
        assert repr(expression) in str(caught.value)

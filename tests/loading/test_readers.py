"""JSON Lines rows that cannot hold a lone surrogate or deep nesting skip those checks:
they are read exactly as the checked path reads them, and the others are still checked."""

from __future__ import annotations

import json

from ragjudge.loading._readers import ReadRules, _read_jsonl, _read_records, split_lines
from ragjudge.loading._values import MAX_NESTING

LINES = [
    {"request": "q1", "response": None, "metadata": {"lang": None, "tags": [None, 1]}},
    {"request": "「引用」と彼は言った。", "expected_response": ["a", "b"], "score": 1.5e300},
    {"request": "tab\tand \\backslash \\u00e9", "metadata": {}, "n": 0, "flag": False},
    {"request_id": 7, "request": {"messages": [{"role": "user", "content": "hi"}]}},
]


def test_plain_lines_are_read_as_the_checked_path_reads_them() -> None:
    text = "\n".join(json.dumps(line, ensure_ascii=False) for line in LINES)
    fast = _read_jsonl(split_lines(text), "set.jsonl", ReadRules())
    checked = _read_records("set.jsonl", LINES, False, ReadRules())
    assert [r.data for r in fast.rows] == [r.data for r in checked.rows]
    assert [r.row for r in fast.rows] == [1, 2, 3, 4]
    assert "response" not in fast.rows[0].data  # a null field is left out
    assert fast.rows[0].data["metadata"] == {"lang": None, "tags": [None, 1]}


def test_lines_that_may_hold_what_the_checks_find_are_checked() -> None:
    deep = "[" * (MAX_NESTING + 1) + "]" * (MAX_NESTING + 1)
    text = '{"request": "x\\ud800"}\n' + '{"request": "x", "deep": ' + deep + "}"
    read = _read_jsonl(split_lines(text), "set.jsonl", ReadRules())
    assert read.rows == []
    reasons = [p.reason for p in read.problems]
    assert "lone surrogate" in reasons[0]
    assert "nested more than" in reasons[1]

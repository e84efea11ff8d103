"""A text file read a line at a time gives the lines the whole file gives, under the same
encoding rule and with the same error where the rule is broken."""

from __future__ import annotations

import codecs
from pathlib import Path

import pytest

from ragjudge._util.textfiles import read_text_file, read_text_lines
from ragjudge.errors import TextFileError

TEXTS = {
    "trailing newline": b"a\nb\n",
    "no trailing newline": b"a\nb",
    "empty": b"",
    "mark only": codecs.BOM_UTF8,
    "utf-8 with a mark": codecs.BOM_UTF8 + "主キー\r\nb\n".encode(),
    "separators inside a line": '{"a": "x\u2028y\u0085z"}\n{"b": 1}\n'.encode(),
    "blank lines": b"\n\n a \n\n",
    "utf-16 with a mark": "主キー\nb\n".encode("utf-16"),
}


@pytest.mark.parametrize("name", list(TEXTS))
def test_the_lines_are_those_of_the_whole_text(tmp_path: Path, name: str) -> None:
    path = tmp_path / "set.jsonl"
    path.write_bytes(TEXTS[name])

    lines = list(read_text_lines(path))

    assert lines == list(enumerate(read_text_file(path).split("\n"), start=1))


@pytest.mark.parametrize(
    "data",
    [
        b'{"a": 1}\n{"a": "caf\xe9"}\n',
        b'{"a": 1}\n{"a": "x\x00y"}\n',
        codecs.BOM_UTF32_LE + "a\n".encode("utf-32-le"),
        "行\n".encode("shift_jis"),
    ],
)
def test_a_line_that_breaks_the_rule_raises_what_the_whole_file_raises(
    tmp_path: Path, data: bytes
) -> None:
    path = tmp_path / "set.jsonl"
    path.write_bytes(data)
    with pytest.raises(TextFileError) as whole:
        read_text_file(path)

    with pytest.raises(TextFileError) as by_line:
        list(read_text_lines(path))

    assert str(by_line.value) == str(whole.value)


def test_lines_are_read_one_at_a_time(tmp_path: Path) -> None:
    path = tmp_path / "set.jsonl"
    path.write_bytes(b'{"a": 1}\n' + b"\xff\n")

    lines = read_text_lines(path)

    assert next(lines) == (1, '{"a": 1}')  # given before the bad line is read
    with pytest.raises(TextFileError, match="line 2"):
        next(lines)

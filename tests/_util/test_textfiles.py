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


LFS_POINTER = (
    b"version https://git-lfs.github.com/spec/v1\n"
    b"oid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\n"
    b"size 12345\n"
)


@pytest.mark.parametrize("read", [read_text_file, lambda path: list(read_text_lines(path))])
def test_a_git_lfs_pointer_is_refused_as_not_the_data(tmp_path: Path, read: object) -> None:
    path = tmp_path / "set.jsonl"
    path.write_bytes(LFS_POINTER)
    with pytest.raises(TextFileError) as caught:
        read(path)  # type: ignore[operator]
    assert str(caught.value) == f"{path}: is a Git LFS pointer, not the data: run `git lfs pull`"


def test_text_that_only_mentions_git_lfs_is_read(tmp_path: Path) -> None:
    path = tmp_path / "notes.txt"
    path.write_bytes(b"see " + LFS_POINTER)
    assert read_text_file(path).startswith("see version https://git-lfs")

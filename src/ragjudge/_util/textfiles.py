"""The one encoding rule of every text file ragjudge reads (evaluation sets, configs,
spec files, knowledge bases): :func:`read_text_file` and :func:`decode_text`, and
:func:`read_text_lines` for a file read a line at a time. A file that breaks it is a
:class:`~ragjudge.errors.TextFileError` saying where and why. A Git LFS pointer (the
small text file a clone without ``git lfs pull`` holds in place of the data) is refused
by every reader, binary files too (:func:`refuse_lfs_pointer`)."""

from __future__ import annotations

import codecs
from collections.abc import Iterator
from pathlib import Path

from ragjudge.errors import TextFileError

__all__ = [
    "LFS_POINTER_START",
    "decode_text",
    "read_text_file",
    "read_text_lines",
    "refuse_lfs_pointer",
]

LFS_POINTER_START = b"version https://git-lfs.github.com/spec/v1"
"""How every Git LFS pointer file begins (its first line names the pointer format)."""
_LFS_POINTER_REASON = "is a Git LFS pointer, not the data: run `git lfs pull`"


# UTF-32 marks first: the UTF-32-LE mark begins with the UTF-16-LE one.
_REFUSED_MARKS = ((codecs.BOM_UTF32_LE, "UTF-32"), (codecs.BOM_UTF32_BE, "UTF-32"))
_ACCEPTED_MARKS = (
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)
_HOW_TO_FIX = "save it as UTF-8 (with or without a byte-order mark) or as UTF-16 with one"


def read_text_file(path: Path, label: str | None = None) -> str:
    """The text of the file at ``path`` under :func:`decode_text`'s rule.

    Raises :class:`TextFileError` (naming the file as ``label``, by default the path)
    when the bytes break the rule, and ``OSError`` when the file cannot be read.
    """
    return decode_text(path.read_bytes(), label or str(path))


def read_text_lines(path: Path, label: str | None = None) -> Iterator[tuple[int, str]]:
    """The lines of the file at ``path`` with their numbers (from 1), each without its
    newline, under :func:`decode_text`'s rule: the lines of :func:`read_text_file`'s
    text split at every line feed, but a UTF-8 file is read one line at a time, so only
    one line is in memory at once (a file with a UTF-16 mark is read whole).

    A line that breaks the rule raises the :class:`TextFileError` the whole file
    raises (the file is read whole again to say where and why), after the lines
    before it were yielded; ``OSError`` when the file cannot be read.
    """
    shown = label or str(path)
    with path.open("rb") as file:
        start = file.read(len(LFS_POINTER_START))
        _refuse_lfs_bytes(start, shown)
        if start.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE, codecs.BOM_UTF32_BE)):
            yield from enumerate(read_text_file(path, shown).split("\n"), start=1)
            return
        file.seek(len(codecs.BOM_UTF8) if start.startswith(codecs.BOM_UTF8) else 0)
        number, ended = 0, True
        for line in file:
            number += 1
            ended = line.endswith(b"\n")
            text = _line_text(line, number, path, shown)
            del line  # a long line is then held once, as text
            yield number, text
        if ended:
            yield number + 1, ""  # what split gives after the last newline


def _line_text(line: bytes, number: int, path: Path, label: str) -> str:
    """One line of a UTF-8 file as text, without its newline (and without copying it
    first: lines may be long)."""
    end = len(line) - 1 if line.endswith(b"\n") else len(line)
    try:
        text = None if b"\x00" in line else str(memoryview(line)[:end], "utf-8")
    except UnicodeDecodeError:
        text = None
    if text is None:
        read_text_file(path, label)  # raises the rule's error, saying where and why
        raise TextFileError(label, f"line {number} is not UTF-8 text")
    return text


def decode_text(data: bytes, label: str) -> str:
    """Decode a text file's bytes; the one encoding rule of every file ragjudge reads.

    Accepted: UTF-8, UTF-8 with a byte-order mark, and UTF-16 (either byte order) with
    a byte-order mark; the mark is not part of the text. Refused, with the line and
    column of the first offending byte: any other bytes (Shift_JIS, Latin-1, …), UTF-32,
    and NUL characters, which no text file holds (they mean UTF-16 without a mark, or
    a binary file), and a Git LFS pointer in place of the file.
    """
    _refuse_lfs_bytes(data, label)
    for mark, name in _REFUSED_MARKS:
        if data.startswith(mark):
            raise TextFileError(
                label, f"is {name} text, which ragjudge does not read: {_HOW_TO_FIX}"
            )
    encoding, body = "utf-8", data
    for mark, name in _ACCEPTED_MARKS:
        if data.startswith(mark):
            encoding, body = name, data[len(mark) :]
            break
    # NUL first: UTF-16 without a mark has them, and may also not decode as UTF-8.
    if encoding == "utf-8" and b"\x00" in body:
        prefix = body[: body.index(b"\x00")].decode(encoding, errors="replace")
        raise TextFileError(label, _nul_reason(_position(prefix, None)))
    try:
        text = body.decode(encoding)
    except UnicodeDecodeError as exc:
        raise TextFileError(label, _undecodable(body, encoding, exc.start, label)) from None
    if "\x00" in text:
        raise TextFileError(label, _nul_reason(_position(text, text.index("\x00"))))
    return text


def refuse_lfs_pointer(path: Path, label: str | None = None) -> None:
    """Raise :class:`TextFileError` when the file at ``path`` is a Git LFS pointer, not
    the data it points at (for files read by other means than text: Parquet). Raises
    ``OSError`` when the file cannot be read."""
    with path.open("rb") as file:
        _refuse_lfs_bytes(file.read(len(LFS_POINTER_START)), label or str(path))


def _refuse_lfs_bytes(start: bytes, label: str) -> None:
    if start.startswith(LFS_POINTER_START):
        raise TextFileError(label, _LFS_POINTER_REASON)


def _nul_reason(where: str) -> str:
    return (
        f"holds a NUL character at {where}; a text file never does (is it UTF-16 without "
        f"a byte-order mark, or not a text file?): {_HOW_TO_FIX}"
    )


def _undecodable(body: bytes, encoding: str, start: int, label: str) -> str:
    where = _position(body[:start].decode(encoding, errors="replace"), None)
    if encoding != "utf-8":
        return f"is not valid {encoding.upper()} text: the bytes at {where} cannot be decoded"
    name = Path(label).name
    source = "SHIFT_JIS" if _looks_like_shift_jis(body) else "ITS_ENCODING"
    hint = "it looks like Shift_JIS; " if source == "SHIFT_JIS" else ""
    return (
        f"is not UTF-8 text: the byte 0x{body[start]:02x} at {where} (byte offset {start}) "
        f"is not valid UTF-8; {hint}{_HOW_TO_FIX}, e.g. "
        f"iconv -f {source} -t UTF-8 {name} > utf8-{name}"
    )


def _looks_like_shift_jis(body: bytes) -> bool:
    """Whether the bytes read as Japanese text in Shift_JIS (Windows code page 932):
    they decode, hold kana or kanji, and no control characters (which stray bytes
    decode to)."""
    try:
        text = body.decode("cp932")
    except UnicodeDecodeError:
        return False
    japanese = any("\u3040" <= ch <= "\u30ff" or "\u4e00" <= ch <= "\u9fff" for ch in text)
    controls = any((ch < " " and ch not in "\t\r\n") or "\x7f" <= ch <= "\x9f" for ch in text)
    return japanese and not controls


def _position(text: str, index: int | None) -> str:
    """``line L, column C`` of ``text[index]`` (1-based; ``None``: just past the end)."""
    end = len(text) if index is None else index
    line = text.count("\n", 0, end) + 1
    column = end - (text.rfind("\n", 0, end) + 1) + 1
    return f"line {line}, column {column}"

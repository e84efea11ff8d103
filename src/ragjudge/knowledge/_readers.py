"""Readers of document files by extension: plain text, Markdown, HTML and PDF."""

from __future__ import annotations

import codecs
import importlib
import re
from collections.abc import Callable
from pathlib import Path

from ragjudge._util.extras import missing_extra_message
from ragjudge._util.textfiles import read_text_file
from ragjudge.errors import MissingExtra
from ragjudge.knowledge._html import html_to_text

DocumentReader = Callable[[Path], str]
"""Reads one file and returns its text."""

_META_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?\s*([A-Za-z0-9_.:-]+)""", re.I)


def _read_plain_text(path: Path) -> str:
    """A text file under the one encoding rule of every file ragjudge reads, with its
    line breaks made ``\n``."""
    return read_text_file(path).replace("\r\n", "\n").replace("\r", "\n")


def _read_html(path: Path) -> str:
    raw = path.read_bytes()
    encoding = _html_encoding(raw)
    try:
        return html_to_text(raw.decode(encoding))
    except UnicodeDecodeError as exc:
        raise ValueError(
            f"{path}: not valid {encoding} ({exc.reason} at byte {exc.start})"
        ) from exc


def _html_encoding(raw: bytes) -> str:
    """A byte-order mark, else the ``<meta charset>`` near the top, else UTF-8."""
    if raw.startswith(codecs.BOM_UTF8):
        return "utf-8-sig"
    declared = _META_CHARSET.search(raw[:4096])
    if declared:
        try:
            return codecs.lookup(declared.group(1).decode("ascii")).name
        except LookupError:
            pass
    return "utf-8-sig"


def _read_pdf(path: Path) -> str:
    try:
        pypdf = importlib.import_module("pypdf")
    except ImportError as exc:
        raise MissingExtra(
            missing_extra_message("pdf", f"{path}: reading PDF files")
            + " (or remove '.pdf' from ragjudge.knowledge.DOCUMENT_READERS to skip them)",
            extra="pdf",
        ) from exc
    try:
        pages = [page.extract_text() or "" for page in pypdf.PdfReader(path).pages]
    except Exception as exc:  # pypdf raises many exception types on damaged files
        raise ValueError(f"{path}: cannot read the PDF: {exc}") from exc
    return "\n\n".join(text.strip() for text in pages if text.strip())


DOCUMENT_READERS: dict[str, DocumentReader] = {
    ".txt": _read_plain_text,
    ".md": _read_plain_text,
    ".html": _read_html,
    ".htm": _read_html,
    ".pdf": _read_pdf,
}
"""File extension (lowercase, with the dot) → reader. Add an entry to load more formats
from a folder."""

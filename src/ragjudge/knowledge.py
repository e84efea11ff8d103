"""Knowledge base: documents loaded from a folder or a JSONL file, split into chunks.

Folders may hold ``.txt``, ``.md``, ``.html``/``.htm`` (the visible text is kept) and
``.pdf`` files (the text layer, with the ``pdf`` extra).

Chunks are measured in characters, so the same settings work for English and Japanese.
Whole sentences are packed into each chunk; consecutive chunks share a few trailing
sentences of overlap; a sentence longer than a chunk is cut into pieces. A chunk's text
is a verbatim slice of its document, so line and paragraph breaks survive.
"""

from __future__ import annotations

import codecs
import importlib
import json
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from ragjudge.schema import ContextChunk
from ragjudge.text import split_sentences

__all__ = [
    "DOCUMENT_READERS",
    "Chunk",
    "Document",
    "KnowledgeBase",
    "chunk_text",
    "html_to_text",
]

DocumentReader = Callable[[Path], str]
"""Reads one file and returns its text."""


# --- readers ----------------------------------------------------------------------------

# Elements whose text a browser does not show on the page.
_HIDDEN_ELEMENTS = frozenset({"script", "style", "noscript", "template", "title"})
# Elements that start a new line of text.
_BLOCK_ELEMENTS = frozenset(
    {
        "address", "article", "aside", "blockquote", "br", "caption", "dd", "details",
        "div", "dl", "dt", "fieldset", "figcaption", "figure", "footer", "form", "h1",
        "h2", "h3", "h4", "h5", "h6", "header", "hr", "li", "main", "nav", "ol", "p",
        "pre", "section", "summary", "table", "tbody", "thead", "tfoot", "tr", "ul",
    }
)  # fmt: skip
_TABLE_CELLS = frozenset({"td", "th"})
_META_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?\s*([A-Za-z0-9_.:-]+)""", re.I)
_SPACES = re.compile(r"[^\S\n]+")
_WHITESPACE = re.compile(r"\s+")


class _VisibleTextParser(HTMLParser):
    """Collects the text a browser would show, one line per block element.

    Inside ``<pre>`` line breaks are kept; elsewhere whitespace runs become one space.
    """

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self._hidden_depth = 0
        self._pre_depth = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._enter(tag)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        # A self-closing tag (<br/>) opens nothing to close.
        if tag in _BLOCK_ELEMENTS:
            self.parts.append("\n")

    def handle_endtag(self, tag: str) -> None:
        if tag in _HIDDEN_ELEMENTS:
            self._hidden_depth = max(0, self._hidden_depth - 1)
        elif tag == "pre":
            self._pre_depth = max(0, self._pre_depth - 1)
        if tag in _BLOCK_ELEMENTS:
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        if self._hidden_depth:
            return
        if not self._pre_depth:
            data = _WHITESPACE.sub(" ", data)
        self.parts.append(data)

    def _enter(self, tag: str) -> None:
        if tag in _HIDDEN_ELEMENTS:
            self._hidden_depth += 1
        elif tag == "pre":
            self._pre_depth += 1
        if tag in _BLOCK_ELEMENTS:
            self.parts.append("\n")
        elif tag in _TABLE_CELLS:
            self.parts.append(" ")

    def text(self) -> str:
        """The collected text: one line per block, blank lines dropped."""
        lines = (_SPACES.sub(" ", line).strip() for line in "".join(self.parts).split("\n"))
        return "\n".join(line for line in lines if line)


def html_to_text(html: str) -> str:
    """The visible text of an HTML document, without scripts, styles or the title.

    Block elements (paragraphs, headings, list items, table rows …) each start a new
    line; character references are decoded.
    """
    parser = _VisibleTextParser()
    parser.feed(html)
    parser.close()
    return parser.text()


def _read_plain_text(path: Path) -> str:
    try:
        # utf-8-sig drops a byte-order mark; read_text turns \r\n into \n.
        return path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ValueError(f"{path}: not valid UTF-8 ({exc.reason} at byte {exc.start})") from exc


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
        raise ImportError(
            f"{path}: reading PDF files needs pypdf: pip install 'ragjudge[pdf]' "
            "(or remove '.pdf' from ragjudge.knowledge.DOCUMENT_READERS to skip them)"
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


class Document(BaseModel):
    """One source document. ``doc_uri`` identifies it in retrieved contexts."""

    doc_uri: str
    content: str
    metadata: dict[str, Any] = Field(default_factory=dict)


class Chunk(BaseModel):
    """A contiguous piece of a document, the unit a retriever returns."""

    model_config = ConfigDict(frozen=True)

    chunk_id: str
    """``"{doc_uri}#{index}"``."""
    doc_uri: str
    content: str
    index: int
    """Position of the chunk within its document, from 0."""

    def to_context(self, score: float | None = None) -> ContextChunk:
        """This chunk as a context chunk (keeping ``chunk_id``), with a retrieval score."""
        return ContextChunk(
            doc_uri=self.doc_uri, content=self.content, score=score, chunk_id=self.chunk_id
        )


class KnowledgeBase:
    """Documents and the chunks cut from them."""

    def __init__(
        self, documents: Iterable[Document], *, chunk_size: int = 800, chunk_overlap: int = 100
    ) -> None:
        _check_chunking(chunk_size, chunk_overlap)
        self.documents: list[Document] = list(documents)
        _check_unique_uris(self.documents)
        self.chunk_size = chunk_size
        self.chunk_overlap = chunk_overlap
        self.chunks: list[Chunk] = [
            chunk for doc in self.documents for chunk in _chunk_document(doc, self)
        ]

    @classmethod
    def from_documents(
        cls, docs: Iterable[Document], *, chunk_size: int = 800, chunk_overlap: int = 100
    ) -> KnowledgeBase:
        """Build a knowledge base from documents already in memory."""
        return cls(docs, chunk_size=chunk_size, chunk_overlap=chunk_overlap)

    @classmethod
    def load(
        cls, path: str | Path, *, chunk_size: int = 800, chunk_overlap: int = 100
    ) -> KnowledgeBase:
        """Load documents from a folder, a ``.jsonl`` file or a single text file.

        A folder is searched recursively for files with a known extension (see
        :data:`DOCUMENT_READERS`; hidden files and folders are skipped); each file's
        ``doc_uri`` is its path relative to the folder with ``/`` separators. A JSONL
        file holds one ``{"doc_uri": ..., "content": ...}`` object per line; other keys
        become metadata. Every bad line is reported in one ``ValueError``.
        """
        root = Path(path)
        if not root.exists():
            raise FileNotFoundError(f"knowledge base not found: {root}")
        if root.is_dir():
            docs = _load_folder(root)
        elif root.suffix.lower() == ".jsonl":
            docs = _load_jsonl(root)
        elif root.suffix.lower() in DOCUMENT_READERS:
            docs = [Document(doc_uri=root.name, content=_read_file(root))]
        else:
            known = ", ".join(sorted([*DOCUMENT_READERS, ".jsonl"]))
            raise ValueError(f"{root}: cannot load a knowledge base from this file type ({known})")
        return cls(docs, chunk_size=chunk_size, chunk_overlap=chunk_overlap)

    def __repr__(self) -> str:
        return (
            f"KnowledgeBase(documents={len(self.documents)}, chunks={len(self.chunks)}, "
            f"chunk_size={self.chunk_size}, chunk_overlap={self.chunk_overlap})"
        )


def _check_chunking(chunk_size: int, chunk_overlap: int) -> None:
    if chunk_size < 1:
        raise ValueError(f"chunk_size must be positive, got {chunk_size}")
    if not 0 <= chunk_overlap < chunk_size:
        raise ValueError(
            f"chunk_overlap must be at least 0 and less than chunk_size ({chunk_size}), "
            f"got {chunk_overlap}"
        )


def _check_unique_uris(documents: list[Document]) -> None:
    seen: set[str] = set()
    duplicates: list[str] = []
    for doc in documents:
        if doc.doc_uri in seen:
            duplicates.append(doc.doc_uri)
        seen.add(doc.doc_uri)
    if duplicates:
        raise ValueError(f"duplicate doc_uri: {', '.join(sorted(set(duplicates)))}")


# --- loading ----------------------------------------------------------------------------


def _read_file(path: Path) -> str:
    return DOCUMENT_READERS[path.suffix.lower()](path)


def _load_folder(root: Path) -> list[Document]:
    files = sorted(_document_files(root), key=lambda p: p.relative_to(root).as_posix())
    if not files:
        known = ", ".join(sorted(DOCUMENT_READERS))
        raise ValueError(f"{root}: no documents found (looked for {known} files)")
    return [
        Document(doc_uri=file.relative_to(root).as_posix(), content=_read_file(file))
        for file in files
    ]


def _document_files(root: Path) -> Iterator[Path]:
    for path in root.rglob("*"):
        relative = path.relative_to(root)
        if any(part.startswith(".") for part in relative.parts):
            continue
        if path.is_file() and path.suffix.lower() in DOCUMENT_READERS:
            yield path


def _load_jsonl(path: Path) -> list[Document]:
    docs: list[Document] = []
    problems: list[str] = []
    bad_lines = 0
    first_line: dict[str, int] = {}
    with path.open(encoding="utf-8-sig") as lines:
        for number, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            doc, errors = _parse_jsonl_row(line)
            if doc is not None and doc.doc_uri in first_line:
                errors = [f"doc_uri: duplicates line {first_line[doc.doc_uri]}"]
            problems.extend(f"{path}:{number}: {error}" for error in errors)
            bad_lines += bool(errors)
            if doc is not None and not errors:
                first_line[doc.doc_uri] = number
                docs.append(doc)
    if problems:
        raise ValueError(
            f"{bad_lines} bad line(s) in {path}:\n" + "\n".join(f"  {p}" for p in problems)
        )
    if not docs:
        raise ValueError(f"{path}: no documents found")
    return docs


def _parse_jsonl_row(line: str) -> tuple[Document | None, list[str]]:
    """A document, or the reasons the line is not one (``field: reason``)."""
    try:
        row = json.loads(line)
    except json.JSONDecodeError as exc:
        return None, [f"invalid JSON: {exc.msg} (column {exc.colno})"]
    if not isinstance(row, dict):
        return None, [f"expected a JSON object, got {type(row).__name__}"]
    errors = [
        f"{field}: {reason}"
        for field in ("doc_uri", "content")
        if (reason := _text_field_problem(row, field))
    ]
    if errors:
        return None, errors
    metadata = {k: v for k, v in row.items() if k not in ("doc_uri", "content", "metadata")}
    nested = row.get("metadata")
    if isinstance(nested, dict):
        metadata = {**nested, **metadata}
    elif nested is not None:
        metadata["metadata"] = nested
    return Document(doc_uri=row["doc_uri"], content=row["content"], metadata=metadata), []


def _text_field_problem(row: dict[str, Any], field: str) -> str | None:
    if field not in row or row[field] is None:
        return "missing"
    if not isinstance(row[field], str):
        return f"must be a string, got {type(row[field]).__name__}"
    if not row[field].strip():
        return "empty"
    return None


# --- chunking ---------------------------------------------------------------------------


@dataclass(frozen=True)
class _Span:
    """A unit of text to pack: ``text[start:end]``."""

    start: int
    end: int


def _chunk_document(doc: Document, kb: KnowledgeBase) -> Iterator[Chunk]:
    pieces = chunk_text(doc.content, chunk_size=kb.chunk_size, chunk_overlap=kb.chunk_overlap)
    for index, content in enumerate(pieces):
        yield Chunk(
            chunk_id=f"{doc.doc_uri}#{index}", doc_uri=doc.doc_uri, content=content, index=index
        )


def chunk_text(text: str, *, chunk_size: int = 800, chunk_overlap: int = 100) -> list[str]:
    """Split ``text`` into chunks of at most ``chunk_size`` characters.

    Whole sentences are packed into each chunk (a line break always ends a sentence);
    each chunk repeats up to ``chunk_overlap`` characters of whole sentences from the
    end of the previous one; a sentence longer than ``chunk_size`` is cut into pieces
    of ``chunk_size`` characters. Each chunk is a verbatim slice of ``text``.
    """
    _check_chunking(chunk_size, chunk_overlap)
    units = list(_sentence_units(text, chunk_size))
    return [
        text[group[0].start : group[-1].end] for group in _pack(units, chunk_size, chunk_overlap)
    ]


def _sentence_units(text: str, chunk_size: int) -> Iterator[_Span]:
    """Sentence spans in ``text``, with sentences longer than ``chunk_size`` cut up."""
    for span in _sentence_spans(text):
        for start in range(span.start, span.end, chunk_size):
            yield _Span(start, min(start + chunk_size, span.end))


def _sentence_spans(text: str) -> Iterator[_Span]:
    """Locate each sentence of each line in ``text``.

    Sentences are found line by line; should a sentence not be found verbatim (the
    splitter changed it), the whole stripped line becomes one unit.
    """
    offset = 0
    for line in text.splitlines(keepends=True):
        stripped = line.strip()
        if stripped:
            yield from _spans_in_line(line, offset)
        offset += len(line)


def _spans_in_line(line: str, offset: int) -> list[_Span]:
    spans: list[_Span] = []
    position = 0
    for sentence in split_sentences(line):
        found = line.find(sentence, position)
        if found < 0:
            start = len(line) - len(line.lstrip())
            return [_Span(offset + start, offset + len(line.rstrip()))]
        spans.append(_Span(offset + found, offset + found + len(sentence)))
        position = found + len(sentence)
    return spans


def _pack(units: list[_Span], chunk_size: int, chunk_overlap: int) -> Iterator[list[_Span]]:
    """Group consecutive units into chunks, each ending where the next one starts new text."""
    start = 0
    while start < len(units):
        end = start + 1  # a unit never exceeds chunk_size, so one always fits
        while end < len(units) and units[end].end - units[start].start <= chunk_size:
            end += 1
        yield units[start:end]
        if end == len(units):
            return
        start = _overlap_start(units, start, end, chunk_size, chunk_overlap)


def _overlap_start(
    units: list[_Span], start: int, end: int, chunk_size: int, chunk_overlap: int
) -> int:
    """First unit of the next chunk: trailing units of ``units[start:end]`` that fit in
    the overlap and still leave room for the next new unit."""
    first = end
    previous_end = units[end - 1].end
    while first - 1 > start:
        candidate = units[first - 1]
        if previous_end - candidate.start > chunk_overlap:
            break
        if units[end].end - candidate.start > chunk_size:
            break
        first -= 1
    return first

"""Loading documents from a folder of files or from a JSON Lines file."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ragjudge.knowledge._documents import Document
from ragjudge.knowledge._readers import DOCUMENT_READERS


def read_document(path: Path) -> str:
    """The text of one file, read by the reader of its extension."""
    return DOCUMENT_READERS[path.suffix.lower()](path)


def load_folder(root: Path) -> list[Document]:
    """Every readable, non-hidden file under ``root`` as a document, by relative path."""
    files = sorted(_document_files(root), key=lambda p: p.relative_to(root).as_posix())
    if not files:
        known = ", ".join(sorted(DOCUMENT_READERS))
        raise ValueError(f"{root}: no documents found (looked for {known} files)")
    return [
        Document(doc_uri=file.relative_to(root).as_posix(), content=read_document(file))
        for file in files
    ]


def _document_files(root: Path) -> Iterator[Path]:
    for path in root.rglob("*"):
        relative = path.relative_to(root)
        if any(part.startswith(".") for part in relative.parts):
            continue
        if path.is_file() and path.suffix.lower() in DOCUMENT_READERS:
            yield path


def load_jsonl(path: Path) -> list[Document]:
    """One document per line of a JSON Lines file; every bad line in one ``ValueError``."""
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

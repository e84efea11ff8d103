"""Knowledge base: documents loaded from a folder or a JSONL file, split into chunks.

Folders may hold ``.txt``, ``.md``, ``.html``/``.htm`` (the visible text is kept) and
``.pdf`` files (the text layer, with the ``pdf`` extra).

Chunks are measured in characters, so the same settings work for English and Japanese.
Whole sentences are packed into each chunk; consecutive chunks share a few trailing
sentences of overlap; a sentence longer than a chunk is cut into pieces. A chunk's text
is a verbatim slice of its document, so line and paragraph breaks survive.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from ragjudge._util.lazy import lazy_names
from ragjudge.knowledge._chunking import check_chunking, chunk_text, chunk_texts
from ragjudge.knowledge._documents import Chunk, Document
from ragjudge.knowledge._files import load_folder, load_jsonl, read_document
from ragjudge.knowledge._html import html_to_text
from ragjudge.knowledge._readers import DOCUMENT_READERS
from ragjudge.knowledge._readers import DocumentReader as DocumentReader

if TYPE_CHECKING:
    from ragjudge.knowledge._retrieval import (
        BM25Retriever,
        DenseRetriever,
        HybridRetriever,
        Retriever,
        build_retriever,
    )

__all__ = [
    "DOCUMENT_READERS",
    "BM25Retriever",
    "Chunk",
    "DenseRetriever",
    "Document",
    "HybridRetriever",
    "KnowledgeBase",
    "Retriever",
    "build_retriever",
    "chunk_text",
    "html_to_text",
]

# The retrievers are imported on first use: reading documents needs no index.
__getattr__ = lazy_names(
    __name__,
    dict.fromkeys(
        ("BM25Retriever", "DenseRetriever", "HybridRetriever", "Retriever", "build_retriever"),
        "ragjudge.knowledge._retrieval",
    ),
    globals(),
)


class KnowledgeBase:
    """Documents and the chunks cut from them.

    ``workers`` is how many processes cut the chunks: ``None`` (the default) uses every
    usable CPU for documents of at least 4 M characters in all, and the calling
    process otherwise; ``1`` always stays in the calling process.
    The chunks are the same either way.
    """

    def __init__(
        self,
        documents: Iterable[Document],
        *,
        chunk_size: int = 800,
        chunk_overlap: int = 100,
        workers: int | None = None,
    ) -> None:
        check_chunking(chunk_size, chunk_overlap)
        self.documents: list[Document] = list(documents)
        _check_unique_uris(self.documents)
        self.chunk_size = chunk_size
        self.chunk_overlap = chunk_overlap
        contents = chunk_texts(
            [doc.content for doc in self.documents],
            chunk_size=chunk_size,
            chunk_overlap=chunk_overlap,
            workers=workers,
        )
        self.chunks: list[Chunk] = [
            chunk
            for doc, pieces in zip(self.documents, contents, strict=True)
            for chunk in _chunks_of(doc, pieces)
        ]

    @classmethod
    def from_documents(
        cls,
        docs: Iterable[Document],
        *,
        chunk_size: int = 800,
        chunk_overlap: int = 100,
        workers: int | None = None,
    ) -> KnowledgeBase:
        """Build a knowledge base from documents already in memory."""
        return cls(docs, chunk_size=chunk_size, chunk_overlap=chunk_overlap, workers=workers)

    @classmethod
    def load(
        cls,
        path: str | Path,
        *,
        chunk_size: int = 800,
        chunk_overlap: int = 100,
        workers: int | None = None,
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
            docs = load_folder(root)
        elif root.suffix.lower() == ".jsonl":
            docs = load_jsonl(root)
        elif root.suffix.lower() in DOCUMENT_READERS:
            docs = [Document(doc_uri=root.name, content=read_document(root))]
        else:
            known = ", ".join(sorted([*DOCUMENT_READERS, ".jsonl"]))
            raise ValueError(f"{root}: cannot load a knowledge base from this file type ({known})")
        return cls(docs, chunk_size=chunk_size, chunk_overlap=chunk_overlap, workers=workers)

    def __repr__(self) -> str:
        return (
            f"KnowledgeBase(documents={len(self.documents)}, chunks={len(self.chunks)}, "
            f"chunk_size={self.chunk_size}, chunk_overlap={self.chunk_overlap})"
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


def _chunks_of(doc: Document, pieces: list[str]) -> Iterator[Chunk]:
    for index, content in enumerate(pieces):
        yield Chunk(
            chunk_id=f"{doc.doc_uri}#{index}", doc_uri=doc.doc_uri, content=content, index=index
        )

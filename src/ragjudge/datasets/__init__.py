"""Loaders for public benchmark files whose layout is not a plain evaluation set.

Each loader takes the file (or the folder holding it) and returns validated samples;
:data:`DATASET_LOADERS` finds them by the format name a config gives
(``format: mtrag_human``).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from ragjudge.datasets.mtrag import (
    HUMAN_SCORES,
    MTRAG_HUMAN_FILE,
    MTRAG_UN_FILE,
    load_mtrag_human,
    load_mtrag_un,
    mtrag_human_documents,
)
from ragjudge.datasets.ragchecker import RAGCHECKER_FILE, load_ragchecker
from ragjudge.schema import Sample

__all__ = [
    "DATASET_LOADERS",
    "HUMAN_SCORES",
    "MTRAG_HUMAN_FILE",
    "MTRAG_UN_FILE",
    "RAGCHECKER_FILE",
    "DatasetLoader",
    "load_mtrag_human",
    "load_mtrag_un",
    "load_ragchecker",
    "mtrag_human_documents",
]

DatasetLoader = Callable[[str | Path], list[Sample]]
"""Reads a benchmark file (or the folder holding it) into samples."""

DATASET_LOADERS: dict[str, DatasetLoader] = {
    "mtrag_human": load_mtrag_human,
    "mtrag_un": load_mtrag_un,
    "ragchecker": load_ragchecker,
}
"""Benchmark loaders by format name, for ``format:`` in a config."""

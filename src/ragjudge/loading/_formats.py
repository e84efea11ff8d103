"""The registry of evaluation-set formats: every name ``format=`` accepts, and how
a set in that format is read.

Row formats (:data:`FORMATS`) are mapped row by row to Sample fields; the layouts of
public benchmarks (:data:`ragjudge.datasets.DATASET_LOADERS`) are read from their own
files by the benchmark's loader.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from ragjudge.datasets import DATASET_LOADERS, DatasetLoader
from ragjudge.loading._mapping import ROW_FORMATS as BASE_ROW_FORMATS
from ragjudge.loading._mapping import RowFormat
from ragjudge.loading._peers import PEER_ROW_FORMATS, detect_peer_format
from ragjudge.loading._traces import TRACE_FORMATS
from ragjudge.loading._traces import TraceFormat as TraceFormat

ROW_FORMATS: tuple[RowFormat, ...] = (*BASE_ROW_FORMATS, *PEER_ROW_FORMATS)


@dataclass(frozen=True)
class FileFormat:
    """A public benchmark's own layout, read from its file by the benchmark's loader."""

    name: str
    load: DatasetLoader


_ROW_FORMAT_BY_NAME = {fmt.name: fmt for fmt in ROW_FORMATS}
FORMAT_REGISTRY: dict[str, RowFormat | FileFormat | TraceFormat] = {
    **_ROW_FORMAT_BY_NAME,
    **{name: FileFormat(name, load) for name, load in DATASET_LOADERS.items()},
    **TRACE_FORMATS,
}
"""Every format name :func:`load_samples` accepts: the row formats, the benchmark
layouts, then the trace formats (one sample per trace)."""

FORMATS: tuple[str, ...] = tuple(fmt.name for fmt in ROW_FORMATS)
"""The evaluation-set formats :func:`load_samples` understands."""


def detect_format(columns: Iterable[str]) -> str:
    """Guess the format of an evaluation set from its column (or key) names.

    Returns one of :data:`FORMATS`. A set with a ``request`` column is Databricks-style
    whatever else it holds; then ragas (``user_input``; ``question`` with ``contexts``
    and ``ground_truth``), HealthBench (``rubrics``, or ``prompt`` with ``prompt_id``),
    DeepEval (``input`` with ``actual_output``, ``expected_output`` or
    ``retrieval_context``), MLflow 3 (``inputs`` with ``outputs`` or ``expectations``),
    MLflow 2 (``inputs``), Inspect (``input`` with ``target``), openai-evals (``input``)
    and a question/answer file (``question``, ``query``, ``prompt`` …, see
    :data:`~ragjudge.loading._peers.QA_SYNONYMS`). A set matching no known format is
    treated as Databricks-style, so that validation says which field is missing.
    """
    names = set(columns)
    if "request" in names:
        return "databricks"
    if "user_input" in names:
        return "ragas"
    if {"question", "contexts"} <= names and names & _RAGAS_LEGACY_MARKS:
        return "ragas_legacy"
    if "rubrics" in names or {"prompt", "prompt_id"} <= names:
        return "healthbench"
    peer = detect_peer_format(names)
    if peer is not None and (peer != "qa" or "input" not in names):
        return peer
    if "input" in names:
        return "openai_evals"
    return "databricks"


_RAGAS_LEGACY_MARKS = frozenset({"ground_truth", "ground_truths"})


def format_named(name: str) -> RowFormat | FileFormat | TraceFormat:
    """The registered format ``name`` (any case, ``-`` for ``_``) stands for."""
    normalised = name.strip().lower().replace("-", "_")
    found = FORMAT_REGISTRY.get(normalised)
    if found is None:
        known = ", ".join(FORMAT_REGISTRY)
        raise ValueError(f"unknown evaluation-set format {name!r}; use one of {known}")
    return found


def row_format(name: str) -> RowFormat:
    """The row format named ``name``, one of :data:`FORMATS`."""
    return _ROW_FORMAT_BY_NAME[name]

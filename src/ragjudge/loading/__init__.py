"""Load an evaluation set into validated :class:`~ragjudge.schema.Sample` objects.

Sources: JSON Lines (``.jsonl``/``.ndjson``), JSON (``.json``: an array, or an object
holding the rows under ``data``/``samples``/``rows``), CSV, Parquet, a pandas
DataFrame or a list of dicts.

Besides the Databricks field names, the formats of other evaluation tools load as they
are: ragas (current and legacy column names), openai-evals (``input``/``ideal``) and
HealthBench (``prompt``/``rubrics``/``ideal_completions_data``). The format is detected
from the column names; ``format=`` overrides the guess.

Nothing is dropped silently: every bad row becomes a :class:`RowProblem`, and all of
them are raised together in one :class:`DatasetError`. What counts as bad input:

- text files must be UTF-8 (with or without a byte-order mark) or UTF-16 with a
  byte-order mark; any other bytes (Shift_JIS, Latin-1, UTF-16 without a mark, NUL
  characters) stop the load, naming the line, column and byte offset;
- JSON is strict: ``NaN``/``Infinity`` are refused, not read as missing values;
- a value nested more than 100 levels deep, or text holding a lone UTF-16 surrogate
  (``"\\ud800"``), is a problem of that row and field;
- in CSV, a quote never closed, text after a closing quote, and a row short of cells
  whose quoted cell spans several lines are refused (see :mod:`ragjudge.loading._csv`);
  an empty CSV cell is an absent value;
- a corrupt Parquet file, a folder and an unsupported file type are problems of the
  file.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from ragjudge.errors import DatasetError, RowProblem
from ragjudge.loading._formats import FORMATS, FileFormat, detect_format, format_named, row_format
from ragjudge.loading._mapping import Loc as Loc
from ragjudge.loading._readers import all_keys, file_problem, read_source
from ragjudge.loading._samples import build_samples
from ragjudge.schema import Sample

__all__ = [
    "FORMATS",
    "DatasetError",
    "RowProblem",
    "detect_format",
    "format_named",
    "load_samples",
]


def load_samples(
    source: str | Path | pd.DataFrame | Sequence[Mapping[str, Any]],
    *,
    format: str | None = None,
) -> list[Sample]:
    """Load and validate an evaluation set.

    ``source`` is a file path (``.jsonl``, ``.ndjson``, ``.json``, ``.csv``,
    ``.parquet``), a pandas DataFrame or a list of dicts. ``format`` is one of
    :data:`FORMATS` (``-`` may stand for ``_``); by default it is detected with
    :func:`detect_format`. A public benchmark's own layout (``mtrag_human``,
    ``mtrag_un``: see :data:`ragjudge.datasets.DATASET_LOADERS`) is read from its file
    by that benchmark's loader.

    Rows without a ``request_id`` get one derived from their content, stable across
    loads. Raises :class:`DatasetError` listing every bad row (or saying why the file
    cannot be read: its encoding, its type, a corrupt Parquet file),
    ``FileNotFoundError`` for a missing file and ``ValueError`` for an unknown format
    name.
    """
    chosen = None if format is None else format_named(format)
    if isinstance(chosen, FileFormat):
        if not isinstance(source, str | Path):
            raise ValueError(f"format {format!r} reads a benchmark file: pass its path")
        return chosen.load(source)
    read = read_source(source)
    if not read.rows and not read.problems:
        raise DatasetError([file_problem(read.label, "the evaluation set holds no rows")])
    fmt = chosen or row_format(detect_format(all_keys(read.rows)))
    samples, problems = build_samples(read.label, read.rows, fmt)
    all_problems = sorted([*read.problems, *problems], key=lambda p: p.row)
    if all_problems:
        raise DatasetError(all_problems)
    return samples

"""Cell values of tabular sources (CSV, Parquet, DataFrames) as JSON-like Python.

Missing values are dropped, numpy and pandas values become plain Python, and string
cells of columns that hold structures (lists of contexts, chat messages, metadata …)
are parsed as strict JSON (:mod:`ragjudge.loading._json`) or as the Python literals
pandas writes into CSV.
"""

from __future__ import annotations

import ast
import json
import math
import sys
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeGuard

from ragjudge.loading._json import JsonReader, NotJson

if TYPE_CHECKING:
    import pandas as pd

# Columns whose string cells (in CSV, Parquet, DataFrames) may hold JSON, with the kinds
# of JSON value accepted there. A cell whose parsed value has another kind stays a string.
_STRUCTURED_CELLS: dict[str, tuple[type, ...]] = {
    "request": (dict,),
    "expected_facts": (list,),
    "guidelines": (list, dict),
    "rubric": (list,),
    "metadata": (dict,),
    "user_input": (list,),
    "input": (list, dict),
    "prompt": (list,),
    "rubrics": (list, dict),
    "example_tags": (list,),
    "ideal_completions_data": (dict,),
    "ground_truths": (list,),
    # DeepEval, MLflow, Inspect and question/answer files
    "inputs": (dict, list),
    "outputs": (dict,),
    "expectations": (dict,),
    "additional_metadata": (dict,),
    "additionalMetadata": (dict,),
    "retrievalContext": (list,),
    "tags": (dict,),
    "choices": (list,),
    "passages": (list,),
    "documents": (list,),
    "chunks": (list,),
    "sources": (list,),
}
# Columns holding a reference answer, or a context that may be one text: parsed only
# when the cell is a list of strings.
_STRING_LIST_CELLS = frozenset(
    {
        "expected_response",
        "reference",
        "ground_truth",
        "ideal",
        "expected_output",
        "target",
        "context",
    }
)


def clean_record(record: Mapping[Any, Any], *, tabular: bool) -> dict[str, Any]:
    """Drop missing values, turn numpy values into plain Python, parse JSON cells."""
    cleaned: dict[str, Any] = {}
    for key, raw in record.items():
        name = str(key)
        value = _plain(raw)
        if value is None:
            continue
        if tabular and isinstance(value, str):
            value = _parse_cell(name, value)
        cleaned[name] = value
    return cleaned


def is_data_frame(value: Any) -> TypeGuard[pd.DataFrame]:
    """Whether ``value`` is a pandas DataFrame (without importing pandas: none exists
    before it is imported)."""
    pandas = sys.modules.get("pandas")
    return pandas is not None and isinstance(value, pandas.DataFrame)


def _plain(value: Any) -> Any:
    """Recursively convert numpy/pandas values to JSON-like Python; NaN and NA to None.
    (numpy and pandas values exist only once those are imported: neither is imported
    here for rows that cannot hold them.)"""
    numpy = sys.modules.get("numpy")
    if numpy is not None and isinstance(value, numpy.ndarray):
        return [_plain(item) for item in value]
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(item) for item in value]
    if numpy is not None and isinstance(value, numpy.generic):
        value = value.item()
    pandas = sys.modules.get("pandas")
    if pandas is not None and (value is pandas.NA or value is pandas.NaT):
        return None
    if isinstance(value, float) and math.isnan(value):
        return None
    return value


def _parse_cell(column: str, text: str) -> Any:
    stripped = text.strip()
    if column in _STRING_LIST_CELLS:
        if stripped.startswith("["):
            parsed = _parse_literal(stripped)
            if isinstance(parsed, list) and all(isinstance(item, str) for item in parsed):
                return parsed
        return text
    kinds = _STRUCTURED_CELLS.get(column)
    if kinds is None and column.endswith(("_context", "contexts")):
        kinds = (list,)
    if kinds is None or not stripped.startswith(("[", "{")):
        return text
    parsed = _parse_literal(stripped)
    return parsed if isinstance(parsed, kinds) else text


def _parse_literal(text: str) -> Any:
    """JSON, or a Python literal (pandas writes lists into CSV as ``['a', 'b']``). What
    the row's checks refuse (a key given twice, a number out of range) is kept for them
    to name."""
    try:
        value, _ = JsonReader().read(text)
        return value
    except (json.JSONDecodeError, NotJson):
        pass
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return None

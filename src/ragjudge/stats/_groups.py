"""Score frames: their required columns, failed rows, per-sample means, metadata
columns and the labels of the groups a subset key makes."""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ragjudge.errors import AnalysisError

if TYPE_CHECKING:
    import pandas as pd

NO_GROUP = "(none)"
"""Group name for rows whose subset key is missing."""

_REQUIRED_COLUMNS = ("sample_id", "trial", "metric", "value", "error")


def check_columns(scores: pd.DataFrame) -> None:
    """Raise ``ValueError`` naming the columns a score frame lacks."""
    missing = [c for c in _REQUIRED_COLUMNS if c not in scores.columns]
    if missing:
        raise ValueError(f"score frame lacks column(s): {', '.join(missing)}")


def group_label(value: Any) -> str:
    """The group name a subset-key value gives: missing values and empty lists are
    ``"(none)"``, a list's items are joined with commas, and a whole float is written
    as an integer.

    A store's score frame keeps a list as JSON text and an integer column with gaps as
    floats; both get the label of the original value.
    """
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return NO_GROUP
    if isinstance(value, str) and value.startswith("["):
        value = _json_list_or_text(value)
    if isinstance(value, list | tuple):
        return ", ".join(map(str, value)) if value else NO_GROUP
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _json_list_or_text(text: str) -> Any:
    try:
        parsed = json.loads(text)
    except json.JSONDecodeError:
        return text
    return parsed if isinstance(parsed, list) else text


def group_names(labels: Iterable[str]) -> list[str]:
    """The distinct group labels sorted by name, with ``"(none)"`` last."""
    distinct = set(labels)
    return sorted(distinct - {NO_GROUP}) + ([NO_GROUP] if NO_GROUP in distinct else [])


def metadata_column(scores: pd.DataFrame, key: str) -> str:
    """The column of a score frame that holds metadata ``key``: ``metadata.KEY``, or
    ``key`` itself when it names a column. Raises ``ValueError`` naming the metadata
    keys the frame has when neither exists (an :class:`~ragjudge.errors.AnalysisError`)."""
    for column in (f"metadata.{key}", key):
        if column in scores.columns:
            return column
    known = sorted(
        str(c).removeprefix("metadata.") for c in scores.columns if str(c).startswith("metadata.")
    )
    raise AnalysisError(
        f"no sample has metadata key {key!r}; keys present: {', '.join(known) or '(none)'}"
    )


def error_mask(scores: pd.DataFrame) -> pd.Series[bool]:
    """Rows of a score frame that failed: an error message, or no finite value."""
    import pandas as pd

    has_error = scores["error"].map(lambda e: e is not None and not pd.isna(e) and e != "")
    values = pd.to_numeric(scores["value"], errors="coerce")
    no_value = ~np.isfinite(values.to_numpy(dtype=np.float64, na_value=np.nan))
    return has_error.astype(bool) | pd.Series(no_value, index=scores.index)


def sample_means(
    scores: pd.DataFrame, exclude: Mapping[str, Sequence[float]] | None = None
) -> dict[str, pd.Series[float]]:
    """Each metric's mean per sample over its trials, keyed by metric.

    Failed results and the values ``exclude[metric]`` lists are left out first; a
    sample with no value left is absent from its metric's series (indexed by
    ``sample_id``). Metrics and samples keep their order of first appearance.
    """
    import pandas as pd

    check_columns(scores)
    exclude = exclude or {}
    usable = scores.loc[~error_mask(scores), ["sample_id", "metric", "value"]]
    usable = usable.assign(value=pd.to_numeric(usable["value"]).astype(np.float64))
    result: dict[str, pd.Series[float]] = {}
    for metric in scores["metric"].drop_duplicates():
        rows = usable[usable["metric"] == metric]
        rows = rows[~rows["value"].isin(list(exclude.get(str(metric), ())))]
        result[str(metric)] = rows.groupby("sample_id", sort=False)["value"].mean()
    return result

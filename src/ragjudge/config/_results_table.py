"""The ``results_table:`` setting: a run's results appended, batch by batch, to a
partitioned Parquet dataset or a Delta table that warehouses read directly (the store
keeps everything as well; see :mod:`ragjudge.store._table_sink`)."""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

__all__ = ["ResultsTable", "ResultsTableConfig"]

_PARTITION_KEY = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_RESERVED = frozenset({"run_id"})


class ResultsTableConfig(BaseModel):
    """Where and how a run's results are appended as a table: ``results_table: PATH``
    or ``{path, format, partition_by}``."""

    model_config = ConfigDict(extra="forbid")

    path: str
    """The table's folder, relative to the config; it holds ``scores/`` and ``outputs/``."""
    format: Literal["parquet", "delta"] = "parquet"
    """``parquet`` (Hive-partitioned Parquet files) or ``delta`` (a Delta table; needs
    the ``delta`` extra)."""
    partition_by: list[str] = Field(default_factory=list)
    """Sample metadata keys that partition the table below ``run_id`` (e.g. ``date``)."""

    @model_validator(mode="before")
    @classmethod
    def _from_path(cls, value: Any) -> Any:
        """``results_table: PATH`` is ``{path: PATH}``."""
        return {"path": value} if isinstance(value, str) else value

    @field_validator("partition_by")
    @classmethod
    def _plain_keys(cls, keys: list[str]) -> list[str]:
        keys = [key.removeprefix("metadata.") for key in keys]
        for key in keys:
            if not _PARTITION_KEY.match(key) or key in _RESERVED:
                raise ValueError(
                    f"partition_by: {key!r} is not a metadata key a table can be partitioned "
                    "by: use letters, digits and _ (run_id is always the first partition)"
                )
        if len(set(keys)) != len(keys):
            raise ValueError(f"partition_by: {keys} names a key twice")
        return keys


ResultsTable = Annotated[
    ResultsTableConfig | None,
    Field(
        description=(
            "Also append the results, batch by batch, to a table for warehouses: a folder, "
            "or ``{path, format: parquet|delta, partition_by: [KEY]}`` (docs/results.md)."
        )
    ),
]

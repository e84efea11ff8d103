"""Errors of reading an evaluation set, shared by the generic loader
(:mod:`ragjudge.loading`), the benchmark loaders (:mod:`ragjudge.datasets`) and the
configuration reader; the rule every text file they read follows is in
:mod:`ragjudge._util.textfiles`.

Nothing here imports another ragjudge module, so all of them can use it without
importing each other.
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict

__all__ = ["DatasetError", "RowProblem", "TextFileError"]


class RowProblem(BaseModel):
    """One thing wrong with one row of an evaluation set.

    ``row`` is 1-based: the line number in JSON Lines, the data row (1 = the first row
    after the header) in CSV, the element index + 1 otherwise. Row 0 means the source
    as a whole.
    """

    model_config = ConfigDict(frozen=True)

    source: str
    row: int
    field: str
    reason: str

    def __str__(self) -> str:
        if self.row == 0:
            return f"{self.source}: {self.reason}"
        return f"{self.source}, row {self.row}, field '{self.field}': {self.reason}"


class DatasetError(ValueError):
    """An evaluation set has bad rows; ``problems`` lists every one of them."""

    def __init__(self, problems: Sequence[RowProblem]) -> None:
        self.problems: list[RowProblem] = list(problems)
        super().__init__("\n".join(str(p) for p in self.problems))


class TextFileError(ValueError):
    """A file that cannot be read as text under the encoding rule of
    :func:`ragjudge._util.textfiles.decode_text`; ``reason`` says where and why,
    without the file's name."""

    def __init__(self, label: str, reason: str) -> None:
        super().__init__(f"{label}: {reason}")
        self.label = label
        self.reason = reason

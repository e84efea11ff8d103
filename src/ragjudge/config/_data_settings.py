"""Checks of the settings that say how the evaluation set is read (``columns``,
``delimiter``, ``separators``, ``systems``), and the per-system configs of a wide file."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ragjudge.loading import check_columns, check_separators, check_systems


def checked_columns(value: Any) -> Any:
    """A ``columns`` mapping, checked (other values are left to the type check)."""
    return check_columns(value) if isinstance(value, dict) else value


def checked_delimiter(value: Any) -> Any:
    """A ``delimiter``: one character that can separate cells."""
    if isinstance(value, str) and (len(value) != 1 or value in '"\r\n'):
        raise ValueError(
            f"give one character that separates the cells (a quote or line break cannot), "
            f"not {value!r}"
        )
    return value


def checked_separators(value: Any) -> Any:
    """A ``separators`` mapping, checked (other values are left to the type check)."""
    return check_separators(value) if isinstance(value, dict) else value


def checked_systems(
    systems: Mapping[str, str], columns: Mapping[str, str], target_kind: str | None
) -> dict[str, str]:
    """The ``systems`` of a config, checked: their names and columns, and that neither
    ``columns.response`` nor a target gives the responses too."""
    checked = check_systems(systems, columns)
    if checked and target_kind not in (None, "data"):
        raise ValueError(
            "systems: the responses of each system are in the data; leave 'target' "
            "out (or give 'target: data')"
        )
    return checked

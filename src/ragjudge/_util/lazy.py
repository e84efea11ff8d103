"""Packages whose public names are imported on first use: ``import ragjudge.cli`` and
``ragjudge --help`` stay cheap, while ``from ragjudge.models import JudgeModel`` still
works as before."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["lazy_names"]


def lazy_names(
    package: str, exports: Mapping[str, str], namespace: dict[str, Any]
) -> Callable[[str], Any]:
    """The module ``__getattr__`` of ``package``: each name in ``exports`` is taken from
    the module it maps to on first use and kept in ``namespace`` (the package's
    globals), so later uses are plain lookups."""

    def __getattr__(name: str) -> Any:
        module = exports.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        namespace[name] = value
        return value

    return __getattr__

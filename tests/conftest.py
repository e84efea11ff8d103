"""Fixtures shared across the suite."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest

QUICKSTART = Path(__file__).resolve().parents[1] / "examples" / "quickstart"


def import_quickstart(name: str) -> ModuleType:
    """Import a module of ``examples/quickstart`` (``rag_app``, ``rag_app_mqa``,
    ``serve``) by its plain name, as a ``rag_app:answer`` target is imported: one module
    object per name for the whole session."""
    if str(QUICKSTART) not in sys.path:
        sys.path.insert(0, str(QUICKSTART))
    return importlib.import_module(name)


@pytest.fixture(scope="session")
def quickstart() -> Callable[[str], ModuleType]:
    """:func:`import_quickstart` as a fixture."""
    return import_quickstart

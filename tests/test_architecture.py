"""The package tree of docs/architecture.md, held against the code: every import of a
ragjudge module (at the top of a module, inside a function or for type checking only)
goes to the same package or to one below it, so there is no cycle and no import running
up, between packages as between modules."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SOURCE = Path(__file__).resolve().parents[1] / "src" / "ragjudge"

LAYERS: list[set[str]] = [
    {"errors"},
    {"_util"},
    {"_version", "schema"},
    {"text"},
    {"stats"},
    {"models"},
    {"store", "testing"},
    {"knowledge"},
    {"datasets"},
    {"loading"},
    {"config"},
    {"targets"},
    {"metrics"},
    {"analysis"},
    {"meta"},
    {"export"},
    {"report"},
    {"run"},
    {"align", "testsets"},
    {"terminal"},
    {"api"},
    {"pytest"},
    {"cli"},
    {"__main__", "__init__"},
]
"""Bottom up, as in docs/architecture.md: a package imports only its own modules and
packages of an earlier layer."""

LAYER_OF = {name: index for index, layer in enumerate(LAYERS) for name in layer}


def package_of(module: str) -> str:
    """``run`` for ``ragjudge.run._runner``; ``__init__`` for ``ragjudge`` itself."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def module_name(path: Path) -> str:
    parts = list(path.relative_to(SOURCE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def imported_modules(name: str, is_package: bool, source: str) -> set[str]:
    """Every ragjudge module the module ``name`` imports, relative imports resolved."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.startswith("ragjudge"))
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = name.split(".") if is_package else name.split(".")[:-1]
                base = base[: len(base) - (node.level - 1)]
                target = ".".join([*base, *([node.module] if node.module else [])])
            else:
                target = node.module or ""
            if target.startswith("ragjudge"):
                found.add(target)
    return found


def sources() -> list[Path]:
    return sorted(SOURCE.rglob("*.py"))


def test_every_package_has_a_layer() -> None:
    packages = {package_of(module_name(p)) for p in sources()}
    assert packages == set(LAYER_OF), "add the package to LAYERS and to docs/architecture.md"


def upward_imports(name: str, is_package: bool, source: str) -> list[str]:
    """The imports of module ``name`` that go to a package of its own layer or above."""
    here = package_of(name)
    return sorted(
        target
        for target in imported_modules(name, is_package, source)
        if package_of(target) != here and LAYER_OF[package_of(target)] >= LAYER_OF[here]
    )


@pytest.mark.parametrize("path", sources(), ids=lambda p: module_name(p))
def test_imports_go_down_the_tree(path: Path) -> None:
    name = module_name(path)
    upward = upward_imports(name, path.name == "__init__.py", path.read_text(encoding="utf-8"))
    assert not upward, f"{name} ({package_of(name)}) imports up or sideways: {upward}"


def test_the_check_sees_imports_inside_functions_and_relative_ones() -> None:
    planted = (
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from ragjudge.run import Prepared\n"
        "def f():\n    from ragjudge.metrics import create_metric\n"
        "from .._util import lazy\n"
        "from ..analysis import summarize_run\n"
    )
    assert upward_imports("ragjudge.store._store", False, planted) == [
        "ragjudge.analysis",
        "ragjudge.metrics",
        "ragjudge.run",
    ]


def test_at_most_eight_modules_sit_at_the_top() -> None:
    top = sorted(p.name for p in SOURCE.glob("*.py"))
    assert len(top) <= 8, top

"""Finding the user's code named in a config: ``package.module:function`` (looked up
beside the config first, then on Python's import path) or ``path/to/file.py:function``
(the file imported by its path). Every failure is a
:class:`~ragjudge.errors.TargetSetupError` that says where the code was looked for —
never a traceback."""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

from ragjudge.errors import TargetError as TargetError
from ragjudge.errors import TargetSetupError

__all__ = ["TargetError", "TargetSetupError", "import_callable", "import_object", "lookup_rule"]


def lookup_rule(what: str, search_dir: Path | None) -> str:
    """Where a ``module:function`` is looked for, in words."""
    beside = f"in the config's folder ({search_dir}) first, then " if search_dir else ""
    return (
        f"a {what} named 'module:function' is looked up {beside}on Python's import path "
        "(the current folder, PYTHONPATH, installed packages); for a file elsewhere give "
        "its path: 'path/to/file.py:function'"
    )


def import_callable(
    path: str, *, search_dir: Path | None = None, what: str = "target"
) -> Callable[..., Any]:
    """Import ``package.module:function`` (or ``:Class``), or ``path/to/file.py:function``
    (relative to ``search_dir``, else the current folder). ``search_dir`` is put first
    on the import path. ``what`` names the thing in error messages."""
    obj = import_object(path, search_dir=search_dir, what=what)
    if not callable(obj):
        raise TargetSetupError(f"{what} {path!r} is not callable")
    return obj  # type: ignore[no-any-return]


def import_object(path: str, *, search_dir: Path | None = None, what: str = "target") -> Any:
    """Import the object ``package.module:name`` or ``path/to/file.py:name`` names (a
    function, or an application object such as a chain), found as
    :func:`import_callable` finds a function."""
    module_name, sep, attr = path.rpartition(":")
    if not sep or not module_name or not attr or "/" in attr or "\\" in attr:
        shape = "package.module:function" if what == "target" else "package.module:Class"
        raise TargetSetupError(
            f"{what} {path!r} must look like '{shape}' or 'path/to/file.py:{attr or 'name'}'"
        )
    if _is_file_path(module_name):
        module = _import_file(module_name, search_dir, what, path)
    else:
        module = _import_module(module_name, search_dir, what, path)
    obj: Any = module
    for part in attr.split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            raise TargetSetupError(f"{module_name!r} has no attribute {attr!r} ({what} {path!r})")
    return obj


def _is_file_path(name: str) -> bool:
    return name.endswith(".py") or "/" in name or "\\" in name or name.startswith(".")


def _import_module(name: str, search_dir: Path | None, what: str, path: str) -> ModuleType:
    if search_dir is not None and str(search_dir) not in sys.path:
        sys.path.insert(0, str(search_dir))
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name is not None and not _is_part_of(exc.name, name):
            raise TargetSetupError(
                f"importing {name!r} for {what} {path!r} failed: it needs the module "
                f"{exc.name!r}, which is not installed"
            ) from None
        raise TargetSetupError(
            f"cannot import {name!r} for {what} {path!r}: {exc}; {lookup_rule(what, search_dir)}"
        ) from None
    except Exception as exc:  # the user's module raised while being imported
        raise TargetSetupError(_raised(name, what, path, exc)) from None


def _is_part_of(missing: str, name: str) -> bool:
    """Whether the module that was not found is ``name`` or one of its packages."""
    return name == missing or name.startswith(missing + ".")


def _import_file(name: str, search_dir: Path | None, what: str, path: str) -> ModuleType:
    file = _find_file(Path(name).expanduser(), search_dir)
    if file is None:
        where = f"the config's folder ({search_dir}) or " if search_dir else ""
        raise TargetSetupError(
            f"{what} {path!r}: no file {name} in {where}the current folder ({Path.cwd()})"
        )
    folder = str(file.parent)
    if folder not in sys.path:
        sys.path.insert(0, folder)  # the file's own imports of its neighbours
    module_name = _module_name(file)
    spec = importlib.util.spec_from_file_location(module_name, file)
    if spec is None or spec.loader is None:
        raise TargetSetupError(f"{what} {path!r}: {file} is not a Python file")
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    try:
        spec.loader.exec_module(module)
    except Exception as exc:
        del sys.modules[module_name]
        raise TargetSetupError(_raised(str(file), what, path, exc)) from None
    return module


def _find_file(name: Path, search_dir: Path | None) -> Path | None:
    if name.is_absolute():
        return name.resolve() if name.is_file() else None
    for base in (search_dir, Path.cwd()):
        if base is not None and (base / name).is_file():
            return (base / name).resolve()
    return None


def _module_name(file: Path) -> str:
    """A module name of the file's own, so that importing it by path never takes (or
    hides) a module of the same name on the import path."""
    digest = hashlib.sha1(str(file).encode(), usedforsecurity=False).hexdigest()[:8]
    stem = file.stem if file.stem.isidentifier() else "module"
    return f"_ragjudge_file_{digest}_{stem}"


def _raised(source: str, what: str, path: str, exc: Exception) -> str:
    """What the user's module raised while being imported, with where."""
    where = ""
    if isinstance(exc, SyntaxError) and exc.lineno is not None:
        where = f" (line {exc.lineno})"
    elif exc.__traceback__ is not None:
        frame = exc.__traceback__
        while frame.tb_next is not None:
            frame = frame.tb_next
        where = f" ({frame.tb_frame.f_code.co_filename}, line {frame.tb_lineno})"
    return f"importing {source} for {what} {path!r} raised {type(exc).__name__}: {exc}{where}"

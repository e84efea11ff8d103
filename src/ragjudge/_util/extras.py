"""The optional extras of the ragjudge package: which modules each one brings, whether
they are installed, and the error that names the pip command when they are not.

The core install (``pip install ragjudge``) runs every command; a feature that needs an
extra says so with :func:`require_extra` instead of failing on an import."""

from __future__ import annotations

import importlib.util

from ragjudge.errors import MissingExtra

__all__ = ["EXTRA_MODULES", "extra_installed", "install_command", "require_extra"]

EXTRA_MODULES: dict[str, tuple[str, ...]] = {
    "local": ("sentence_transformers", "torch"),
    "pdf": ("pypdf",),
    "mlflow": ("mlflow",),
    "agreement": ("statsmodels",),
    "litellm": ("litellm",),
    "serve": ("starlette", "uvicorn"),
    "ray": ("ray",),
    "delta": ("deltalake",),
    "jsonschema": ("jsonschema",),
    "traces": ("openinference.semconv", "opentelemetry.semconv"),
}
"""Extra name → the top-level modules it installs that ragjudge imports."""


def install_command(extra: str) -> str:
    """``pip install 'ragjudge[EXTRA]'``."""
    return f"pip install 'ragjudge[{extra}]'"


def extra_installed(extra: str) -> bool:
    """Whether every module of ``extra`` can be imported (without importing it)."""
    return all(_module_available(module) for module in EXTRA_MODULES[extra])


def require_extra(extra: str, what: str) -> None:
    """Raise :class:`~ragjudge.errors.MissingExtra` saying that ``what`` needs
    ``extra`` unless its modules are installed."""
    if not extra_installed(extra):
        raise MissingExtra(missing_extra_message(extra, what), extra=extra)


def missing_extra_message(extra: str, what: str) -> str:
    """``WHAT needs the 'EXTRA' extra (modules), which is not installed: pip …``."""
    modules = ", ".join(EXTRA_MODULES[extra])
    return (
        f"{what} needs the {extra!r} extra ({modules}), which is not installed: "
        f"{install_command(extra)}"
    )


def _module_available(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except ValueError:  # the module is in sys.modules as None: blocked on purpose
        return False
    except ModuleNotFoundError:  # a dotted name whose parent package is absent
        return False

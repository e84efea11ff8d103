"""Import paths of modules that moved: ``import ragjudge.runner`` (and every other
module path of the flat layout before the package tree) still works, gives the module
at its new place and warns once with that place.

Only the import is redirected: the module keeps its own name and spec, so it is one
module object whichever path imported it.
"""

from __future__ import annotations

import importlib
import importlib.machinery
import itertools
import sys
import warnings
from collections.abc import Sequence
from importlib._abc import Loader  # importlib.abc's, without what that module imports
from types import ModuleType

__all__ = ["MOVED", "install_moved_paths"]

MOVED: dict[str, str] = {
    "ragjudge.battle": "ragjudge.run._battle",
    "ragjudge.choice_counts": "ragjudge.analysis._choices",
    "ragjudge.compare": "ragjudge.analysis._compare",
    "ragjudge.dryrun": "ragjudge.run._dryrun",
    "ragjudge.embeddings": "ragjudge.models._embeddings",
    "ragjudge.execution": "ragjudge.run._execution",
    "ragjudge.exporting": "ragjudge.export._files",
    "ragjudge.frames": "ragjudge.store._frames",
    "ragjudge.gate": "ragjudge.analysis._gates",
    "ragjudge.judging": "ragjudge.run._judging",
    "ragjudge.meanings": "ragjudge.analysis._meanings",
    "ragjudge.metric_info": "ragjudge.metrics._info",
    "ragjudge.mlflow_export": "ragjudge.export._mlflow",
    "ragjudge.openai_evals": "ragjudge.run._openai_evals",
    "ragjudge.outcome": "ragjudge.analysis._outcome",
    "ragjudge.preparation": "ragjudge.run._preparation",
    "ragjudge.rate_limits": "ragjudge.analysis._rate_limits",
    "ragjudge.ray_settings": "ragjudge.config._ray",
    "ragjudge.repro": "ragjudge.analysis._repro",
    "ragjudge.results": "ragjudge.analysis._results",
    "ragjudge.retrieval": "ragjudge.knowledge._retrieval",
    "ragjudge.runner": "ragjudge.run._runner",
    "ragjudge.sampling": "ragjudge.run._sampling",
    "ragjudge.stability": "ragjudge.analysis._stability",
    "ragjudge.traces": "ragjudge.targets._traces",
    "ragjudge.html": "ragjudge.report",
    "ragjudge.http_targets": "ragjudge.targets.http",
    "ragjudge.distributed": "ragjudge.run.ray",
    "ragjudge.models.cache": "ragjudge.models._cache",
    "ragjudge.models.limits": "ragjudge.models._limits",
    "ragjudge.models.model": "ragjudge.models._model",
    "ragjudge.models.openai_provider": "ragjudge.models._openai",
    "ragjudge.models.litellm_provider": "ragjudge.models._litellm",
    "ragjudge.models.pricing": "ragjudge.models._pricing",
    "ragjudge.models.tokens": "ragjudge.models._tokens",
}
"""Old module path → the module's place now. ``ragjudge.config``, ``ragjudge.store``,
``ragjudge.targets``, ``ragjudge.text``, ``ragjudge.meta`` and ``ragjudge.pytest`` kept
their paths (the first five are packages exporting what the modules did)."""


class _MovedLoader(Loader):
    """Gives the module at its new place for an old path."""

    def __init__(self, new: str) -> None:
        self.new = new

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        warnings.warn(
            f"{spec.name} moved into {_public_package(self.new)}; import from there",
            DeprecationWarning,
            stacklevel=2,
        )
        module = importlib.import_module(self.new)
        self._own_spec = module.__spec__
        return module

    def exec_module(self, module: ModuleType) -> None:
        # The import system has set the old path's spec on the module: put its own back.
        module.__spec__ = self._own_spec


class _MovedFinder:
    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        new = _new_place(fullname)
        if new is None:
            return None
        return importlib.machinery.ModuleSpec(fullname, _MovedLoader(new))


def _new_place(old: str) -> str | None:
    """The new path of ``old`` or of a module under a moved package."""
    if old in MOVED:
        return MOVED[old]
    parent, _, leaf = old.rpartition(".")
    moved_parent = MOVED.get(parent)
    if moved_parent is not None and parent in ("ragjudge.html", "ragjudge.http_targets"):
        return f"{moved_parent}.{leaf}"
    return None


def _public_package(module: str) -> str:
    """``ragjudge.run`` for ``ragjudge.run._runner``: the path up to the first private part."""
    parts = module.split(".")
    public = [p for p in itertools.takewhile(lambda p: not p.startswith("_"), parts)]
    return ".".join(public)


def install_moved_paths() -> None:
    """Let the old module paths import (once per process)."""
    if not any(isinstance(f, _MovedFinder) for f in sys.meta_path):
        # first: a submodule of a moved package (ragjudge.html._page) must not be found
        # by the path finder through the parent it aliases, which would load it twice
        sys.meta_path.insert(0, _MovedFinder())

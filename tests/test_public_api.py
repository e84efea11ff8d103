"""The public API: what ``ragjudge`` and its documented submodules export. Everything else
is private (a module or package whose name starts with ``_``), so a change to the public
surface shows up here first."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import subprocess
import sys
import warnings

import pytest

import ragjudge

TOP_LEVEL = {
    "AnalysisError",
    "ClusterError",
    "ConfigError",
    "ContextChunk",
    "DataError",
    "DatasetError",
    "EvaluationResult",
    "ExportError",
    "JudgeError",
    "JudgedMetric",
    "Metric",
    "MetricContext",
    "MetricError",
    "Output",
    "RagjudgeError",
    "RequirementError",
    "RunFailed",
    "RunFailedWarning",
    "Result",
    "Sample",
    "Score",
    "ScoreMeaning",
    "StoreError",
    "SystemRuns",
    "TargetError",
    "__version__",
    "aevaluate",
    "aevaluate_systems",
    "agenerate",
    "available_metrics",
    "create_metric",
    "evaluate",
    "evaluate_systems",
    "generate",
    "load_samples",
    "log_to_mlflow",
    "register_metric",
    "run_evaluation",
}

PUBLIC_MODULES = {
    "ragjudge",
    "ragjudge.align",
    "ragjudge.analysis",
    "ragjudge.api",
    "ragjudge.cli",
    "ragjudge.config",
    "ragjudge.datasets",
    "ragjudge.datasets.mtrag",
    "ragjudge.datasets.ragchecker",
    "ragjudge.errors",
    "ragjudge.export",
    "ragjudge.knowledge",
    "ragjudge.loading",
    "ragjudge.meta",
    "ragjudge.metrics",
    "ragjudge.metrics.replies",
    "ragjudge.models",
    "ragjudge.models.scripted",
    "ragjudge.pytest",
    "ragjudge.report",
    "ragjudge.run",
    "ragjudge.run.ray",
    "ragjudge.schema",
    "ragjudge.stats",
    "ragjudge.store",
    "ragjudge.targets",
    "ragjudge.targets.http",
    "ragjudge.terminal",
    "ragjudge.testing",
    "ragjudge.testing.background",
    "ragjudge.testing.server",
    "ragjudge.testsets",
    "ragjudge.text",
}
"""Besides these, the metric families under ``ragjudge.metrics.<family>`` are public:
one module per metric, each a worked example of the metric kit."""

METRIC_FAMILIES = (
    "accuracy",
    "agent",
    "checks",
    "classify",
    "custom",
    "databricks",
    "dialogues",
    "lexical",
    "ragas",
    "retrieval",
    "rubric",
    "semantic",
    "tools",
)


def public_modules() -> set[str]:
    found = {"ragjudge"}
    for info in pkgutil.walk_packages(ragjudge.__path__, "ragjudge."):
        if not any(part.startswith("_") for part in info.name.split(".")):
            found.add(info.name)
    return found


def test_the_top_level_exports_exactly_the_public_api() -> None:
    assert set(ragjudge.__all__) == TOP_LEVEL
    for name in TOP_LEVEL:
        assert getattr(ragjudge, name) is not None


def test_every_module_outside_the_documented_ones_is_private() -> None:
    metric_modules = {
        m
        for m in public_modules()
        if m.startswith("ragjudge.metrics.") and m.split(".")[2] in METRIC_FAMILIES
    }
    assert public_modules() - metric_modules == PUBLIC_MODULES


@pytest.mark.parametrize("module", sorted(PUBLIC_MODULES - {"ragjudge.cli"}))
def test_every_exported_name_resolves_and_is_documented(module: str) -> None:
    imported = importlib.import_module(module)
    assert imported.__doc__, f"{module} has no docstring"
    for name in getattr(imported, "__all__", []):
        value = getattr(imported, name)
        if inspect.isclass(value) or inspect.isfunction(value):
            assert inspect.getdoc(value), f"{module}.{name} has no docstring"


def test_a_module_path_before_the_package_tree_still_imports_and_says_where_it_went() -> None:
    code = (
        "import warnings; warnings.simplefilter('error')\n"
        "try:\n"
        "    import ragjudge.runner\n"
        "except DeprecationWarning as exc:\n"
        "    print(exc)\n"
        "warnings.simplefilter('ignore')\n"
        "from ragjudge.runner import run_evaluation\n"
        "from ragjudge.retrieval import BM25Retriever\n"
        "import ragjudge.html._page as page, ragjudge.run._runner as runner\n"
        "assert run_evaluation is runner.run_evaluation\n"
        "assert runner.__spec__.name == 'ragjudge.run._runner'\n"
        "assert page.__name__ == 'ragjudge.report._page'\n"
        "print(BM25Retriever.__module__)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "ragjudge.runner moved into ragjudge.run; import from there",
        "ragjudge.knowledge._retrieval",
    ]


def test_importing_a_current_module_warns_of_nothing() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        importlib.import_module("ragjudge.run")
        importlib.import_module("ragjudge.report")

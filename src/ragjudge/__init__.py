"""ragjudge: evaluate RAG and LLM applications with LLM judges and classical metrics,
confidence intervals, resumable runs and a check against human labels.

>>> import ragjudge as rj
>>> result = rj.evaluate("evalset.jsonl", target="my_app:answer", metrics=["rouge_l"])
>>> result.summary()

In async code, ``result = await rj.aevaluate(...)`` with the same arguments.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ragjudge._util.compat import install_moved_paths
from ragjudge._util.lazy import lazy_names
from ragjudge._version import __version__

install_moved_paths()  # `import ragjudge.runner` and the other paths before the package tree

# Public names and the module that defines each; imported on first use so that
# `import ragjudge.schema` (and the CLI's start-up) stays cheap.
_EXPORTS = {
    "ContextChunk": "ragjudge.schema",
    "Output": "ragjudge.schema",
    "Sample": "ragjudge.schema",
    "Score": "ragjudge.schema",
    "ScoreMeaning": "ragjudge.schema",
    "RagjudgeError": "ragjudge.errors",
    "AnalysisError": "ragjudge.errors",
    "ClusterError": "ragjudge.errors",
    "ConfigError": "ragjudge.errors",
    "DataError": "ragjudge.errors",
    "ExportError": "ragjudge.errors",
    "JudgeError": "ragjudge.errors",
    "MetricError": "ragjudge.errors",
    "StoreError": "ragjudge.errors",
    "RunFailed": "ragjudge.errors",
    "RunFailedWarning": "ragjudge.errors",
    "TargetError": "ragjudge.errors",
    "DatasetError": "ragjudge.loading",
    "load_samples": "ragjudge.loading",
    "Metric": "ragjudge.metrics",
    "MetricContext": "ragjudge.metrics",
    "JudgedMetric": "ragjudge.metrics",
    "Result": "ragjudge.metrics",
    "available_metrics": "ragjudge.metrics",
    "create_metric": "ragjudge.metrics",
    "register_metric": "ragjudge.metrics",
    "EvaluationResult": "ragjudge.analysis",
    "SystemRuns": "ragjudge.analysis",
    "RequirementError": "ragjudge.run",
    "evaluate": "ragjudge.api",
    "aevaluate": "ragjudge.api",
    "evaluate_systems": "ragjudge.api",
    "aevaluate_systems": "ragjudge.api",
    "run_evaluation": "ragjudge.run",
    "log_to_mlflow": "ragjudge.export",
    "generate": "ragjudge.testsets._api",
    "agenerate": "ragjudge.testsets._api",
}

__all__ = [
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
    "Result",
    "RunFailed",
    "RunFailedWarning",
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
]

if TYPE_CHECKING:
    from ragjudge.analysis import EvaluationResult, SystemRuns
    from ragjudge.api import aevaluate, aevaluate_systems, evaluate, evaluate_systems
    from ragjudge.errors import (
        AnalysisError,
        ClusterError,
        ConfigError,
        DataError,
        ExportError,
        JudgeError,
        MetricError,
        RagjudgeError,
        RunFailed,
        RunFailedWarning,
        StoreError,
        TargetError,
    )
    from ragjudge.export import log_to_mlflow
    from ragjudge.loading import DatasetError, load_samples
    from ragjudge.metrics import (
        JudgedMetric,
        Metric,
        MetricContext,
        Result,
        available_metrics,
        create_metric,
        register_metric,
    )
    from ragjudge.run import RequirementError, run_evaluation
    from ragjudge.schema import ContextChunk, Output, Sample, Score, ScoreMeaning
    from ragjudge.testsets._api import agenerate, generate


__getattr__ = lazy_names(__name__, _EXPORTS, globals())

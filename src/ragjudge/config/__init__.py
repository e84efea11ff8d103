"""The evaluation's configuration: the YAML file ``ragjudge run`` reads and the settings
``ragjudge.evaluate(...)`` builds from its arguments (:class:`EvalConfig`), with the Ray
cluster settings (:class:`RayConfig`).

It may import :mod:`ragjudge.errors`, :mod:`ragjudge.schema`, ``ragjudge._util``,
:mod:`ragjudge.loading` (column and format checks) and :mod:`ragjudge.models` (judge
settings), nothing above them.
"""

from __future__ import annotations

from ragjudge.config._eval import ConfigError, EvalConfig, JudgeConfig, KnowledgeBaseConfig
from ragjudge.config._files import expand_environment, load_config
from ragjudge.config._presets import PRESETS, Preset, expand_presets, preset_named
from ragjudge.config._ray import (
    EXECUTORS,
    ClusterError,
    RayConfig,
    check_address,
    check_reachable,
    cluster_address,
)
from ragjudge.config._sections import OpenAIEvalsConfig, ReportConfig, TargetConfig
from ragjudge.config._surface import RunControls

__all__ = [
    "EXECUTORS",
    "PRESETS",
    "ClusterError",
    "ConfigError",
    "EvalConfig",
    "JudgeConfig",
    "KnowledgeBaseConfig",
    "OpenAIEvalsConfig",
    "Preset",
    "RayConfig",
    "ReportConfig",
    "RunControls",
    "TargetConfig",
    "check_address",
    "check_reachable",
    "cluster_address",
    "expand_environment",
    "expand_presets",
    "load_config",
    "preset_named",
]

"""Running an evaluation: preparing it (metrics, target, samples, retriever, all checked
before any paid work), planning and executing it (target calls, scoring, judge calls
under the limits, results stored as they arrive), resuming, the dry run, battles,
openai-evals registries, and the Ray executor (:mod:`ragjudge.run.ray`).

It may import every package below it: config, loading, datasets, knowledge, models,
targets, metrics, store, analysis and report.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ragjudge._util.lazy import lazy_names

# Each public name and the module that defines it, imported on first use.
_EXPORTS = {
    "dry_run": "ragjudge.run._runner",
    "run_evaluation": "ragjudge.run._runner",
    "run_sync": "ragjudge.run._runner",
    "MetricSpec": "ragjudge.run._preparation",
    "Prepared": "ragjudge.run._preparation",
    "RequirementError": "ragjudge.run._preparation",
    "prepare": "ragjudge.run._preparation",
    "DryRunPlan": "ragjudge.run._dryrun",
    "BattleReport": "ragjudge.run._battle",
    "run_battle": "ragjudge.run._battle",
}

if TYPE_CHECKING:
    from ragjudge.run._battle import BattleReport, run_battle
    from ragjudge.run._dryrun import DryRunPlan
    from ragjudge.run._preparation import MetricSpec, Prepared, RequirementError, prepare
    from ragjudge.run._runner import dry_run, run_evaluation, run_sync

__all__ = [
    "BattleReport",
    "DryRunPlan",
    "MetricSpec",
    "Prepared",
    "RequirementError",
    "dry_run",
    "prepare",
    "run_battle",
    "run_evaluation",
    "run_sync",
]

__getattr__ = lazy_names(__name__, _EXPORTS, globals())

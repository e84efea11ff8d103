"""What a stored run says: its summary (means, bootstrap CIs, errors by cause, trials),
the outcome and exit code, quality gates, paired comparison of two runs, trial stability
and reproducibility, method comparisons, choice counts and the meaning of each score.

It reads the store and never runs anything; it may import :mod:`ragjudge.store`,
:mod:`ragjudge.stats`, :mod:`ragjudge.config`, :mod:`ragjudge.schema`,
:mod:`ragjudge.errors` and ``ragjudge._util``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ragjudge._util.lazy import lazy_names

# Each public name and the module that defines it, imported on first use.
_EXPORTS = {
    "EvaluationResult": "ragjudge.analysis._results",
    "summarize_run": "ragjudge.analysis._results",
    "Comparison": "ragjudge.analysis._compare",
    "MetricComparison": "ragjudge.analysis._compare",
    "compare_runs": "ragjudge.analysis._compare",
    "Gate": "ragjudge.analysis._gates",
    "GateResult": "ragjudge.analysis._gates",
    "check_gates": "ragjudge.analysis._gates",
    "parse_gate": "ragjudge.analysis._gates",
    "Verdict": "ragjudge.analysis._outcome",
    "run_verdict": "ragjudge.analysis._outcome",
    "StabilityTable": "ragjudge.analysis._stability",
    "stability_for_run": "ragjudge.analysis._stability",
    "ReproTable": "ragjudge.analysis._repro",
    "repro_for_run": "ragjudge.analysis._repro",
    "MethodsTable": "ragjudge.analysis._methods",
    "methods_for_run": "ragjudge.analysis._methods",
    "ChoiceCount": "ragjudge.analysis._choices",
    "choice_counts": "ragjudge.analysis._choices",
    "run_meanings": "ragjudge.analysis._meanings",
    "CalibratedEstimate": "ragjudge.analysis._calibrated",
    "calibrated_estimates": "ragjudge.analysis._calibrated",
    "RunState": "ragjudge.analysis._status",
    "SystemRuns": "ragjudge.analysis._systems",
    "run_states": "ragjudge.analysis._status",
}

if TYPE_CHECKING:
    from ragjudge.analysis._calibrated import CalibratedEstimate, calibrated_estimates
    from ragjudge.analysis._choices import ChoiceCount, choice_counts
    from ragjudge.analysis._compare import Comparison, MetricComparison, compare_runs
    from ragjudge.analysis._gates import Gate, GateResult, check_gates, parse_gate
    from ragjudge.analysis._meanings import run_meanings
    from ragjudge.analysis._methods import MethodsTable, methods_for_run
    from ragjudge.analysis._outcome import Verdict, run_verdict
    from ragjudge.analysis._repro import ReproTable, repro_for_run
    from ragjudge.analysis._results import EvaluationResult, summarize_run
    from ragjudge.analysis._stability import StabilityTable, stability_for_run
    from ragjudge.analysis._status import RunState, run_states
    from ragjudge.analysis._systems import SystemRuns

__all__ = [
    "CalibratedEstimate",
    "ChoiceCount",
    "Comparison",
    "EvaluationResult",
    "Gate",
    "GateResult",
    "MethodsTable",
    "MetricComparison",
    "ReproTable",
    "RunState",
    "StabilityTable",
    "SystemRuns",
    "Verdict",
    "calibrated_estimates",
    "check_gates",
    "choice_counts",
    "compare_runs",
    "methods_for_run",
    "parse_gate",
    "repro_for_run",
    "run_meanings",
    "run_states",
    "run_verdict",
    "stability_for_run",
    "summarize_run",
]

__getattr__ = lazy_names(__name__, _EXPORTS, globals())

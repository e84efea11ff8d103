"""What ``ragjudge run`` adds around a run for CI pipelines and people at a terminal:
the quality gates of ``--fail-under``/``--fail-over``/``--gate``, and the exact
command that resumes an interrupted run."""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.text import Text

from ragjudge.cli._common import err, fail, out

if TYPE_CHECKING:
    from ragjudge.analysis._gates import Gate, GateOn, GateResult
    from ragjudge.analysis._results import EvaluationResult
    from ragjudge.config import EvalConfig
    from ragjudge.metrics import Metric

__all__ = [
    "check_gate_names",
    "configured_gates",
    "gate_outcome",
    "parse_gates",
    "print_gates",
    "resume_command",
]


def parse_gates(under: Sequence[str] | None, over: Sequence[str] | None) -> list[Gate]:
    """The gates of the command line; a malformed one is a
    :class:`~ragjudge.errors.ConfigError`."""
    from ragjudge.analysis._gates import parse_gate

    return [
        *(parse_gate(text, floor=True) for text in under or []),
        *(parse_gate(text, floor=False) for text in over or []),
    ]


def configured_gates(config: EvalConfig, given: Sequence[Gate]) -> list[Gate]:
    """The config's gates with the command line's added (see
    :func:`ragjudge.analysis._gates.configured_gates`)."""
    from ragjudge.analysis._gates import configured_gates as merged

    return merged(config, given)


def check_gate_names(gates: Sequence[Gate], config: EvalConfig) -> None:
    """Before anything is paid for: a gate naming a score the config's metrics do not
        give ends the command, listing the scores they give (``NAME.passed`` gates the
    pass rate of score ``NAME``). Metrics whose score names
        depend on the rows (or an openai-evals eval's) are checked after the run."""
    if not gates or config.openai_evals is not None:
        return
    from ragjudge.run._preparation import build_metrics

    metrics = build_metrics(config.metrics, base_dir=config.base_dir, where=config.where("metrics"))
    if any(_names_depend_on_rows(m) for m in metrics):
        return
    from ragjudge.analysis._gates import unknown_gate_metrics

    meanings = {name: meaning for m in metrics for name, meaning in m.meanings().items()}
    names = list(meanings)
    unknown = sorted(set(unknown_gate_metrics(gates, names)))
    if unknown:
        raise fail(
            f"the gate(s) name {', '.join(unknown)}, which the run does not score; "
            f"its scores: {', '.join(names)}"
        )
    no_pass = sorted(
        {
            g.metric
            for g in gates
            if g.on_pass_rate and g.metric not in meanings and not meanings[g.score].has_pass
        }
    )
    if no_pass:
        with_pass = ", ".join(n for n, meaning in meanings.items() if meaning.has_pass)
        raise fail(
            f"the gate(s) {', '.join(no_pass)} need a per-sample pass: give the score a "
            f"'threshold' in its metric entry (scores with one: {with_pass or 'none'})"
        )


def _names_depend_on_rows(metric: Metric) -> bool:
    from ragjudge.metrics import Metric

    return type(metric).score_names_for is not Metric.score_names_for


def gate_outcome(
    result: EvaluationResult, gates: Sequence[Gate], on: GateOn
) -> tuple[int, list[GateResult]]:
    """The gates checked on a finished run, and the command's exit code: the run's own
    when scores are missing, else :data:`EXIT_GATE` when a gate failed, else 0."""
    from ragjudge.analysis._gates import EXIT_GATE, check_gates, needs_calibrated

    calibrated = result.calibrated() if needs_calibrated(gates) else None
    results = check_gates(
        result.summaries, gates, on=on, pass_rates=result.pass_rates, calibrated=calibrated
    )
    code = result.verdict.exit_code
    if code == 0 and any(not g.passed for g in results):
        code = EXIT_GATE
    return code, results


def print_gates(results: Sequence[GateResult], *, to_stderr: bool) -> None:
    """One line per gate: why it held or failed."""
    console = err if to_stderr else out
    for gate in results:
        style = "green" if gate.passed else "bold red"
        console.print(Text(gate.reason, style=style), soft_wrap=True)


def resume_command(config: Path | None, run_id: str | None, given: dict[str, Any]) -> str:
    """The command that finishes the interrupted run: its config, its id, and the
    options given that say where it is (``--store``) or how it was read
    (``--openai-evals``)."""
    parts = ["ragjudge", "run"]
    if config is not None:
        parts.append(str(config))
    parts += ["--resume", run_id or "RUN"]
    for flag, value in given.items():
        if value is None:
            continue
        parts += (
            [flag, *(str(v) for v in value)] if isinstance(value, tuple) else [flag, str(value)]
        )
    command = shlex.join(parts)
    return command if run_id else command + "  (RUN: the run's id, see `ragjudge runs`)"

"""Quality gates: ``--fail-under rouge_l=0.4`` (and ``--fail-over lscore=3`` for a
metric where lower is better) checked on a run's mean, or with ``--gate ci`` on the
conservative bound of its 95% CI (``ci_low`` for a floor, ``ci_high`` for a ceiling),
so a CI pipeline fails only when the evidence says the metric is off. A gate on
``NAME.passed`` checks the share of samples passing ``NAME``'s per-sample threshold
instead (with ``--gate ci``, the bound of that share's interval). Each failed gate
gives one line saying why; ``ragjudge run`` then exits :data:`EXIT_GATE`."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from ragjudge._util.score_names import current_score_name
from ragjudge.analysis._outcome import EXIT_GATE
from ragjudge.errors import ConfigError
from ragjudge.stats import MetricSummary

if TYPE_CHECKING:  # the config is not read to show or gate a stored run
    from ragjudge.analysis._passes import PassRate
    from ragjudge.config import EvalConfig

__all__ = [
    "EXIT_GATE",
    "PASSED_SUFFIX",
    "Gate",
    "GateOn",
    "GateResult",
    "check_gates",
    "configured_gates",
    "failed_gates",
    "parse_gate",
    "unknown_gate_metrics",
]

GateOn = Literal["mean", "ci"]

PASSED_SUFFIX = ".passed"
"""A gate on ``NAME.passed`` checks ``NAME``'s pass rate, not its mean."""


@dataclass(frozen=True)
class Gate:
    """One threshold on one score: ``floor`` gates fail below it, others above it. A
    score's old name (:data:`~ragjudge._util.score_names.RENAMED_SCORES`) is taken
    for its current one."""

    metric: str
    threshold: float
    floor: bool = True

    def __post_init__(self) -> None:
        object.__setattr__(self, "metric", current_score_name(self.metric))

    @property
    def on_pass_rate(self) -> bool:
        """Whether the gate checks the share of samples passing a score's threshold."""
        return self.metric.endswith(PASSED_SUFFIX)

    @property
    def option(self) -> str:
        """The command-line option that states this gate."""
        flag = "--fail-under" if self.floor else "--fail-over"
        return f"{flag} {self.metric}={self.threshold:g}"


@dataclass(frozen=True)
class GateResult:
    """Whether a gate held, on which value, and (when it did not) why, in one line."""

    gate: Gate
    value: float | None
    measured: str
    """``mean``, ``ci_low`` or ``ci_high``; for a gate on a pass rate ``pass_rate``,
    ``pass_ci_low`` or ``pass_ci_high``."""
    passed: bool
    reason: str

    def to_dict(self) -> dict[str, object]:
        """JSON-able form."""
        return {
            "metric": self.gate.metric,
            "threshold": self.gate.threshold,
            "kind": "fail_under" if self.gate.floor else "fail_over",
            "measured": self.measured,
            "value": self.value,
            "passed": self.passed,
            "reason": self.reason,
        }


def parse_gate(text: str, *, floor: bool = True) -> Gate:
    """``METRIC=VALUE`` as a :class:`Gate`; :class:`~ragjudge.errors.ConfigError` (a
    ``ValueError``) saying what is wrong. The metric name may itself hold ``=`` only
    before the last one."""
    name, sep, number = text.rpartition("=")
    flag = "--fail-under" if floor else "--fail-over"
    if not sep or not name.strip() or not number.strip():
        raise ConfigError(f"{flag} takes METRIC=VALUE (e.g. rouge_l=0.4), not {text!r}")
    try:
        threshold = float(number)
    except ValueError:
        raise ConfigError(f"{flag} {text}: {number!r} is not a number") from None
    if not math.isfinite(threshold):
        raise ConfigError(f"{flag} {text}: the threshold must be a finite number")
    return Gate(name.strip(), threshold, floor)


def configured_gates(config: EvalConfig, given: Iterable[Gate] = ()) -> list[Gate]:
    """The config's gates (``fail_under``, ``fail_over``) with ``given`` ones (the
    command line's) added; a given gate on a score the config already gates the same
    way replaces the config's."""
    gates = {
        **{(m, True): Gate(m, v, True) for m, v in config.fail_under.items()},
        **{(m, False): Gate(m, v, False) for m, v in config.fail_over.items()},
    }
    for gate in given:
        gates[(gate.metric, gate.floor)] = gate
    return list(gates.values())


def check_gates(
    summaries: Sequence[MetricSummary],
    gates: Iterable[Gate],
    *,
    on: GateOn = "mean",
    pass_rates: Sequence[PassRate] = (),
) -> list[GateResult]:
    """Every gate checked against the run's per-metric summaries, and a gate on
    ``NAME.passed`` against ``NAME``'s pass rate (a score literally named so is gated
    on its mean)."""
    by_name = {s.metric: s for s in summaries}
    rates = {r.metric: r for r in pass_rates}
    return [
        _check_pass_rate(gate, rates, on)
        if gate.on_pass_rate and gate.metric not in by_name
        else _check(gate, by_name, on)
        for gate in gates
    ]


def failed_gates(results: Iterable[GateResult]) -> list[GateResult]:
    """The gates that did not hold."""
    return [r for r in results if not r.passed]


def _check(gate: Gate, by_name: dict[str, MetricSummary], on: GateOn) -> GateResult:
    measured = "mean" if on == "mean" else ("ci_low" if gate.floor else "ci_high")
    summary = by_name.get(gate.metric)
    if summary is None:
        known = ", ".join(by_name) or "none"
        reason = f"{gate.metric}: the run has no such score (its scores: {known})"
        return _unmeasured(gate, measured, reason)
    value = _measured_value(summary, measured)
    if value is None:
        why = "no value" if summary.mean is None else "no confidence interval"
        reason = f"{gate.metric} has {why} ({summary.errors} errors, n={summary.n})"
        return _unmeasured(gate, measured, reason)
    passed, relation, verb = _held(gate, value)
    reason = (
        f"{verb} ({gate.option}): {gate.metric} {measured} {value:.3f} {relation} "
        f"{gate.threshold:g}{_context(summary, measured)}"
    )
    return GateResult(gate, value, measured, passed, reason)


def _held(gate: Gate, value: float) -> tuple[bool, str, str]:
    """Whether ``value`` holds ``gate``, the relation to show and the verb."""
    passed = value >= gate.threshold if gate.floor else value <= gate.threshold
    relation = (">=" if passed else "<") if gate.floor else ("<=" if passed else ">")
    return passed, relation, "gate passed" if passed else "gate failed"


def _unmeasured(gate: Gate, measured: str, reason: str) -> GateResult:
    """A gate that failed because its value could not be measured."""
    return GateResult(gate, None, measured, False, f"gate failed ({gate.option}): {reason}")


def _check_pass_rate(gate: Gate, rates: dict[str, PassRate], on: GateOn) -> GateResult:
    measured = "pass_rate" if on == "mean" else ("pass_ci_low" if gate.floor else "pass_ci_high")
    score = gate.metric.removesuffix(PASSED_SUFFIX)
    rate = rates.get(score)
    if rate is None:
        known = ", ".join(rates) or "none"
        reason = f"{score} has no per-sample pass (give it a 'threshold'); scores with one: {known}"
        return _unmeasured(gate, measured, reason)
    value = _measured_rate(rate, measured)
    if value is None:
        why = "no scored sample" if rate.rate is None else "no confidence interval"
        reason = f"{gate.metric} has {why} ({rate.unscored} not scored)"
        return _unmeasured(gate, measured, reason)
    passed, relation, verb = _held(gate, value)
    reason = (
        f"{verb} ({gate.option}): share of samples with {score} {rate.condition}: "
        f"{measured} {value:.3f} {relation} {gate.threshold:g}{_rate_context(rate, measured)}"
    )
    return GateResult(gate, value, measured, passed, reason)


def _measured_rate(rate: PassRate, measured: str) -> float | None:
    if measured == "pass_rate":
        return rate.rate
    if rate.ci is None or rate.rate is None:
        return None
    return rate.ci.low if measured == "pass_ci_low" else rate.ci.high


def _rate_context(rate: PassRate, measured: str) -> str:
    parts = [f"{rate.passed} of {rate.passed + rate.failed} passed"]
    if measured != "pass_rate" and rate.rate is not None:
        parts.append(f"pass rate {rate.rate:.3f}")
    if rate.ci is not None:
        parts.append(f"95% CI [{rate.ci.low:.3f}, {rate.ci.high:.3f}]")
    if rate.unscored:
        parts.append(f"{rate.unscored} not scored")
    return f" ({', '.join(parts)})"


def _measured_value(summary: MetricSummary, measured: str) -> float | None:
    if measured == "mean":
        return summary.mean
    if summary.ci is None:
        return None
    return summary.ci.low if measured == "ci_low" else summary.ci.high


def _context(summary: MetricSummary, measured: str) -> str:
    """What else a reader needs to judge the gate: the interval (or the mean) and n."""
    parts = []
    if measured != "mean" and summary.mean is not None:
        parts.append(f"mean {summary.mean:.3f}")
    if summary.ci is not None:
        parts.append(f"95% CI [{summary.ci.low:.3f}, {summary.ci.high:.3f}]")
    parts.append(f"n={summary.n}")
    if summary.errors:
        parts.append(f"{summary.errors} errors")
    return f" ({', '.join(parts)})"


def unknown_gate_metrics(gates: Iterable[Gate], score_names: Iterable[str]) -> list[str]:
    """The gates' metrics that are none of ``score_names`` (``NAME.passed`` is known
    when ``NAME`` is)."""
    known = set(score_names)
    return [
        g.metric
        for g in gates
        if g.metric not in known and g.metric.removesuffix(PASSED_SUFFIX) not in known
    ]

"""Quality gates: ``--fail-under rouge_l=0.4`` (and ``--fail-over lscore=3`` for a
metric where lower is better) checked on a run's mean, or with ``--gate ci`` on the
conservative bound of its 95% CI (``ci_low`` for a floor, ``ci_high`` for a ceiling),
so a CI pipeline fails only when the evidence says the metric is off. A gate on
``NAME.passed`` checks the share of samples passing ``NAME``'s per-sample threshold
instead (with ``--gate ci``, the bound of that share's interval), and a gate on
``NAME.calibrated`` the estimate of ``NAME`` calibrated to the labels people gave the
run (:mod:`ragjudge.analysis._calibrated`; with ``--gate ci``, the bound of its
interval); a score without labels fails such a gate. Each failed gate gives one line
saying why; ``ragjudge run`` then exits :data:`EXIT_GATE`."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from ragjudge._util.score_names import current_score_name
from ragjudge.analysis._outcome import EXIT_GATE
from ragjudge.errors import ConfigError
from ragjudge.stats import Interval, MetricSummary

if TYPE_CHECKING:  # the config is not read to show or gate a stored run
    from ragjudge.analysis._calibrated import CalibratedEstimate
    from ragjudge.analysis._passes import PassRate
    from ragjudge.config import EvalConfig

__all__ = [
    "CALIBRATED_SUFFIX",
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

CALIBRATED_SUFFIX = ".calibrated"
"""A gate on ``NAME.calibrated`` checks ``NAME``'s estimate calibrated to people's
labels, not the judge's mean."""

LABELLING_HINT = "label samples with `ragjudge view RUN --label` or `ragjudge labels import`"


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
    def on_calibrated(self) -> bool:
        """Whether the gate checks a score's estimate calibrated to people's labels."""
        return self.metric.endswith(CALIBRATED_SUFFIX)

    @property
    def score(self) -> str:
        """The score the gate is about (without ``.passed`` or ``.calibrated``)."""
        return self.metric.removesuffix(PASSED_SUFFIX).removesuffix(CALIBRATED_SUFFIX)

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
    ``pass_ci_low`` or ``pass_ci_high``; for a gate on a calibrated estimate
    ``calibrated``, ``calibrated_ci_low`` or ``calibrated_ci_high``."""
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
    calibrated: Mapping[str, CalibratedEstimate] | None = None,
) -> list[GateResult]:
    """Every gate checked against the run's per-metric summaries, a gate on
    ``NAME.passed`` against ``NAME``'s pass rate and one on ``NAME.calibrated``
    against the estimates ``calibrated`` to people's labels (a score literally named
    so is gated on its mean)."""
    by_name = {s.metric: s for s in summaries}
    rates = {r.metric: r for r in pass_rates}
    return [_check(gate, _reading(gate, by_name, rates, calibrated or {}, on)) for gate in gates]


def needs_calibrated(gates: Iterable[Gate]) -> bool:
    """Whether any gate checks a calibrated estimate (so the run's labels must be read)."""
    return any(gate.on_calibrated for gate in gates)


def _reading(
    gate: Gate,
    by_name: dict[str, MetricSummary],
    rates: dict[str, PassRate],
    calibrated: Mapping[str, CalibratedEstimate],
    on: GateOn,
) -> _Reading:
    if gate.metric in by_name:
        return _mean_reading(gate, by_name, on)
    if gate.on_pass_rate:
        return _pass_rate_reading(gate, rates, on)
    if gate.on_calibrated:
        return _calibrated_reading(gate, calibrated, on)
    return _mean_reading(gate, by_name, on)


def failed_gates(results: Iterable[GateResult]) -> list[GateResult]:
    """The gates that did not hold."""
    return [r for r in results if not r.passed]


@dataclass(frozen=True)
class _Reading:
    """What a gate is held against: the value (``None`` when it cannot be measured,
    with ``missing`` saying why), what it is, and what else a reader needs to see."""

    measured: str
    value: float | None
    missing: str = ""
    subject: str = ""
    context: str = ""


def _check(gate: Gate, reading: _Reading) -> GateResult:
    if reading.value is None:
        reason = f"gate failed ({gate.option}): {reading.missing}"
        return GateResult(gate, None, reading.measured, False, reason)
    value = reading.value
    passed = value >= gate.threshold if gate.floor else value <= gate.threshold
    relation = (">=" if passed else "<") if gate.floor else ("<=" if passed else ">")
    verb = "gate passed" if passed else "gate failed"
    reason = (
        f"{verb} ({gate.option}): {reading.subject} {value:.3f} {relation} "
        f"{gate.threshold:g}{reading.context}"
    )
    return GateResult(gate, value, reading.measured, passed, reason)


def _mean_reading(gate: Gate, by_name: dict[str, MetricSummary], on: GateOn) -> _Reading:
    measured = "mean" if on == "mean" else ("ci_low" if gate.floor else "ci_high")
    summary = by_name.get(gate.metric)
    if summary is None:
        known = ", ".join(by_name) or "none"
        return _Reading(
            measured, None, f"{gate.metric}: the run has no such score (its scores: {known})"
        )
    value = _measured(summary.mean, summary.ci, measured)
    if value is None:
        why = "no value" if summary.mean is None else "no confidence interval"
        missing = f"{gate.metric} has {why} ({summary.errors} errors, n={summary.n})"
        return _Reading(measured, None, missing)
    return _Reading(
        measured, value, subject=f"{gate.metric} {measured}", context=_context(summary, measured)
    )


def _pass_rate_reading(gate: Gate, rates: dict[str, PassRate], on: GateOn) -> _Reading:
    measured = "pass_rate" if on == "mean" else ("pass_ci_low" if gate.floor else "pass_ci_high")
    score = gate.metric.removesuffix(PASSED_SUFFIX)
    rate = rates.get(score)
    if rate is None:
        known = ", ".join(rates) or "none"
        missing = (
            f"{score} has no per-sample pass (give it a 'threshold'); scores with one: {known}"
        )
        return _Reading(measured, None, missing)
    value = _measured(rate.rate, rate.ci, measured)
    if value is None:
        why = "no scored sample" if rate.rate is None else "no confidence interval"
        return _Reading(measured, None, f"{gate.metric} has {why} ({rate.unscored} not scored)")
    return _Reading(
        measured,
        value,
        subject=f"share of samples with {score} {rate.condition}: {measured}",
        context=_rate_context(rate, measured),
    )


def _calibrated_reading(
    gate: Gate, calibrated: Mapping[str, CalibratedEstimate], on: GateOn
) -> _Reading:
    measured = (
        "calibrated"
        if on == "mean"
        else ("calibrated_ci_low" if gate.floor else "calibrated_ci_high")
    )
    found = calibrated.get(gate.score)
    if found is None:
        labelled = ", ".join(calibrated) or "none"
        missing = (
            f"{gate.score} has no labels drawn at random to calibrate it "
            f"(scores with labels: {labelled}); {LABELLING_HINT}"
        )
        return _Reading(measured, None, missing)
    value = _measured(found.best.value, found.best.ci, measured)
    if value is None:
        missing = f"{gate.score} has {found.used} label(s) drawn at random; an estimate needs 2"
        return _Reading(measured, None, missing)
    return _Reading(
        measured,
        value,
        subject=f"{gate.score} calibrated to {found.used} labels: {measured}",
        context=_calibrated_context(found, measured),
    )


def _measured(value: float | None, ci: Interval | None, measured: str) -> float | None:
    """What a gate checks: the value itself, or (``…ci_low`` / ``…ci_high``) an end of
    its interval; None when that is missing."""
    if not measured.endswith(("ci_low", "ci_high")):
        return value
    if ci is None or value is None:
        return None
    return ci.low if measured.endswith("ci_low") else ci.high


def _calibrated_context(found: CalibratedEstimate, measured: str) -> str:
    best = found.best
    parts = []
    if measured != "calibrated" and best.value is not None:
        parts.append(f"estimate {best.value:.3f}")
    if best.ci is not None:
        parts.append(f"95% CI [{best.ci.low:.3f}, {best.ci.high:.3f}]")
    if found.estimate.judge.value is not None:
        parts.append(f"judge mean {found.estimate.judge.value:.3f}")
    if found.targeted:
        parts.append(f"{found.targeted} targeted labels left out")
    return f" ({', '.join(parts)})"


def _rate_context(rate: PassRate, measured: str) -> str:
    parts = [f"{rate.passed} of {rate.passed + rate.failed} passed"]
    if measured != "pass_rate" and rate.rate is not None:
        parts.append(f"pass rate {rate.rate:.3f}")
    if rate.ci is not None:
        parts.append(f"95% CI [{rate.ci.low:.3f}, {rate.ci.high:.3f}]")
    if rate.unscored:
        parts.append(f"{rate.unscored} not scored")
    return f" ({', '.join(parts)})"


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
    """The gates' metrics that are none of ``score_names`` (``NAME.passed`` and
    ``NAME.calibrated`` are known when ``NAME`` is)."""
    known = set(score_names)
    return [g.metric for g in gates if g.metric not in known and g.score not in known]

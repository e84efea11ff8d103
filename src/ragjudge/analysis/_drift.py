"""Judge drift: how each judge's verdicts on the run's anchor samples (the config's
``anchors``, kept with the run) compare with the expected verdicts, and with the
verdicts of a reference run (the config's ``reference_run``).

A judge's anchors *moved* when fewer of them agree with the expected verdicts than in
the reference run, or when any anchor's verdict changed between the runs. Scores are
looked at one by one, so in a run with several judges (``faithfulness@mini``,
``faithfulness@big``) each judge is flagged on its own. Only stored runs are read.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ragjudge.schema import ScoreMeaning
from ragjudge.store._store import RunInfo, RunNotFound, Store

__all__ = ["PREVIOUS_RUN", "AnchorVerdict", "DriftReport", "JudgeAnchors", "judge_drift"]

PREVIOUS_RUN = "previous"
"""The ``reference_run`` naming the run stored just before the one analysed."""

Verdicts = dict[tuple[str, str], float | None]
"""(request id, score name) → the score's mean over the trials (None: no value)."""


@dataclass(frozen=True)
class AnchorVerdict:
    """One anchor under one score: the expected verdict, this run's and the reference
    run's (None: no value)."""

    request_id: str
    expected: float
    tolerance: float
    value: float | None
    reference_value: float | None = None
    in_reference: bool = False
    """Whether the reference run scored this sample under this score."""

    @property
    def agrees(self) -> bool:
        """Whether this run's verdict is the expected one."""
        return _close(self.value, self.expected, self.tolerance)

    @property
    def agreed_before(self) -> bool:
        """Whether the reference run's verdict was the expected one."""
        return self.in_reference and _close(self.reference_value, self.expected, self.tolerance)

    def changed(self) -> bool:
        """Whether the verdict differs from the reference run's (one the reference run
        did not give has nothing to differ from)."""
        if not self.in_reference:
            return False
        if self.value is None or self.reference_value is None:
            return (self.value is None) != (self.reference_value is None)
        return not _close(self.value, self.reference_value, self.tolerance)

    def to_dict(self) -> dict[str, Any]:
        """The JSON form."""
        return {
            "request_id": self.request_id,
            "expected": self.expected,
            "value": self.value,
            "reference_value": self.reference_value,
            "agrees": self.agrees,
        }


@dataclass(frozen=True)
class JudgeAnchors:
    """The anchors of one score (one metric under one judge)."""

    score: str
    metric: str
    judge: str | None
    verdicts: list[AnchorVerdict]
    compared: bool = False
    """Whether a reference run held this score, so there is something to compare."""

    @property
    def agreeing(self) -> int:
        """Anchors whose verdict is the expected one in this run."""
        return sum(v.agrees for v in self.verdicts)

    @property
    def reference_agreeing(self) -> int | None:
        """Anchors whose verdict was the expected one in the reference run."""
        return sum(v.agreed_before for v in self.verdicts) if self.compared else None

    @property
    def changed(self) -> list[str]:
        """The request ids of the anchors whose verdict changed since the reference run."""
        return [v.request_id for v in self.verdicts if v.changed()]

    @property
    def missed(self) -> list[str]:
        """The request ids of the anchors this run judged otherwise than expected."""
        return [v.request_id for v in self.verdicts if not v.agrees]

    @property
    def moved(self) -> bool:
        """Agreement with the expected verdicts dropped, or a verdict changed."""
        before = self.reference_agreeing
        return bool(self.changed) or (before is not None and self.agreeing < before)

    def to_dict(self) -> dict[str, Any]:
        """The JSON form."""
        return {
            "score": self.score,
            "metric": self.metric,
            "judge": self.judge,
            "anchors": len(self.verdicts),
            "agreeing": self.agreeing,
            "reference_agreeing": self.reference_agreeing,
            "changed": self.changed,
            "missed": self.missed,
            "moved": self.moved,
            "verdicts": [v.to_dict() for v in self.verdicts],
        }


@dataclass(frozen=True)
class DriftReport:
    """Every judge's anchors in one run, and the reference run they are compared with."""

    run_id: str
    reference_run: str | None
    scores: list[JudgeAnchors]
    unmatched: list[tuple[str, str]] = field(default_factory=list)
    """(request id, metric) of the anchors that name no score of the run."""
    reference_problem: str | None = None
    """Why the configured reference run could not be read, if it could not."""

    @property
    def moved(self) -> list[JudgeAnchors]:
        """The scores whose anchors moved since the reference run."""
        return [s for s in self.scores if s.moved]

    def to_dict(self) -> dict[str, Any]:
        """The JSON form (the ``anchors`` key of ``ragjudge show --json``)."""
        return {
            "reference_run": self.reference_run,
            "reference_problem": self.reference_problem,
            "moved": [s.score for s in self.moved],
            "scores": [s.to_dict() for s in self.scores],
            "unmatched": [{"request_id": r, "metric": m} for r, m in self.unmatched],
        }


def judge_drift(store: Store, run: RunInfo) -> DriftReport | None:
    """The anchors of ``run`` (None when its config names none), each score's verdicts
    on them, and the reference run's when the config names one."""
    rows = run.config.get("anchors")
    if not rows or not isinstance(rows, list):
        return None
    anchors = [_anchor(row) for row in rows if isinstance(row, dict)]
    ids = sorted({a.request_id for a in anchors})
    verdicts = _verdicts(store, run.run_id, ids)
    reference, problem = _reference_run(store, run)
    before = None if reference is None else _verdicts(store, reference.run_id, ids)
    meanings = dict(run.meanings or {})
    scores, unmatched = _anchored_scores(anchors, verdicts, meanings, before)
    return DriftReport(
        run_id=run.run_id,
        reference_run=None if reference is None else reference.run_id,
        scores=scores,
        unmatched=unmatched,
        reference_problem=problem,
    )


@dataclass(frozen=True)
class _Anchor:
    """An anchor as the run stored it (checked when the config was read:
    :class:`ragjudge.config._anchors.Anchor`)."""

    request_id: str
    metric: str
    expected: float
    tolerance: float


def _anchor(row: Mapping[str, Any]) -> _Anchor:
    return _Anchor(
        request_id=str(row["request_id"]),
        metric=str(row["metric"]),
        expected=float(row["expected"]),
        tolerance=float(row.get("tolerance") or 0.0),
    )


def _verdicts(store: Store, run_id: str, request_ids: Sequence[str]) -> Verdicts:
    values: dict[tuple[str, str], list[float | None]] = {}
    for request_id, _, name, value, error in store.scores_of_samples(run_id, request_ids):
        kept = None if error is not None or value is None else float(value)
        values.setdefault((request_id, name), []).append(kept)
    return {key: _mean_or_none(found) for key, found in values.items()}


def _mean_or_none(values: list[float | None]) -> float | None:
    """The mean over the trials; None when a trial has no value (a verdict that did
    not arrive is not the expected one)."""
    if any(v is None for v in values) or not values:
        return None
    return math.fsum(v for v in values if v is not None) / len(values)


def _reference_run(store: Store, run: RunInfo) -> tuple[RunInfo | None, str | None]:
    named = run.config.get("reference_run")
    if not named:
        return None, None
    if named == PREVIOUS_RUN:
        runs = store.runs()
        position = next(i for i, r in enumerate(runs) if r.run_id == run.run_id)
        if position == 0:
            return None, "reference_run: previous: no run was stored before this one"
        return runs[position - 1], None
    try:
        return store.run(str(named)), None
    except RunNotFound as exc:
        return None, f"reference_run: {exc}"


def _anchored_scores(
    anchors: Sequence[_Anchor],
    verdicts: Verdicts,
    meanings: Mapping[str, ScoreMeaning],
    before: Verdicts | None,
) -> tuple[list[JudgeAnchors], list[tuple[str, str]]]:
    names = sorted({name for _, name in verdicts} | set(meanings))
    by_score: dict[str, list[AnchorVerdict]] = {}
    unmatched: list[tuple[str, str]] = []
    for anchor in anchors:
        matched = [n for n in names if _covers(anchor.metric, n, meanings.get(n))]
        found = [n for n in matched if (anchor.request_id, n) in verdicts]
        if not found:
            unmatched.append((anchor.request_id, anchor.metric))
        for name in found:
            key = (anchor.request_id, name)
            by_score.setdefault(name, []).append(
                AnchorVerdict(
                    request_id=anchor.request_id,
                    expected=anchor.expected,
                    tolerance=anchor.tolerance,
                    value=verdicts[key],
                    reference_value=None if before is None else before.get(key),
                    in_reference=before is not None and key in before,
                )
            )
    scores = [
        JudgeAnchors(
            score=name,
            metric=_metric_of(name, meanings.get(name)),
            judge=_judge_of(name, meanings.get(name)),
            verdicts=found,
            compared=any(v.in_reference for v in found),
        )
        for name, found in by_score.items()
    ]
    return scores, unmatched


def _covers(metric: str, name: str, meaning: ScoreMeaning | None) -> bool:
    """Whether an anchor naming ``metric`` applies to the score ``name``."""
    return metric in (name, _metric_of(name, meaning))


def _metric_of(name: str, meaning: ScoreMeaning | None) -> str:
    """The score's name without its judge: ``faithfulness`` for ``faithfulness@big``."""
    if meaning is not None and meaning.metric:
        return meaning.metric
    return name.rpartition("@")[0] or name


def _judge_of(name: str, meaning: ScoreMeaning | None) -> str | None:
    if meaning is not None and meaning.judge:
        return meaning.judge
    return name.rpartition("@")[2] if "@" in name else None


def _close(value: float | None, expected: float, tolerance: float) -> bool:
    if value is None:
        return False
    return abs(value - expected) <= tolerance or math.isclose(value, expected, abs_tol=1e-9)

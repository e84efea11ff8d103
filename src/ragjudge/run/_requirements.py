"""The checks that every row carries what every metric needs, before any work: the
rows that lack a metric's inputs are named (or, with ``skip_invalid_rows``, left out
of that metric and reported)."""

from __future__ import annotations

from collections.abc import Sequence

from ragjudge.config import ConfigError
from ragjudge.errors import DataError
from ragjudge.metrics import Metric
from ragjudge.run._row_skipping import (
    lacking_rows,
    missing_everywhere,
    skip_rows_lacking_inputs,
)
from ragjudge.schema import Sample
from ragjudge.targets._targets import Target

__all__ = [
    "SKIP_HINT",
    "RequirementError",
    "check_by_key",
    "check_requirements",
    "skip_unscorable_rows",
]


_TARGET_FIELDS = ("response", "retrieved_context", "trace")


class RequirementError(DataError):
    """Rows lack fields that the chosen metrics need; raised before any work starts."""

    def __init__(self, problems: list[str], *, hint: bool = True) -> None:
        tail = [SKIP_HINT] if hint else []
        super().__init__("the evaluation set cannot be scored:\n" + "\n".join([*problems, *tail]))
        self.problems = problems


SKIP_HINT = (
    "(to score the other rows, set 'skip_invalid_rows: true' in the config, "
    "--skip-invalid-rows, or evaluate(skip_invalid_rows=True): the rows are then "
    "reported as skipped or not applicable)"
)


def skip_unscorable_rows(
    rows: list[Sample], metrics: Sequence[Metric], target: Target, notes: list[str]
) -> list[Sample]:
    """``skip_invalid_rows``: without a target, rows with no response are left out;
    each metric is not applicable to the rows lacking its other inputs. A metric that
    no row can feed, or a target it cannot work with, is still refused."""
    if not target.supplies_response:
        answered = {s.request_id for s in rows if s.has_field("response") or s.has_field("trace")}
        kept = [s for s in rows if s.request_id in answered]
        if dropped := [
            (i + 1, s.request_id) for i, s in enumerate(rows) if s.request_id not in answered
        ]:
            notes.append(f"skipped {len(dropped)} row(s) with no response: {_rows(dropped)}")
        if not kept:
            raise RequirementError(["no row holds a response (and no target gives one)"])
        rows = kept
    problems = [p for m in metrics if (p := m.check_target(target)) is not None]
    for metric in metrics:
        answers = target.supplies_response
        if nowhere := missing_everywhere(rows, metric, supplies_response=answers):
            problems += [f"metric {metric.name!r} needs {w}; no row has it" for w in nowhere]
            continue
        lacking = lacking_rows(rows, metric, supplies_response=answers)
        if lacking:
            positions = [
                (i + 1, s.request_id) for i, s in enumerate(rows) if s.request_id in lacking
            ]
            reasons = sorted(set(lacking.values()))
            note = (
                f"metric {metric.name!r} is not applicable to {len(lacking)} of {len(rows)} "
                f"rows ({'; '.join(reasons)}): {_rows(positions)}"
            )
            if note not in notes:  # said once for a metric under several judges
                notes.append(note)
            skip_rows_lacking_inputs(metric, lacking)
    if problems:
        raise RequirementError(list(dict.fromkeys(problems)), hint=False)
    return rows


def _rows(positions: Sequence[tuple[int, str]]) -> str:
    shown = ", ".join(f"row {row} ({rid})" for row, rid in positions[:10])
    return shown + (f" and {len(positions) - 10} more" if len(positions) > 10 else "")


def check_by_key(by: str | None, samples: Sequence[Sample]) -> None:
    """The ``by`` breakdown key (``lang`` or ``metadata.lang``) must be in some sample's
    metadata, so a misspelt key stops the run before any paid work."""
    if by is None:
        return
    key = by.removeprefix("metadata.")
    if not any(key in s.metadata for s in samples):
        known = sorted({k for s in samples for k in s.metadata})
        shown = ", ".join(known[:20]) or "none"
        raise ConfigError(f"by: no sample has the metadata key {key!r}; keys in the data: {shown}")


def check_requirements(
    samples: Sequence[Sample], metrics: Sequence[Metric], target: Target
) -> None:
    """Raise :class:`RequirementError` listing, per metric and field, the rows that
    lack what the metric needs."""
    problems: list[str] = []
    lacking: dict[str, list[tuple[int, str]]] = {}  # metrics share most requirements
    for metric in metrics:
        if (problem := metric.check_target(target)) is not None:
            problems.append(problem)
        for requirement in metric.requires:
            alternatives = requirement.split("|")
            if target.supplies_response and any(a in _TARGET_FIELDS for a in alternatives):
                continue
            missing = lacking.get(requirement)
            if missing is None:
                missing = lacking[requirement] = [
                    (i + 1, s.request_id)
                    for i, s in enumerate(samples)
                    if not any(s.has_field(a) for a in alternatives)
                ]
            if missing:
                shown = ", ".join(f"row {row} ({rid})" for row, rid in missing[:20])
                more = f" and {len(missing) - 20} more" if len(missing) > 20 else ""
                wanted = " or ".join(repr(a) for a in alternatives)
                problems.append(
                    f"metric {metric.name!r} needs {wanted}; missing in {len(missing)} of "
                    f"{len(samples)} rows: {shown}{more}"
                )
    if problems:
        # a metric under several judges (a judge matrix) lacks the same rows under each
        raise RequirementError(list(dict.fromkeys(problems)))

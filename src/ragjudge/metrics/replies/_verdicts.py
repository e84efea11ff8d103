"""The rule every reader applies once it has found the places where a verdict of its
form stands: units that reproduce the evaluated data are never candidates, the judge's
own verdicts must all agree, and anything else is a :class:`ParseError` (the judge is
asked again, then the result is an explicit error) — never a verdict taken from the
data."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

from ragjudge.metrics.replies._base import ParseError
from ragjudge.metrics.replies._data import DataIndex

V = TypeVar("V", bound=Hashable)

MAX_VERDICT_PLACES = 64
"""A reply holding more places of a verdict's form than this is not one verdict: it is
refused as soon as they are found (which bounds the work of reading it)."""


@dataclass(frozen=True)
class Candidate(Generic[V]):
    """A place of a reply that has a verdict's form: the verdict ``value`` (or the
    ``problem`` that keeps it from being one, e.g. ``4.5``), where it stands (``line``,
    ``start`` within the line) and the ``units`` compared with the data: its line and
    the clause that gives the verdict."""

    value: V | None
    line: int
    start: int
    units: tuple[str, ...]
    problem: str | None = None
    mention: bool = False
    """A verdict's form where no verdict stands (``… gets [RESULT] 5``): it cannot be
    the verdict, but one that disagrees with the verdict makes the reply ambiguous."""


@dataclass(frozen=True)
class Sorted(Generic[V]):
    """Candidates split into the judge's own and those that reproduce the data."""

    own: list[Candidate[V]]
    reproduced: list[Candidate[V]]


def too_many(candidates: Sequence[Candidate[V]]) -> None:
    """:class:`ParseError` when a reply holds more than :data:`MAX_VERDICT_PLACES`
    places of a verdict's form (checked as they are found, so such a reply costs no
    more than its first places)."""
    if len(candidates) > MAX_VERDICT_PLACES:
        raise ParseError(
            f"the reply holds more than {MAX_VERDICT_PLACES} verdicts; give exactly one"
        )


def sort_out(candidates: Sequence[Candidate[V]], data: DataIndex) -> Sorted[V]:
    """Which candidates are the judge's own (each distinct unit compared once)."""
    too_many(candidates)
    compared: dict[tuple[str, ...], bool] = {}
    own: list[Candidate[V]] = []
    reproduced: list[Candidate[V]] = []
    for candidate in candidates:
        copied = compared.get(candidate.units)
        if copied is None:
            copied = bool(data) and any(data.reproduces(unit) for unit in candidate.units)
            compared[candidate.units] = copied
        (reproduced if copied else own).append(candidate)
    return Sorted(own, reproduced)


def agreed(
    found: Sorted[V],
    *,
    describe: Callable[[V], str],
    missing: str,
    instead: str,
) -> Candidate[V]:
    """The judge's verdict: its own candidates, all giving the same value (the last one
    is returned, for the text around it). ``missing`` says what to write when there is
    none; ``instead`` names a wording of the verdict for when the only candidates
    repeat the data."""
    verdicts = [c for c in found.own if not c.mention]
    problems = [c.problem for c in verdicts if c.problem is not None]
    if problems:
        raise ParseError(problems[-1])
    values = list(dict.fromkeys(c.value for c in found.own if c.problem is None))
    if verdicts and len(values) > 1:
        shown = ", ".join(describe(v) for v in values if v is not None)
        raise ParseError(f"the reply gives different verdicts ({shown}); give exactly one")
    if verdicts:
        return verdicts[-1]
    if found.reproduced:
        shown = found.reproduced[-1].units[-1].strip()
        raise ParseError(
            f"the verdict {shown[:60]!r} repeats the evaluated text word for word, so it "
            f"cannot be told from a quotation of it; write your verdict as {instead}"
        )
    raise ParseError(missing)

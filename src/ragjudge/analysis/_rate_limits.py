"""Rate limiting made visible: how often the judge's endpoint answered 429, how long the
judge layer paused for it, how many attempts were retried — live for the progress line,
and stored with the run for its summary."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

from ragjudge.store._events import RATE_LIMITS

if TYPE_CHECKING:
    from ragjudge.models import JudgeModel
    from ragjudge.store._store import Store

__all__ = [
    "RateLimitEvents",
    "live_status",
    "record_rate_limits",
    "stored_rate_limits",
    "summary_line",
]


@dataclass
class RateLimitEvents:
    """The rate-limit events of the models that share one endpoint's limiter."""

    models: str
    rate_limited: int = 0
    """Attempts answered 429 (rate limited)."""
    pauses: int = 0
    """429 answers that paused every call to the endpoint (and slowed the pace)."""
    paused_seconds: float = 0.0
    tolerated: int = 0
    """429 answers taken as noise: only the refused call waited and retried."""
    retries: int = 0
    """Attempts made again after a failure (429, timeout, server error)."""

    @property
    def happened(self) -> bool:
        """Whether anything is worth saying."""
        return bool(self.rate_limited or self.pauses or self.tolerated or self.retries)

    def describe(self) -> str:
        """One line for the summary."""
        parts = [f"{self.rate_limited} answer{'s' if self.rate_limited != 1 else ''} 429"]
        if self.pauses:
            parts.append(f"paused {self.pauses}× for {self.paused_seconds:.0f} s in all")
        if self.tolerated:
            parts.append(f"{self.tolerated} 429s waited out by the refused call alone")
        parts.append(f"{self.retries} retr{'ies' if self.retries != 1 else 'y'}")
        return f"{self.models}: " + ", ".join(parts)

    def to_dict(self) -> dict[str, Any]:
        """JSON-able form."""
        return asdict(self)


def _by_limiter(models: Iterable[JudgeModel]) -> list[list[JudgeModel]]:
    """The models grouped by the limiter they share (one per endpoint), each once."""
    groups: dict[int, list[JudgeModel]] = {}
    for model in models:
        group = groups.setdefault(id(model.limiter), [])
        if all(m is not model for m in group):
            group.append(model)
    return list(groups.values())


def _events(group: list[JudgeModel]) -> RateLimitEvents:
    limiter = group[0].limiter.stats()
    totals = [m.usage.total() for m in group]
    return RateLimitEvents(
        models=", ".join(dict.fromkeys(m.spec for m in group)),
        rate_limited=max(sum(t.rate_limited for t in totals), limiter.pauses + limiter.tolerated),
        pauses=limiter.pauses,
        paused_seconds=limiter.paused_seconds,
        tolerated=limiter.tolerated,
        retries=sum(t.retries for t in totals),
    )


def live_status(models: Sequence[JudgeModel]) -> str:
    """The progress line's note: 429s so far, a pause under way, retries; empty while
    nothing happened."""
    notes = []
    for group in _by_limiter(models):
        events = _events(group)
        resume_in = group[0].limiter.stats().resume_in
        if not events.happened and not resume_in:
            continue
        text = f"429s: {events.rate_limited}"
        if resume_in > 0:
            text += f", paused, resumes in {resume_in:.0f} s"
        elif events.paused_seconds:
            text += f", paused {events.paused_seconds:.0f} s"
        notes.append(f"{text}, retries: {events.retries}")
    return "; ".join(notes)


def calls_done(models: Sequence[JudgeModel]) -> int:
    """Judge calls finished (cache hits and failures included) over the run's models."""
    return sum(m.usage.total().calls for m in {id(m): m for m in models}.values())


def calls_status(models: Sequence[JudgeModel], counted_by_the_bar: bool = False) -> str:
    """``judge calls: 42 done, 8 in flight`` over the run's models (``8 judge calls in
    flight`` when the bar counts them); empty before the first call."""
    unique = list({id(m): m for m in models}.values())
    done = calls_done(unique)
    limiters = {id(m.limiter): m.limiter for m in unique}  # models of one endpoint share one
    in_flight = sum(limiter.stats().in_flight for limiter in limiters.values())
    if not done and not in_flight:
        return ""
    if counted_by_the_bar:
        return f"{in_flight} judge calls in flight"
    return f"judge calls: {done} done, {in_flight} in flight"


def record_rate_limits(store: Store, run_id: str, models: Sequence[JudgeModel]) -> None:
    """Store this execution's rate-limit events with the run (when there were any)."""
    for group in _by_limiter(models):
        events = _events(group)
        if events.happened:
            store.add_run_event(run_id, RATE_LIMITS, events.to_dict())


def stored_rate_limits(store: Store, run_id: str) -> list[RateLimitEvents]:
    """The run's rate-limit events, summed over its executions (a resumed run has
    several) per group of models."""
    summed: dict[str, RateLimitEvents] = {}
    for data in store.run_events(run_id, RATE_LIMITS):
        events = RateLimitEvents(**data)
        total = summed.setdefault(events.models, RateLimitEvents(events.models))
        total.rate_limited += events.rate_limited
        total.pauses += events.pauses
        total.paused_seconds += events.paused_seconds
        total.tolerated += events.tolerated
        total.retries += events.retries
    return list(summed.values())


def summary_line(events: Sequence[RateLimitEvents]) -> str | None:
    """``rate limits: …`` for the summary, or None when nothing happened."""
    if not events:
        return None
    return "rate limits: " + "; ".join(e.describe() for e in events)

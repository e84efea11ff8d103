"""Permits handed out in blocks: the bookkeeping of a permit keeper that serves many
workers with one call per block instead of three per attempt.

A worker asks for ``want`` permits at once; :class:`BlockIssuer` gives it as many as
the run's :class:`~ragjudge.models.Limiter` allows right now — each permit is a
concurrency place plus a start reserved in the RPM/TPM budgets, so the window and the
cap hold across all workers exactly as for single permits. A block reaches at most
:data:`HORIZON` seconds into the future (with smooth pacing a block is a few permits;
against a high limit it is full), so a pause after a 429 finds little already handed
out. Workers send back what they used (places released, tokens settled) and what they
did not (permits returned) with their next request, and a worker silent for longer
than the lease loses its places (it died holding them).

Plain Python with an injectable clock: :class:`~ragjudge.run.ray._permits.PermitKeeper`
runs it inside the keeper actor.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from ragjudge.models import Limiter
from ragjudge.models._limits import Slot

__all__ = ["HORIZON", "LARGEST_BLOCK", "BlockIssuer", "Grant", "Usage"]

HORIZON = 0.25
"""Seconds ahead of now the last permit of a block may start."""

LARGEST_BLOCK = 64
"""Most permits in one block."""


@dataclass
class Grant:
    """A block of permits: ``(id, start)`` pairs, starts on the keeper's clock."""

    permits: list[tuple[int, float]]
    now: float
    """The keeper's clock when the block was made (to turn starts into delays)."""
    epoch: int
    """The limiter's pause epoch the starts belong to."""


@dataclass
class Usage:
    """What a worker reports back about permits it holds."""

    released: list[int] = field(default_factory=list)
    """Permits whose attempt ended (their places go back)."""
    settled: list[tuple[int, int]] = field(default_factory=list)
    """``(permit, tokens)``: tokens the permit's attempt really used."""
    unused: list[int] = field(default_factory=list)
    """Permits given back without an attempt (places back; starts stay spent)."""

    def __bool__(self) -> bool:
        return bool(self.released or self.settled or self.unused)


@dataclass
class _Holder:
    permits: dict[int, Slot] = field(default_factory=dict)
    """Permits handed out and not yet released or returned."""
    seen: float = 0.0


class BlockIssuer:
    """Hands out blocks of permits of one limiter to named holders (see the module
    docstring)."""

    def __init__(
        self,
        limiter: Limiter,
        lease: float,
        *,
        horizon: float = HORIZON,
        largest: int = LARGEST_BLOCK,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.limiter = limiter
        self.lease = lease
        """Seconds of silence after which a holder's places come back."""
        self.horizon = horizon
        self.largest = largest
        self._clock = clock
        self._holders: dict[str, _Holder] = {}
        self._next_id = 1
        self._settled: dict[int, Slot] = {}
        """Released permits whose tokens may still be settled (token entries)."""

    def report(self, holder: str, usage: Usage) -> int:
        """Take back what ``holder`` reports; return the places freed."""
        held = self._touch(holder)
        for permit, tokens in usage.settled:
            slot = held.permits.get(permit) or self._settled.pop(permit, None)
            if slot is not None:
                self.limiter.settle(slot, tokens)
        freed = used = 0
        for permit in usage.released:
            used += permit in held.permits
        self.limiter.count_granted(used)
        for permit in (*usage.released, *usage.unused):
            slot = held.permits.pop(permit, None)
            if slot is not None:
                self.limiter.release_place()
                freed += 1
                if slot.token_entries:
                    self._settled[permit] = slot
        self._forget_old_settlements()
        return freed

    def issue(self, holder: str, want: int, tokens: int) -> Grant | None:
        """Up to ``want`` permits for ``holder`` (at least one), or None when no
        concurrency place is free."""
        held = self._touch(holder)
        now = self._clock()
        permits: list[tuple[int, float]] = []
        while len(permits) < min(want, self.largest) and self.limiter.try_place():
            slot = self.limiter.reserve(tokens)
            permit, self._next_id = self._next_id, self._next_id + 1
            held.permits[permit] = slot
            permits.append((permit, slot.started))
            if slot.started > now + self.horizon:
                break  # the budget is spent for now: the next block starts later
        if not permits:
            return None
        return Grant(permits=permits, now=now, epoch=self.limiter.epoch)

    def reclaim_silent(self) -> int:
        """Give back the places of holders silent for longer than the lease (they
        died holding them); return how many."""
        now = self._clock()
        freed = 0
        for name, held in list(self._holders.items()):
            if now - held.seen > self.lease:
                for _ in held.permits:
                    self.limiter.release_place()
                freed += len(held.permits)
                del self._holders[name]
        return freed

    def held(self, holder: str) -> int:
        """Permits ``holder`` has out."""
        held = self._holders.get(holder)
        return len(held.permits) if held is not None else 0

    def touch(self, holder: str) -> None:
        """``holder`` is alive."""
        self._touch(holder)

    def _touch(self, holder: str) -> _Holder:
        held = self._holders.setdefault(holder, _Holder())
        held.seen = self._clock()
        return held

    def _forget_old_settlements(self) -> None:
        # tokens are settled within one attempt: keep the latest few thousand
        while len(self._settled) > 4 * self.largest * max(1, len(self._holders)):
            del self._settled[next(iter(self._settled))]

"""How many calls of one model may be in flight at once.

A fixed number when the settings give one (``max_concurrency: 8``). Otherwise
(``max_concurrency: auto``, the default) the number follows what the endpoint allows:

* **with ``rpm`` or ``tpm``**: Little's law — calls in flight = calls started per second
  × seconds each call takes. The rate is the limit's pace, the seconds are the
  latency observed so far (a moving average of each attempt's time under its permit),
  and a margin covers the spread of latencies; the starts a limit lets out at once (its
  burst, or the whole window's budget with ``burst: window``) are added, so a burst is
  never held back by the number of places. The tighter of the two limits decides;
* **without a limit**: :data:`UNLIMITED_START` places, one more each time a call ends
  while others wait for a place, up to :data:`AUTO_CEILING`.

Either way the :class:`~ragjudge.models._limits.Limiter` multiplies the number by its
pace, which halves on a rate-limit answer and climbs back over the recovery time: the
same back-off with and without configured limits.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

__all__ = [
    "AUTO_CEILING",
    "LATENCY_GUESS",
    "MIN_IN_FLIGHT",
    "UNLIMITED_START",
    "ConcurrencyTarget",
    "target_of",
]

AUTO_CEILING = 256
"""Calls in flight at most when the number adapts."""

UNLIMITED_START = 128
"""Calls in flight at first when no limit is known: enough for the calls a typical run
starts together (a few metrics of each of dozens of samples)."""

MIN_IN_FLIGHT = 4
"""Calls in flight at least under a limit, so one slow reply never stalls the pace."""

LATENCY_GUESS = 1.0
"""Seconds a call is assumed to take before any has ended."""

LATENCY_WEIGHT = 0.2
"""Weight of the newest attempt in the moving average of latencies."""

MARGIN = 1.5
"""Places kept per call Little's law asks for: replies vary in length, and a place
freed late must not leave the pace unused."""


@dataclass
class ConcurrencyTarget:
    """The number of places of one limiter (see the module docstring). Not locked:
    the limiter calls it under its own lock."""

    fixed: int | None = None
    """``max_concurrency`` when set; None adapts."""
    requests_per_second: float | None = None
    """The request limit's pace (None: no request limit)."""
    requests_at_once: float = 0.0
    """Requests the request limit lets start together."""
    tokens_per_second: float | None = None
    """The token limit's pace (None: no token limit)."""
    tokens_at_once: float = 0.0
    """Tokens the token limit lets start together."""
    latency: float = LATENCY_GUESS
    tokens_per_call: float | None = None
    grown: int = UNLIMITED_START

    def observe(self, seconds: float, tokens: int) -> None:
        """An attempt held its place for ``seconds`` and was sized at ``tokens``."""
        self.latency += LATENCY_WEIGHT * (max(0.0, seconds) - self.latency)
        if tokens > 0:
            if self.tokens_per_call is None:
                self.tokens_per_call = float(tokens)
            else:
                self.tokens_per_call += LATENCY_WEIGHT * (tokens - self.tokens_per_call)

    @property
    def grows(self) -> bool:
        """Whether the number grows with demand (it adapts and no limit is known)."""
        return self.fixed is None and self._unlimited

    def grow(self) -> None:
        """A call ended while others waited for a place: one place more."""
        self.grown = min(AUTO_CEILING, self.grown + 1)

    def value(self) -> int:
        """The places now."""
        if self.fixed is not None:
            return self.fixed
        if self._unlimited:
            return self.grown
        needed = [self._for_requests(), self._for_tokens()]
        known = [n for n in needed if n is not None]
        return max(MIN_IN_FLIGHT, min(AUTO_CEILING, *known))

    @property
    def _unlimited(self) -> bool:
        return self.requests_per_second is None and self.tokens_per_second is None

    def _for_requests(self) -> int | None:
        if self.requests_per_second is None:
            return None
        return _littles_law(self.requests_per_second, self.latency) + math.ceil(
            self.requests_at_once
        )

    def _for_tokens(self) -> int | None:
        if self.tokens_per_second is None:
            return None
        size = self.tokens_per_call
        if size is None or size <= 0:
            return AUTO_CEILING  # no call sized yet: the request limit (or the ceiling) decides
        calls = _littles_law(self.tokens_per_second / size, self.latency)
        return calls + math.floor(self.tokens_at_once / size)


def _littles_law(per_second: float, latency: float) -> int:
    return math.ceil(per_second * latency * MARGIN - 1e-9)  # no place for float noise


def target_of(
    fixed: int | None,
    rpm: int | None,
    tpm: int | None,
    window: float,
    headroom: float,
    burst: int | None,
) -> ConcurrencyTarget:
    """The places under these limits: ``fixed``, or following the limits' pace (and
    the burst they allow at once)."""
    target = ConcurrencyTarget(fixed=fixed)
    pace = headroom / window
    if rpm is not None:
        target.requests_per_second = rpm * pace
        target.requests_at_once = float(rpm * headroom if burst is None else burst)
    if tpm is not None:
        target.tokens_per_second = tpm * pace
        share = 1.0 if burst is None or rpm is None else burst / rpm
        target.tokens_at_once = tpm * headroom * share
    return target

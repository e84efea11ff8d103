"""One rate limit (requests or tokens per window) as a schedule of start times.

A :class:`Budget` keeps sliding windows of the starts it allowed, in plain numbers (no
clock, no lock: the :class:`~ragjudge.models._limits.Limiter` holds the lock and tells
the time):

* the **window** of the limit itself: the amounts started in any ``window / headroom``
  seconds, but at most ``window`` + a margin, never add up to more than ``limit`` —
  the provider's own rule, so a workload that fits the window goes out at once, and
  beyond it work starts as the oldest starts leave the window. The margin covers the
  delay between a start and its request reaching the provider: :data:`WINDOW_MARGIN`
  until the provider tells when its requests leave; from then on each start counts from
  when its request left, and the margin is :data:`SEND_JITTER` (:meth:`Budget.sent`);
* with a **burst** smaller than the limit, a short window as well: at most ``burst``
  units in any ``window * burst / limit`` seconds (stretched by the headroom, and
  by the margin when several units start together: :data:`BURST_MARGIN`, or
  :data:`SEND_JITTER` as above), for providers that enforce their per-minute limit
  over shorter periods (240 RPM counted as 4 per second). A burst of 1 request spaces
  requests evenly from the first;
* while the pace is lowered after rate-limit answers (``speed`` below 1), each start
  waits ``amount * interval / speed`` after the previous one: no bursts until the pace
  is back to full.

Any window of the provider's length then holds at most its limit even when requests
reach the provider a little later than they were allowed to start.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

__all__ = ["BURST_MARGIN", "SEND_JITTER", "WINDOW_MARGIN", "Budget", "Entry", "budgets"]

WINDOW_MARGIN = 0.1
"""The most seconds a limit's whole window is stretched by until the provider tells when
its requests leave: a start leaves it at most this long after the provider's window,
for requests that reach the provider with different delays (a new connection against
a warm one). The delays do not grow with the window's length, and the headroom's share
of a minute (1.9 s at 97 %) would hold a run that fills the window back by seconds."""

BURST_MARGIN = 0.1
"""Seconds added to a short window that lets several requests start together (until the
provider tells when its requests leave): they may reach the provider with delays that
differ by more than the headroom of a short period (new connections, TLS handshakes),
and the next group must not arrive before the last one of the previous group has left
the provider's window."""

SEND_JITTER = 0.025
"""The margin of a window whose starts count from when their requests left (once the
provider tells): what remains between leaving and arriving is the network's one-way
time, which varies far less between requests to one endpoint than a handshake."""


@dataclass
class Entry:
    """One start in a window: when, and how much of the limit it took."""

    time: float
    amount: float
    counted: bool = True
    """Whether the entry is still in its window's total."""


class _Window:
    """A sliding window holding at most ``limit`` units over ``span`` seconds."""

    def __init__(self, limit: float, span: float) -> None:
        self.limit = limit
        self.span = span
        self._log: deque[Entry] = deque()
        self._total = 0.0

    def frees(self, now: float, start: float, amount: float) -> float:
        """The earliest time from ``start`` on at which enough earlier starts have
        left the window for ``amount`` (``now``: the clock, for forgetting old starts)."""
        log = self._log
        while log and log[0].time <= now - self.span:
            self._forget(log.popleft())
        if not log:
            self._total = 0.0  # no float drift left over from settled amounts
        excess = self._total + min(amount, self.limit) - self.limit
        if excess <= 1e-9:
            return start
        freed = 0.0
        for entry in log:
            freed += entry.amount
            if freed >= excess - 1e-9:
                return max(start, entry.time + self.span)
        return max(start, log[-1].time + self.span)

    def move_later(self, entry: Entry, at: float) -> None:
        """Count ``entry`` from ``at`` (its request left then), keeping the log in
        time order. The entry is searched from the newest end: a request leaves soon
        after its start, so few starts came after it."""
        log = self._log
        index = len(log) - 1
        while index >= 0 and log[index] is not entry:
            index -= 1
        if index < 0 or at <= entry.time:
            return  # forgotten already, or dropped after a rate-limit answer
        entry.time = at
        while index + 1 < len(log) and log[index + 1].time < at:
            log[index], log[index + 1] = log[index + 1], entry
            index += 1

    def remove(self, entry: Entry) -> None:
        """Take back ``entry`` (searched from the newest end, where waiting starts are)."""
        log = self._log
        for index in range(len(log) - 1, -1, -1):
            if log[index] is entry:
                del log[index]
                self._forget(entry)
                return

    def add(self, start: float, amount: float) -> Entry:
        entry = Entry(start, amount)
        self._log.append(entry)
        self._total += amount
        return entry

    def settle(self, entry: Entry, used: float) -> None:
        if entry.counted:
            self._total += used - entry.amount
        entry.amount = used

    def drop_after(self, now: float) -> None:
        while self._log and self._log[-1].time > now:
            self._forget(self._log.pop())

    def _forget(self, entry: Entry) -> None:
        entry.counted = False
        self._total -= entry.amount


class Budget:
    """The schedule of one limit (see the module docstring)."""

    def __init__(
        self, limit: float, window: float, headroom: float, burst: float | None = None
    ) -> None:
        self.interval = window / (limit * headroom)
        """Seconds per unit at the limit's pace."""
        self._stamped = False
        """Whether a request has told when it left (the margins are then the jitter's)."""
        self._windows = [_Window(float(limit), min(window / headroom, window + WINDOW_MARGIN))]
        self._stamped_spans = [min(window / headroom, window + SEND_JITTER)]
        if burst is not None and burst < limit:
            short = burst * self.interval
            margins = (BURST_MARGIN, SEND_JITTER) if burst > 1 else (0.0, 0.0)
            self._windows.append(_Window(float(burst), short + margins[0]))
            self._stamped_spans.append(short + margins[1])
        self._next_paced = 0.0

    def sent(self, entries: tuple[Entry, ...], at: float) -> None:
        """The request of a start (its ``entries``, from :meth:`take`) left at ``at``:
        the start counts from then, and the windows' margins shrink to
        :data:`SEND_JITTER` (the first time). A start whose request never tells keeps
        its start time; one that never left never reached the provider."""
        if not entries:
            return
        if not self._stamped:
            self._stamped = True
            for window, span in zip(self._windows, self._stamped_spans, strict=True):
                window.span = span
        for window, entry in zip(self._windows, entries, strict=True):
            window.move_later(entry, at)

    @property
    def narrowing(self) -> float:
        """Seconds by which a start taken before any request told when it left may come
        sooner once one has (the margins shrink to :data:`SEND_JITTER`; the entries
        only move later); 0 once one has."""
        if self._stamped:
            return 0.0
        spans = zip(self._windows, self._stamped_spans, strict=True)
        return max(window.span - stamped for window, stamped in spans)

    def release(self, entries: tuple[Entry, ...]) -> None:
        """Take back a start not used yet (its ``entries``, from :meth:`take`)."""
        for window, entry in zip(self._windows, entries, strict=True):
            window.remove(entry)

    def earliest(self, now: float, start: float, amount: float, *, paced: bool) -> float:
        """The earliest time from ``start`` on at which ``amount`` may start (``now``:
        the clock; ``paced`` while the pace is lowered)."""
        if paced:
            start = max(start, self._next_paced)
        for window in self._windows:
            start = window.frees(now, start, amount)
        return start

    def take(self, start: float, amount: float, speed: float) -> tuple[Entry, ...]:
        """Start ``amount`` at ``start`` (not earlier than :meth:`earliest` said)."""
        self._next_paced = start + amount * self.interval / speed
        return tuple(window.add(start, amount) for window in self._windows)

    def settle(self, entries: tuple[Entry, ...], used: float) -> None:
        """Correct a start's amount once the real one is known (tokens)."""
        for window, entry in zip(self._windows, entries, strict=True):
            window.settle(entry, used)

    def restart(self, now: float, resume: float) -> None:
        """After a rate-limit answer: forget the starts reserved after ``now`` (their
        requests take new ones) and let the next one start at ``resume``."""
        for window in self._windows:
            window.drop_after(now)
        self._next_paced = resume


def budgets(
    rpm: int | None, tpm: int | None, window: float, headroom: float, burst: int | None
) -> tuple[Budget | None, Budget | None]:
    """The request and token budgets of these limits (None where there is no limit); a
    ``burst`` of requests allows the same share of ``tpm`` at once."""
    requests = None if rpm is None else Budget(rpm, window, headroom, burst)
    tokens = None
    if tpm is not None:
        share = None if burst is None or rpm is None else tpm * burst / rpm
        tokens = Budget(tpm, window, headroom, share)
    return requests, tokens

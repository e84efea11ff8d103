"""Faults of the test server: the :class:`FaultPlan` of per-request probabilities and
limits, and the :class:`FaultInjector` that applies it request by request (queued
faults, bursts of 429s, sliding RPM/TPM windows, latency and random faults), and the
ways a judge writing free text spoils its reply (:data:`GARBLINGS`)."""

from __future__ import annotations

import asyncio
import math
import random
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal, Self, get_args

from pydantic import BaseModel, ConfigDict, Field, model_validator
from starlette.responses import Response

from ragjudge.testing._stats import ServerStats
from ragjudge.testing._wire import ceil_seconds, error_response, rate_limited

WINDOW_SECONDS = 60.0
FaultKind = Literal["429", "500", "timeout", "truncated", "malformed", "garbled"]
FAULT_KINDS: tuple[str, ...] = get_args(FaultKind)
GARBLINGS = ("cut short", "chatty", "fenced", "single quotes", "repeated")
"""How a garbled reply is spoiled, one drawn per reply: cut off halfway (the token
limit), wrapped in pleasantries, inside a markdown code fence, its double quotes
turned single, or written twice."""


class FaultPlan(BaseModel):
    """Per-request fault probabilities and limits; random draws use a ``seed``-ed RNG.

    The five rates are exclusive outcomes of one draw, so their sum must not exceed 1.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    latency: tuple[float, float] = (0.0, 0.0)
    """Uniform range of seconds awaited before answering."""
    rpm_limit: int | None = Field(default=None, ge=1)
    """Accepted requests per sliding 60 s window; over it → 429 with ``Retry-After``
    (seconds until a slot frees, rounded up)."""
    tpm_limit: int | None = Field(default=None, ge=1)
    """Estimated tokens (prompt + reply) per sliding 60 s window; a request whose prompt
    would overflow it → 429; a prompt larger than the whole limit → 400."""
    limit_period: float = Field(default=WINDOW_SECONDS, gt=0, le=WINDOW_SECONDS)
    """Seconds over which the two limits are enforced. 60 counts them per sliding
    minute; a shorter period enforces the same share of them per sliding period, as
    providers that quantise their per-minute limits do: with ``1.0`` a limit of 240
    RPM allows 4 requests in any second (at least one per period), and ``Retry-After``
    says the exact wait in fractions of a second."""
    error_500_rate: float = Field(default=0.0, ge=0.0, le=1.0)
    burst_429_every: int | None = Field(default=None, ge=1)
    """Every Nth request (counted since the plan was set) starts a burst of 429s …"""
    burst_429_length: int = Field(default=0, ge=0)
    """… of this many requests, each with ``Retry-After: 1``."""
    timeout_rate: float = Field(default=0.0, ge=0.0, le=1.0)
    """Hang for ``hang_seconds`` (or until the server stops), then drop the connection."""
    hang_seconds: float = Field(default=30.0, ge=0.0)
    truncated_rate: float = Field(default=0.0, ge=0.0, le=1.0)
    """Answer 200 with the JSON body cut off halfway."""
    malformed_rate: float = Field(default=0.0, ge=0.0, le=1.0)
    """Answer 200 with a body that is not JSON."""
    garbled_rate: float = Field(default=0.0, ge=0.0, le=1.0)
    """Answer a chat completion with its reply text spoiled in one of the
    :data:`GARBLINGS` ways, as judges writing free text spoil theirs. A reply kept to a
    schema (the request carries ``response_format: json_schema``) cannot be spoiled so
    and is answered in full; embeddings are always answered in full."""
    seed: int = 0

    @model_validator(mode="after")
    def _check_consistency(self) -> Self:
        low, high = self.latency
        if low < 0 or high < low:
            raise ValueError("latency must be (low, high) with 0 <= low <= high")
        total = self.error_500_rate + self.timeout_rate + self.truncated_rate
        if total + self.malformed_rate + self.garbled_rate > 1.0:
            raise ValueError("the fault rates must sum to at most 1")
        return self


@dataclass
class QueuedFault:
    """A fault queued with :meth:`FaultInjector.queue` for one coming request."""

    kind: FaultKind
    retry_after: float | None


class FaultInjector:
    """Applies a :class:`FaultPlan` to the requests of one server.

    It holds the plan in force with its seeded RNG, the queued faults, the 429-burst
    count and the sliding RPM/TPM windows. The plan and the queue may be changed from
    other threads while the server runs. ``clock`` tells the time the windows are
    counted in (seconds; :func:`time.monotonic` unless a test moves its own).
    """

    def __init__(self, plan: FaultPlan, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._lock = threading.Lock()
        self._queued: deque[QueuedFault] = deque()
        self._accepted_times: deque[float] = deque()
        self._token_window: deque[tuple[float, int]] = deque()
        self.set_plan(plan)

    @property
    def plan(self) -> FaultPlan:
        """The fault plan in force."""
        return self._plan

    def set_plan(self, plan: FaultPlan) -> None:
        """Put ``plan`` in force: the RNG is re-seeded and the 429-burst count restarts;
        the RPM/TPM windows keep the traffic already accepted."""
        with self._lock:
            self._plan = plan
            self._rng = random.Random(plan.seed)
            self._burst_count = 0
            self._burst_remaining = 0

    def queue(self, kind: FaultKind, count: int, retry_after: float | None) -> None:
        """Serve ``kind`` to the next ``count`` requests, before any limit."""
        with self._lock:
            for _ in range(count):
                self._queued.append(QueuedFault(kind, retry_after))

    def pop_queued(self) -> QueuedFault | None:
        """The next queued fault, if any."""
        with self._lock:
            return self._queued.popleft() if self._queued else None

    def in_burst(self) -> bool:
        """Count one request; whether it falls in a burst of 429s."""
        plan = self._plan
        with self._lock:
            self._burst_count += 1
            if plan.burst_429_every and self._burst_count % plan.burst_429_every == 0:
                self._burst_remaining = max(self._burst_remaining, plan.burst_429_length)
            if self._burst_remaining > 0:
                self._burst_remaining -= 1
                return True
            return False

    def check_limits(self, prompt_tokens: int, stats: ServerStats) -> Response | None:
        """Admit the request into the RPM window, or answer 429 (or 400 if it can never fit)."""
        plan = self._plan
        period = plan.limit_period
        now = self._clock()
        with self._lock:
            _expire(self._accepted_times, now, period)
            while self._token_window and self._token_window[0][0] <= now - period:
                self._token_window.popleft()
            rpm = _per_period(plan.rpm_limit, period)
            if rpm is not None and len(self._accepted_times) >= rpm:
                stats.rate_limited_by_rpm += 1
                wait = self._accepted_times[0] + period - now
                return rate_limited("requests per minute limit reached", _wait(wait, period))
            tpm = _per_period(plan.tpm_limit, period)
            if tpm is not None:
                refusal = self._check_tpm(tpm, prompt_tokens, now, period, stats)
                if refusal is not None:
                    return refusal
            self._accepted_times.append(now)
        return None

    def _check_tpm(
        self, limit: int, prompt_tokens: int, now: float, period: float, stats: ServerStats
    ) -> Response | None:
        if prompt_tokens > limit:
            return error_response(
                400, f"request of ~{prompt_tokens} tokens exceeds the {limit} TPM limit", "tokens"
            )
        used = sum(tokens for _, tokens in self._token_window)
        if used + prompt_tokens <= limit:
            return None
        stats.rate_limited_by_tpm += 1
        freed = 0
        wait = period
        for stamp, tokens in self._token_window:
            freed += tokens
            if used - freed + prompt_tokens <= limit:
                wait = stamp + period - now
                break
        return rate_limited("tokens per minute limit reached", _wait(wait, period))

    def charge_tokens(self, tokens: int) -> None:
        """Count the tokens of a reply sent into the TPM window."""
        with self._lock:
            self._token_window.append((self._clock(), tokens))

    async def sleep_latency(self) -> None:
        """Await the plan's latency, drawn from its range."""
        low, high = self._plan.latency
        if high <= 0:
            return
        with self._lock:
            delay = self._rng.uniform(low, high)
        await asyncio.sleep(delay)

    def draw_fault(self) -> FaultKind | None:
        """A random fault by the plan's rates, or None for a normal reply."""
        plan = self._plan
        with self._lock:
            draw = self._rng.random()
        bounds: list[tuple[FaultKind, float]] = [
            ("500", plan.error_500_rate),
            ("timeout", plan.timeout_rate),
            ("truncated", plan.truncated_rate),
            ("malformed", plan.malformed_rate),
            ("garbled", plan.garbled_rate),
        ]
        cumulative = 0.0
        for kind, rate in bounds:
            cumulative += rate
            if draw < cumulative:
                return kind
        return None

    def garble(self, text: str) -> str:
        """``text`` spoiled in one of the :data:`GARBLINGS` ways, drawn."""
        with self._lock:
            how = self._rng.choice(GARBLINGS)
        return garbled(text, how)


def garbled(text: str, how: str) -> str:
    """``text`` spoiled the way ``how`` (one of :data:`GARBLINGS`) says."""
    if how == "cut short":
        return text[: len(text) // 2]
    if how == "chatty":
        return f"Sure! Here is my assessment.\n{text}\nI hope this helps."
    if how == "fenced":
        return f"```json\n{text}\n```"
    if how == "single quotes":
        return text.replace('"', "'")
    if how == "repeated":
        return f"{text}\n\nTo restate my answer:\n{text}"
    raise ValueError(f"how must be one of {', '.join(GARBLINGS)}, not {how!r}")


def _expire(stamps: deque[float], now: float, period: float) -> None:
    while stamps and stamps[0] <= now - period:
        stamps.popleft()


def _per_period(per_minute: int | None, period: float) -> int | None:
    """A per-minute limit's share of one enforcement period (at least 1)."""
    if per_minute is None:
        return None
    return max(1, int(per_minute * period / WINDOW_SECONDS))


def _wait(seconds: float, period: float) -> float:
    """The ``Retry-After`` of a refusal: whole seconds (at least 1) for a per-minute
    limit, the exact wait to the millisecond for a shorter period."""
    if period >= WINDOW_SECONDS:
        return ceil_seconds(seconds)
    return max(0.001, math.ceil(seconds * 1000) / 1000)

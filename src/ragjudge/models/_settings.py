"""The settings of one judge model: limits, retries, timeouts and caching."""

from __future__ import annotations

import math
from typing import Annotated, Literal, Self

from pydantic import BaseModel, ConfigDict, Field, model_validator

from ragjudge.models._structured import StructuredMode

SMOOTH_SECONDS = 1.0
"""Without ``burst``, at most this many seconds' share of ``rpm`` starts at once."""

DEFAULT_MAX_REPLY_BYTES = 4 * 1024 * 1024
"""Bytes of one reply read at most, a judge's as a target's."""


class ModelSettings(BaseModel):
    """Limits, retries, timeouts and caching of one judge model."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    max_concurrency: Annotated[int, Field(ge=1)] | Literal["auto"] = "auto"
    """Judge calls in flight at once. ``auto`` (the default) follows what the endpoint
    allows: under ``rpm``/``tpm``, the calls the limit's pace and the latency observed
    keep busy (Little's law), plus the limit's burst, up to 256; without a limit, 128 at
    first, growing while calls wait, up to 256. Both shrink on rate-limit answers and
    climb back. A number fixes it (a server that answers a few requests at a time, such
    as a local one, is best told how many)."""
    rpm: int | None = Field(default=None, gt=0)
    """Requests per ``rate_window``; ``None`` for no limit."""
    tpm: int | None = Field(default=None, gt=0)
    """Tokens (prompt + expected output) per ``rate_window``; ``None`` for no limit."""
    burst: Annotated[int, Field(ge=1)] | Literal["window"] | None = None
    """Requests that may start at once under ``rpm``: at most ``burst`` in any
    ``rate_window * burst / rpm`` seconds (and the same share of ``tpm``). ``None``
    (smooth pacing): one second's share of ``rpm`` (``rpm: 600`` starts at most 10 in
    any second), right for providers that enforce their per-minute limit over shorter
    periods as well. ``window``: the whole window's budget may go out at once, so a
    workload that fits one window starts at once (for providers that count over the
    window only); ``1`` spaces every request evenly."""
    max_retries: int = Field(default=4, ge=0)
    """Retries after the first attempt: at most ``max_retries + 1`` attempts per call."""
    backoff_base: float = Field(default=0.5, ge=0)
    """Seconds a retry waits at most (jittered), doubled for each later one; the first
    two retries of a fault that is not a rate limit wait less (``quick_retry_delay``)."""
    backoff_max: float = Field(default=30.0, ge=0)
    quick_retry_delay: float = Field(default=0.1, ge=0)
    """The first retry of an attempt that failed for another reason than a rate limit (a
    500, a dropped connection, a timeout) goes at once, and the second waits at most
    this many seconds (jittered): such faults are most often passing faults of one
    server that do not come twice in a row, and a run's slowest sample should not wait
    for them. A third fault in a row backs off from ``backoff_base``; a rate-limit answer
    waits at least its ``Retry-After``."""
    timeout: float = Field(default=60.0, gt=0)
    """Seconds one attempt may take."""
    reask_limit: int = Field(default=2, ge=0)
    max_reply_chars: int = Field(default=100_000, ge=1)
    """The longest reply (in characters) that is read for a verdict. A longer one is a
    parse error: the judge is asked again for a shorter reply, then the result is an
    explicit error. Reading is linear in the reply's length; this bounds how long one
    reading can hold up the run."""
    cache: bool = True
    """``False`` bypasses the response cache (``--no-cache``)."""
    rate_window: float = Field(default=60.0, gt=0)
    """Seconds that ``rpm`` and ``tpm`` count over (shorter in tests)."""
    max_retry_after: float = Field(default=120.0, ge=0)
    """A ``Retry-After`` longer than this fails the call instead of waiting."""
    expected_output_tokens: int = Field(default=256, ge=0)
    """Output tokens assumed for TPM pacing when ``max_tokens`` is not set."""
    max_reply_bytes: int = Field(default=DEFAULT_MAX_REPLY_BYTES, gt=0)
    """Bytes of one reply read at most (4 MiB, as for a target's reply): an HTTP body is
    counted after decompression as it arrives and reading stops at the cap, so a reply
    that is larger, or never ends, is an error of its call (``too_large``, not retried)
    and is never stored or parsed. An embeddings reply may hold 64 KiB more per text."""
    in_flight_grace: float = Field(default=15.0, ge=0)
    """When a run is interrupted, seconds to keep waiting for replies to requests
    already sent (they are paid for): the replies are cached and recorded, so a resumed
    run does not pay for them again."""

    structured: StructuredMode = "auto"
    """Whether a judge call whose reply is a JSON document sends the reply's JSON schema
    (``response_format`` of type ``json_schema``): ``auto`` sends it and, when the
    endpoint refuses it, asks again for a text reply — once refused, every later call
    of the run to that endpoint is a text call, and the run's notes say so; ``always``
    sends it and a refusal fails the call; ``never`` asks for text replies only."""

    @property
    def fixed_concurrency(self) -> int | None:
        """``max_concurrency`` as the limiter takes it: None when it adapts."""
        return None if self.max_concurrency == "auto" else self.max_concurrency

    @property
    def start_burst(self) -> int | None:
        """``burst`` as the limiter takes it: requests that may start at once, ``None``
        for the whole window's budget."""
        if self.burst == "window" or self.rpm is None:
            return None
        if self.burst is None:
            return max(1, math.ceil(self.rpm * SMOOTH_SECONDS / self.rate_window))
        return self.burst

    @model_validator(mode="after")
    def _burst_needs_rpm(self) -> Self:
        if self.burst is not None and self.rpm is None:
            raise ValueError("burst counts requests under rpm: set rpm too")
        return self

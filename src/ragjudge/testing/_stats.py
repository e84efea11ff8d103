"""Counters of what the test server received and how it answered."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class ServerStats:
    """Counters of what the server received and how it answered."""

    requests: int = 0
    """POST requests received (valid bodies), whatever their outcome."""
    completions: int = 0
    """Chat completions answered in full (not truncated or malformed)."""
    embeddings: int = 0
    """Embedding requests answered in full."""
    status_counts: dict[int, int] = field(default_factory=dict)
    """HTTP status → count of responses sent (dropped connections have none)."""
    rate_limited_by_rpm: int = 0
    rate_limited_by_tpm: int = 0
    burst_429s: int = 0
    timeouts: int = 0
    truncated: int = 0
    malformed: int = 0
    garbled: int = 0
    """Chat replies whose text was spoiled (the ``garbled`` fault)."""
    schema_replies: int = 0
    """Chat replies kept to the reply schema their request carried."""
    schema_refusals: int = 0
    """Requests answered 400 for their reply schema (``refuse_schemas``)."""
    in_flight: int = 0
    """POST requests being handled right now."""
    max_in_flight: int = 0
    """The most POST requests handled at the same time."""
    request_times: list[float] = field(default_factory=list)
    """``time.monotonic()`` at the arrival of each POST request."""

    def count_status(self, status: int) -> None:
        """Count one response with this HTTP status."""
        self.status_counts[status] = self.status_counts.get(status, 0) + 1

"""What a metric raises when a sample cannot be scored or the metric does not apply
to it, and the reads of a sample's inputs that raise them."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ragjudge.errors import MetricError
from ragjudge.schema import Output, Sample

__all__ = ["MetricFailure", "NotApplicable", "references", "require_response"]


class MetricFailure(MetricError):
    """Raised inside a metric when a sample cannot be scored: every score of the metric
    becomes an explicit error with this message (and ``details``, call ids), never a
    default value."""

    def __init__(
        self,
        message: str,
        *,
        details: Mapping[str, Any] | None = None,
        call_ids: Sequence[int] = (),
    ) -> None:
        super().__init__(message)
        self.message = message
        self.details = dict(details or {})
        self.call_ids = list(call_ids)


class NotApplicable(MetricError):
    """Raised inside a metric when it does not apply to a sample (a row without the input
    it judges): every score of the metric is stored as not applicable, with the reason —
    neither a value nor an error."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def require_response(output: Output) -> str:
    """The target's response, or :class:`MetricFailure` saying why there is none. An
    empty string is a response (a legitimate, wrong answer)."""
    if output.response is None:
        raise MetricFailure(f"target failed: {output.error}" if output.error else "no response")
    return output.response


def references(sample: Sample) -> list[tuple[int, str]]:
    """The non-blank reference answers with their positions, or :class:`MetricFailure`
    when there are none."""
    found = [(i, ref) for i, ref in enumerate(sample.references) if ref.strip()]
    if not found:
        raise MetricFailure("every reference answer is empty")
    return found

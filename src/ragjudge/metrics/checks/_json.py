"""What ``is_json`` and ``json_schema`` share: reading the response as one JSON
document."""

from __future__ import annotations

import json
from typing import Any

from ragjudge.metrics._base import MetricFailure, MetricOptions
from ragjudge.metrics.checks._shared import strip_fence

__all__ = ["FenceOptions", "NotJson", "parse_response"]


class FenceOptions(MetricOptions):
    """Whether a Markdown code fence around the JSON (```json … ```) is taken off
    first."""

    strip_fence: bool = False


class NotJson(MetricFailure):
    """The response is not one JSON document; the message says where it breaks (the
    checks catch it and score a fail; left uncaught it is the sample's error)."""


def parse_response(response: str, options: FenceOptions) -> Any:
    """The JSON document the response holds, or :class:`NotJson`."""
    text = strip_fence(response) if options.strip_fence else response
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise NotJson(f"not JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}") from None

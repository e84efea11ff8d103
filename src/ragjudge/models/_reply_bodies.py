"""Reading the JSON bodies a provider's HTTP API answers with: one object, or a batch
result file of JSON lines keyed by ``custom_id``."""

from __future__ import annotations

import json
from typing import Any

from ragjudge.models._types import ModelError

__all__ = ["custom_id_lines", "json_object"]


def json_object(content: bytes, what: str) -> dict[str, Any]:
    """A reply body that must be a JSON object; a ``bad_response`` error naming
    ``what`` was asked otherwise."""
    try:
        body = json.loads(content)
    except ValueError as exc:
        raise ModelError(f"{what}: the reply is not JSON ({exc})", kind="bad_response") from None
    if not isinstance(body, dict):
        raise ModelError(f"{what}: the reply is not a JSON object", kind="bad_response")
    return body


def custom_id_lines(content: bytes) -> list[dict[str, Any]]:
    """The lines of a batch result file that are JSON objects with a ``custom_id``;
    other lines are left out (their calls then count as missing from the batch)."""
    lines: list[dict[str, Any]] = []
    for raw in content.decode("utf-8", errors="replace").splitlines():
        try:
            line = json.loads(raw)
        except ValueError:
            continue
        if isinstance(line, dict) and isinstance(line.get("custom_id"), str):
            lines.append(line)
    return lines

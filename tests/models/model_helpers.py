"""Helpers shared by the model-layer tests: an in-memory call recorder and a one-message
prompt."""

from __future__ import annotations

import json

from ragjudge.models import JudgeCallRecord


class MemoryRecorder:
    """Keeps records in a list and numbers them from 1."""

    def __init__(self) -> None:
        self.records: list[JudgeCallRecord] = []

    async def __call__(self, record: JudgeCallRecord) -> int:
        self.records.append(record)
        return len(self.records)


def user(text: str) -> list[dict[str, str]]:
    """A prompt of one user message."""
    return [{"role": "user", "content": text}]


def result_score(text: str) -> tuple[int, str]:
    """A minimal reply parser for the layer's own tests: the integer after the last
    ``[RESULT]`` and the text before it; ``ValueError`` without a marker or number."""
    before, marker, after = text.rpartition("[RESULT]")
    if not marker:
        raise ValueError("no [RESULT] marker in the judge output")
    number = after.strip().rstrip(".")
    if not number.isdigit():
        raise ValueError(f"the [RESULT] marker is followed by {number[:20]!r}, not an integer")
    return int(number), before.strip()


def json_object(text: str) -> dict[str, object]:
    """A minimal JSON-object reply parser for the layer's own tests."""
    try:
        value = json.loads(text)
    except ValueError:
        raise ValueError("no complete JSON object in the judge output") from None
    if not isinstance(value, dict):
        raise ValueError("expected a JSON object")
    return value

"""Helpers shared by the model-layer tests: an in-memory call recorder and a one-message
prompt."""

from __future__ import annotations

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

"""What a batch service and the batch ledger share: the intent recorded before a batch
is created (so a process killed between the provider's reply and the record finds its
batch instead of paying for it twice), and the results of an ended batch."""

from __future__ import annotations

import secrets
import time
from dataclasses import dataclass

from ragjudge.models._types import Generation, ModelError

BatchResults = dict[str, Generation | ModelError]
"""Each call of an ended batch by ``custom_id``: its reply, or why it has none; the
key ``""`` holds the error of a call the batch has no line for."""

INTENT_PREFIX = "intent:"


@dataclass(frozen=True)
class Intent:
    """A batch about to be created: a unique key, when (Unix seconds) and how many calls."""

    key: str
    created: float
    count: int

    @classmethod
    def new(cls, count: int) -> Intent:
        """A fresh intent for a batch of ``count`` calls."""
        return cls(secrets.token_hex(8), time.time(), count)

    @property
    def mark(self) -> str:
        """The intent as the ledger keeps it in place of a batch id."""
        return f"{INTENT_PREFIX}{self.created:.3f}:{self.count}:{self.key}"

    @classmethod
    def from_mark(cls, mark: str) -> Intent | None:
        """The intent a ledger mark holds; None for a real batch id."""
        if not mark.startswith(INTENT_PREFIX):
            return None
        created, count, key = mark[len(INTENT_PREFIX) :].split(":", 2)
        return cls(key, float(created), int(count))


def missing_reply(batch_id: str, status: str) -> ModelError:
    """The error of a call an ended batch has no line for (expired, cancelled, failed)."""
    return ModelError(f"batch {batch_id} ended {status} without this call's reply", kind="server")

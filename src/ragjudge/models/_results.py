"""What a judge call returns or raises: a parsed reply, the error after the last
retry, and what the retry loop produced; and what a metric asks of a judge."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypeVar

from ragjudge.models._types import (
    ChatMessage,
    EmbeddingResult,
    GenerateConfig,
    Generation,
    JudgeCallRecord,
    ModelError,
)

T = TypeVar("T")
R = TypeVar("R")


@dataclass
class Parsed(Generic[T]):
    """The outcome of :meth:`JudgeModel.generate_parsed`: a value, or ``error`` saying
    why none could be read. ``generations`` holds every reply (re-asks included)."""

    value: T | None
    error: str | None
    generations: list[Generation] = field(default_factory=list)
    call_ids: list[int] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """Whether a value was read."""
        return self.error is None

    @property
    def text(self) -> str | None:
        """The last raw reply."""
        return self.generations[-1].text if self.generations else None


class Judge(Protocol):
    """What a metric asks of its judge, and of any other model it names by role: a
    reply read by ``parse``, asked again while it does not parse. A
    :class:`~ragjudge.models.JudgeModel` is one; so is the dry run's stand-in judge."""

    async def generate_parsed(
        self,
        messages: Sequence[ChatMessage],
        parse: Callable[[str], T],
        config: GenerateConfig | None = None,
        *,
        trial: int = 0,
        purpose: str | None = None,
    ) -> Parsed[T]:
        """The reply to ``messages`` as ``parse`` reads it, or the error that stopped it."""
        ...


class JudgeCallError(ModelError):
    """A judge call that failed after its retries. Same ``kind``/``status`` as the
    last attempt's error, plus the attempts made and the ids of the recorded calls."""

    def __init__(self, error: ModelError, *, attempts: int, call_ids: list[int]) -> None:
        super().__init__(
            f"{error} (gave up after {attempts} attempt{'s' if attempts != 1 else ''})",
            kind=error.kind,
            status=error.status,
            retry_after=error.retry_after,
        )
        self.error = error
        self.attempts = attempts
        self.call_ids = call_ids

    @property
    def call_id(self) -> int | None:
        """Id of the recorded failed call, when a recorder is attached."""
        return self.call_ids[-1] if self.call_ids else None


@dataclass
class Attempts(Generic[R]):
    """What the retry loop produced: a result or the last error."""

    result: R | None
    error: ModelError | None
    attempts: int
    error_kinds: list[str]
    latency: float
    cached: bool = False
    call_id: int | None = None
    """The call's record, stored in flight before the request went out (when the
    recorder keeps in-flight records)."""
    record: JudgeCallRecord | None = None
    """The record of the call as its request was made (None for a cached reply, whose
    record is made when it is stored)."""


def followed(leader: Attempts[Generation], latency: float) -> Attempts[Generation]:
    """A follower's outcome from its leader's: the reply as a cached one, or the same
    error, with no attempt of its own (its record is its own, not the leader's)."""
    if leader.result is None:
        return Attempts(None, leader.error, 0, [], latency)
    generation = leader.result.model_copy(
        update={"cached": True, "attempts": 0, "latency": latency, "call_id": None}
    )
    return Attempts(generation, None, 0, [], latency, cached=True)


def cached_form(reply: Generation | EmbeddingResult) -> dict[str, Any]:
    """What the response cache keeps of a reply."""
    if isinstance(reply, EmbeddingResult):
        return reply.model_dump(mode="json", exclude={"cached"})
    kept = reply.model_dump(mode="json", include={"text", "usage", "model"})
    if reply.logprobs is not None:  # a cached reply keeps what weighs its verdict
        kept["logprobs"] = [t.model_dump(mode="json") for t in reply.logprobs]
    return kept


def reply_text(reply: Generation | EmbeddingResult) -> str:
    """What a call's record keeps of its reply: the text, or what came back for an
    embedding request (its vectors are in the cache, not in the record)."""
    if isinstance(reply, EmbeddingResult):
        width = len(reply.vectors[0]) if reply.vectors else 0
        count = len(reply.vectors)
        return f"{count} vector{'s' if count != 1 else ''} of {width} dimensions"
    return reply.text

"""Types shared by every judge-model provider and the layer around them."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, Literal, Protocol, runtime_checkable

from pydantic import BaseModel, Field

from ragjudge.errors import JudgeError
from ragjudge.schema import Usage

ChatMessage = dict[str, Any]
"""An OpenAI chat message: ``{"role": ..., "content": ...}``."""


class GenerateConfig(BaseModel):
    """Sampling settings for one judge call. ``None`` leaves the provider's default."""

    model_config = {"frozen": True}

    temperature: float | None = None
    max_tokens: int | None = None
    top_p: float | None = None
    seed: int | None = None
    stop: tuple[str, ...] | None = None
    n: int | None = None
    response_format: dict[str, Any] | None = None
    """``{"type": "json_object"}`` or ``{"type": "json_schema", "json_schema": {...}}``."""
    logprobs: bool | None = None
    """Ask the endpoint for the log probability of every reply token (set by a metric
    that weighs its verdict by them; endpoints without them reply as usual)."""
    top_logprobs: int | None = None
    """How many most likely tokens to report at each position, with ``logprobs``."""


class TopLogprob(BaseModel):
    """One of the most likely tokens at a position of the reply."""

    model_config = {"frozen": True}

    token: str
    logprob: float


class TokenLogprob(BaseModel):
    """One token of the reply: its text, its log probability and the most likely
    tokens at its position (the endpoint's ``top_logprobs``)."""

    model_config = {"frozen": True}

    token: str
    logprob: float
    top: tuple[TopLogprob, ...] = ()


class Generation(BaseModel):
    """One completed judge call."""

    text: str
    usage: Usage = Field(default_factory=Usage)
    model: str
    latency: float = 0.0
    cached: bool = False
    attempts: int = 1
    call_id: int | None = None
    """Id of the stored judge-call record, when a recorder is attached."""
    logprobs: tuple[TokenLogprob, ...] | None = None
    """The reply's tokens with their log probabilities, when they were asked for
    (:attr:`GenerateConfig.logprobs`) and the endpoint returned them."""


class EmbeddingResult(BaseModel):
    """Vectors for a batch of texts."""

    vectors: list[list[float]]
    usage: Usage = Field(default_factory=Usage)
    model: str
    cached: bool = False


ErrorKind = Literal[
    "rate_limit", "server", "timeout", "connection", "client", "bad_response", "parse", "too_large"
]
"""``too_large``: a reply beyond the model's ``max_reply_bytes`` (not retried)."""


class ModelError(JudgeError):
    """A judge call that failed. ``retryable`` errors are retried by the layer
    (429, 5xx, timeouts, connection errors); others fail at once."""

    def __init__(
        self,
        message: str,
        *,
        kind: ErrorKind,
        status: int | None = None,
        retry_after: float | None = None,
    ) -> None:
        super().__init__(message)
        self.kind: ErrorKind = kind
        self.status = status
        self.retry_after = retry_after

    @property
    def retryable(self) -> bool:
        return self.kind in ("rate_limit", "server", "timeout", "connection", "bad_response")


class Provider(Protocol):
    """A raw model endpoint: one attempt per call, no retries, no cache.

    The layer around it (:mod:`ragjudge.models._model`) adds caching, limits,
    retries and accounting. A provider raises :class:`ModelError` on failure.
    """

    name: str
    """Provider kind, e.g. ``openai``, ``litellm``, ``scripted``."""
    model: str
    """Model name as the endpoint knows it."""

    async def complete(self, messages: list[ChatMessage], config: GenerateConfig) -> Generation: ...

    async def embed(self, texts: list[str]) -> EmbeddingResult: ...


class JudgeCallRecord(BaseModel):
    """Everything stored about one judge call (prompt, raw output, usage, outcome)."""

    provider: str
    model: str
    messages: list[ChatMessage]
    config: dict[str, Any]
    trial: int = 0
    text: str | None = None
    parsed: Any = None
    usage: Usage = Field(default_factory=Usage)
    latency: float = 0.0
    attempts: int = 0
    cached: bool = False
    error: str | None = None
    purpose: str | None = None
    """Free label the caller sets (e.g. the metric name), for reports only."""


CallRecorder = Callable[[JudgeCallRecord], Awaitable[int]]
"""Stores a judge-call record and returns its id (the store provides one)."""


@runtime_checkable
class InFlightRecorder(Protocol):
    """A recorder that also stores a call before its request goes out (``begin``) and
    completes that record when the call ends (``end``), so a call in flight when the
    process ends is still on record."""

    async def __call__(self, record: JudgeCallRecord) -> int: ...

    async def begin(self, record: JudgeCallRecord) -> int: ...

    async def end(self, call_id: int, record: JudgeCallRecord) -> None: ...

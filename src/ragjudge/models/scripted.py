"""A scripted judge model: canned replies for tests and dry runs, no network.

:class:`ReplyScript` decides what the model says; it is shared by
:class:`ScriptedProvider` (in-process) and the local OpenAI-compatible test server
(:mod:`ragjudge.testing.server`), so the same script can drive either.

Token usage is the offline estimate of :mod:`ragjudge.models._tokens` (the one the
limiter paces by) and embeddings are deterministic feature-hashing vectors
(:func:`hash_embedding`): identical texts give identical vectors, texts sharing many
character bigrams point in similar directions.
"""

from __future__ import annotations

import asyncio
import hashlib
import math
import re
import threading
import unicodedata
from collections import deque
from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import Any

from ragjudge.models._constrained import constrained_reply
from ragjudge.models._structured import SCHEMA_REFUSAL, reply_schema
from ragjudge.models._tokens import estimate_tokens, message_text
from ragjudge.models._types import (
    ChatMessage,
    EmbeddingResult,
    GenerateConfig,
    Generation,
    ModelError,
)
from ragjudge.schema import Usage

ReplyFunction = Callable[[list[ChatMessage]], str | None]
"""Computes a reply from the prompt; returning ``None`` falls through to the rules."""


def prompt_text(messages: Sequence[ChatMessage]) -> str:
    """All message contents joined with newlines, in order (roles are not included)."""
    return "\n".join(message_text(message) for message in messages)


class ReplyScript:
    """What a scripted model answers, decided per call in this order:

    1. ``function(messages)``, when given and it returns a string;
    2. the reply of the first rule whose pattern matches (``re.search``) the prompt
       text (all message contents joined with newlines; use inline flags such as
       ``(?is)`` for case-insensitive or multi-line matching);
    3. the next unused item of ``sequence``;
    4. ``default``.

    Thread-safe: the test server calls it from its own thread.
    """

    def __init__(
        self,
        rules: Sequence[tuple[str | re.Pattern[str], str]] = (),
        sequence: Sequence[str] = (),
        function: ReplyFunction | None = None,
        default: str = "OK",
    ) -> None:
        self._rules = [(re.compile(pattern), reply) for pattern, reply in rules]
        self._sequence = list(sequence)
        self._position = 0
        self._function = function
        self._lock = threading.Lock()
        self.default = default

    def __getstate__(self) -> dict[str, Any]:
        """Picklable (a Ray worker gets a copy): everything but the lock."""
        return {k: v for k, v in self.__dict__.items() if k != "_lock"}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._lock = threading.Lock()

    @property
    def remaining(self) -> int:
        """How many sequence items have not been used yet."""
        with self._lock:
            return len(self._sequence) - self._position

    def reply(self, messages: list[ChatMessage]) -> str:
        """The reply to one prompt (see the class docstring for the order)."""
        if self._function is not None:
            computed = self._function(messages)
            if computed is not None:
                return computed
        prompt = prompt_text(messages)
        for pattern, reply in self._rules:
            if pattern.search(prompt):
                return reply
        with self._lock:
            if self._position < len(self._sequence):
                item = self._sequence[self._position]
                self._position += 1
                return item
        return self.default


class ScriptedProvider:
    """A :class:`~ragjudge.models._types.Provider` that answers from a :class:`ReplyScript`.

    ``errors`` are failures injected per call, consumed in order by :meth:`complete`
    and :meth:`embed` alike (``None`` means that call succeeds); once they are used
    up every call succeeds. ``latency`` seconds are awaited before each call answers
    or fails, and a generation's ``latency`` is measured on the event loop's clock (in
    a test's virtual time it is the scripted latency exactly). ``calls`` records every
    prompt received (failed calls included) and ``configs`` the settings each came with,
    so a test can count attempts and inspect prompts. Sampling settings in the
    :class:`GenerateConfig` (``n``, ``stop``, ``max_tokens`` …) do not change the reply.

    A call that carries a reply schema (``response_format`` of type ``json_schema``) is
    answered as a model that keeps to the schema: with the JSON document of the scripted
    reply that is valid against it, written compactly (prose, code fences or a second
    object around it left out). A scripted reply that holds no such document is returned
    as it is — the scripted model never invents a verdict — so the reader refuses it as
    it would refuse a judge that ignored the schema. With ``refuse_schemas`` every call
    that carries a schema fails as an endpoint without structured outputs answers it (a
    client error naming ``response_format``). Checking replies against a schema needs
    the ``jsonschema`` package; without it schemas are refused too.
    """

    name: str = "scripted"

    def __init__(
        self,
        script: ReplyScript | None = None,
        *,
        model: str = "scripted",
        latency: float = 0.0,
        errors: Sequence[ModelError | None] = (),
        embedding_dim: int = 16,
        refuse_schemas: bool = False,
    ) -> None:
        if latency < 0:
            raise ValueError("latency must be >= 0")
        if embedding_dim < 1:
            raise ValueError("embedding_dim must be >= 1")
        self.script = script if script is not None else ReplyScript()
        self.model = model
        self.latency = latency
        self.embedding_dim = embedding_dim
        self.refuse_schemas = refuse_schemas
        self._errors: deque[ModelError | None] = deque(errors)
        self.calls: list[list[ChatMessage]] = []
        self.configs: list[GenerateConfig] = []
        self.embed_calls: list[list[str]] = []

    def inject(self, *errors: ModelError | None) -> None:
        """Queue more per-call failures after those already queued."""
        self._errors.extend(errors)

    async def complete(self, messages: list[ChatMessage], config: GenerateConfig) -> Generation:
        """Answer one prompt from the script, or raise the next injected error."""
        loop = asyncio.get_running_loop()
        started = loop.time()
        self.calls.append([dict(message) for message in messages])
        self.configs.append(config)
        await self._wait_latency()
        self._raise_injected_error()
        text = self._kept_to_schema(self.script.reply(messages), reply_schema(config))
        usage = Usage(
            input_tokens=estimate_tokens(prompt_text(messages)),
            output_tokens=estimate_tokens(text),
        )
        return Generation(text=text, usage=usage, model=self.model, latency=loop.time() - started)

    def _kept_to_schema(self, text: str, schema: dict[str, Any] | None) -> str:
        """The scripted reply as this model answers a call with ``schema`` (see the class
        docstring)."""
        if schema is None:
            return text
        if self.refuse_schemas:
            raise ModelError(f"HTTP 400: {SCHEMA_REFUSAL}", kind="client", status=400)
        document = constrained_reply(text, schema)
        return text if document is None else document

    async def embed(self, texts: list[str]) -> EmbeddingResult:
        """Deterministic :func:`hash_embedding` vectors, or the next injected error."""
        self.embed_calls.append(list(texts))
        await self._wait_latency()
        self._raise_injected_error()
        vectors = [hash_embedding(text, self.embedding_dim) for text in texts]
        usage = Usage(input_tokens=sum(estimate_tokens(text) for text in texts))
        return EmbeddingResult(vectors=vectors, usage=usage, model=self.model)

    async def _wait_latency(self) -> None:
        if self.latency > 0:
            await asyncio.sleep(self.latency)

    def _raise_injected_error(self) -> None:
        if self._errors:
            error = self._errors.popleft()
            if error is not None:
                raise error


def hash_embedding(text: str, dim: int = 16) -> list[float]:
    """A deterministic, L2-normalised pseudo-embedding of ``text``.

    Feature hashing of character bigrams (after NFKC, lower-casing and collapsing
    whitespace): each bigram adds ±1 to one coordinate chosen by a hash of it. Equal
    texts give equal vectors and texts that share wording (Japanese included) give
    similar ones, which is enough for similarity metrics to behave sensibly in tests.
    """
    if dim < 1:
        raise ValueError("dim must be >= 1")
    normalised = " " + " ".join(unicodedata.normalize("NFKC", text).lower().split()) + " "
    vector = [0.0] * dim
    for start in range(len(normalised) - 1):
        index, sign = _feature_slot(normalised[start : start + 2], dim)
        vector[index] += sign
    norm = math.sqrt(sum(value * value for value in vector))
    if norm == 0.0:
        # Every feature cancelled out; fall back to a unit vector chosen by the whole text.
        index, _ = _feature_slot(normalised, dim)
        vector[index] = 1.0
        norm = 1.0
    return [value / norm for value in vector]


@lru_cache(maxsize=65536)
def _feature_slot(feature: str, dim: int) -> tuple[int, float]:
    digest = hashlib.blake2b(feature.encode("utf-8"), digest_size=8).digest()
    value = int.from_bytes(digest, "big")
    sign = 1.0 if (value >> 63) & 1 else -1.0
    return value % dim, sign

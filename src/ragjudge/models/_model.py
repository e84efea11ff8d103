"""The judge model: one provider wrapped in everything a reliable evaluation needs.

:class:`JudgeModel` is the only place that caches replies, enforces concurrency and
RPM/TPM limits, retries with backoff (honouring ``Retry-After``), applies per-call
timeouts, re-asks when an output cannot be parsed, sends a reply's JSON schema as the
``structured`` setting says (falling back to text replies when an endpoint refuses
it), records every call and accounts tokens and cost. Providers make exactly one attempt per call; metrics only see
:meth:`JudgeModel.generate`, :meth:`JudgeModel.generate_parsed` and
:meth:`JudgeModel.embed`.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import random
import sqlite3
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, TypeVar

from pydantic import BaseModel

from ragjudge.models._cache import ResponseCache, cache_key, embedding_key, provider_endpoint
from ragjudge.models._conversation import REASK_MESSAGE as REASK_MESSAGE
from ragjudge.models._conversation import as_dicts, reask_conversation, try_parse
from ragjudge.models._inflight import InFlight
from ragjudge.models._limits import Limiter, LimiterStats, PermitSource, RateLimits
from ragjudge.models._pricing import PriceTable, UsageTracker
from ragjudge.models._recording import INTERRUPTED as INTERRUPTED
from ragjudge.models._recording import INTERRUPTED_IN_FLIGHT as INTERRUPTED_IN_FLIGHT
from ragjudge.models._recording import CallLog, config_dict
from ragjudge.models._results import Attempts, cached_form, followed
from ragjudge.models._results import JudgeCallError as JudgeCallError
from ragjudge.models._results import Parsed as Parsed
from ragjudge.models._retries import attempt_until_settled, backoff_delay
from ragjudge.models._same_call import SameCalls
from ragjudge.models._settings import ModelSettings as ModelSettings
from ragjudge.models._specs import SPEC_FORMS as SPEC_FORMS
from ragjudge.models._specs import make_provider as make_provider
from ragjudge.models._structured import ReplySchemas
from ragjudge.models._tokens import estimate_messages_tokens, estimate_tokens
from ragjudge.models._types import (
    CallRecorder,
    ChatMessage,
    EmbeddingResult,
    GenerateConfig,
    Generation,
    JudgeCallRecord,
    ModelError,
    Provider,
)

T = TypeVar("T")
R = TypeVar("R")
Reply = TypeVar("Reply", Generation, EmbeddingResult)

logger = logging.getLogger(__name__)

EMBEDDINGS_PURPOSE = "embeddings"


class JudgeModel:
    """A provider behind cache, limits, retries, timeouts, re-asks, recording and
    accounting. Safe to share between tasks, event loops and threads."""

    def __init__(
        self,
        provider: Provider,
        *,
        settings: ModelSettings | None = None,
        cache: ResponseCache | None = None,
        recorder: CallRecorder | None = None,
        prices: PriceTable | None = None,
    ) -> None:
        self.provider = provider
        self.settings = settings or ModelSettings()
        self.cache = cache if self.settings.cache else None
        self.recorder = recorder
        self.prices = prices if prices is not None else PriceTable()
        self.usage = UsageTracker()
        self._log = CallLog(provider, self)
        self.limiter: PermitSource = Limiter(
            RateLimits(
                max_concurrency=self.settings.fixed_concurrency,
                rpm=self.settings.rpm,
                tpm=self.settings.tpm,
                window=self.settings.rate_window,
                burst=self.settings.start_burst,
            )
        )
        """Where every attempt gets its permit (see :class:`PermitSource`); models of
        one endpoint share one."""
        self.schemas = ReplySchemas()
        """What the endpoint does with reply schemas; the models of one run on one
        endpoint share it (a refusal turns them all to text replies)."""
        self.before_first_request: Callable[[], None] | None = None
        """Called once, just before the first request of any call goes out to the
        provider (a cache hit sends none); it must not block."""
        self._random = random.Random()
        self._in_flight = InFlight()
        self._same_calls: SameCalls[Attempts[Generation]] = SameCalls()

    @property
    def spec(self) -> str:
        """``<provider>/<model>``, e.g. ``openai/gpt-4o-mini``."""
        return f"{self.provider.name}/{self.provider.model}"

    def __repr__(self) -> str:
        return f"JudgeModel({self.spec!r})"

    # public API -----------------------------------------------------------

    async def generate(
        self,
        messages: Sequence[ChatMessage | BaseModel],
        config: GenerateConfig | None = None,
        *,
        trial: int = 0,
        purpose: str | None = None,
    ) -> Generation:
        """One judge reply. Raises :class:`JudgeCallError` (a :class:`ModelError`)
        when every attempt failed; the failure is recorded first."""
        chat = as_dicts(messages)
        outcome, sent, ids = await self._answer(chat, config or GenerateConfig(), trial, purpose)
        call_id = await self._log.finish(chat, sent, trial, purpose, outcome)
        if outcome.result is None:
            raise self._final_error(outcome, [*ids, *([call_id] if call_id is not None else [])])
        return outcome.result.model_copy(update={"call_id": call_id})

    async def generate_parsed(
        self,
        messages: Sequence[ChatMessage | BaseModel],
        parse: Callable[[str], T],
        config: GenerateConfig | None = None,
        *,
        trial: int = 0,
        purpose: str | None = None,
    ) -> Parsed[T]:
        """A judge reply read by ``parse``. When ``parse`` raises, the judge is shown
        its reply and the reason and asked again, up to ``reask_limit`` times; then the
        result has ``value=None`` and ``error="parse error: ..."`` (never a default)."""
        config = config or GenerateConfig()
        chat = as_dicts(messages)
        generations: list[Generation] = []
        call_ids: list[int] = []
        reason: str | None = None
        for ask in range(self.settings.reask_limit + 1):
            outcome, sent, refused = await self._answer(chat, config, trial, purpose)
            call_ids.extend(refused)
            if outcome.result is None:
                call_id = await self._log.finish(chat, sent, trial, purpose, outcome)
                ids = [*call_ids, call_id] if call_id is not None else call_ids
                raise self._final_error(outcome, ids)
            text = outcome.result.text
            value, reason = try_parse(parse, text, self.settings.max_reply_chars)
            call_id = await self._log.finish(
                chat, sent, trial, purpose, outcome, parsed=value, parse_error=reason
            )
            generations.append(outcome.result.model_copy(update={"call_id": call_id}))
            if call_id is not None:
                call_ids.append(call_id)
            if reason is None:
                return Parsed(value=value, error=None, generations=generations, call_ids=call_ids)
            if ask < self.settings.reask_limit:
                self.usage.add_reask(purpose)
                shown = text[: self.settings.max_reply_chars]
                chat = reask_conversation(chat, shown, reason)
        self.usage.add_parse_failure(purpose)
        return Parsed(
            value=None, error=f"parse error: {reason}", generations=generations, call_ids=call_ids
        )

    async def embed(self, texts: list[str], *, purpose: str | None = None) -> EmbeddingResult:
        """Vectors for ``texts``: cached, limited, retried and recorded like chat calls
        (under ``purpose``, ``embeddings`` when not given)."""
        purpose = purpose or EMBEDDINGS_PURPOSE
        texts = list(texts)
        key = embedding_key(
            self.provider.name,
            self.provider.model,
            texts,
            endpoint=provider_endpoint(self.provider),
        )
        record = self._log.embedding_record(texts, purpose)
        hit = self._cache_get(key)
        if hit is not None:
            result = EmbeddingResult.model_validate({**hit, "cached": True})
            outcome: Attempts[EmbeddingResult] = Attempts(result, None, 0, [], 0.0, cached=True)
        else:
            tokens = sum(estimate_tokens(t) for t in texts)
            call = lambda: self.provider.embed(texts)  # noqa: E731
            outcome = await self._request(key, record, call, tokens, time.perf_counter())
        call_id = await self._log.finish_record(record, outcome)
        if outcome.result is None:
            raise self._final_error(outcome, [call_id] if call_id is not None else [])
        return outcome.result

    def limiter_stats(self) -> LimiterStats:
        """Pacing counters (waits, pauses after 429s, current pace)."""
        return self.limiter.stats()

    def stats(self) -> dict[str, Any]:
        """Usage per purpose and in total plus limiter counters, JSON-able."""
        return {
            "model": self.spec,
            "usage": self.usage.snapshot(),
            "limiter": self.limiter.stats().model_dump(),
        }

    @property
    def in_flight(self) -> int:
        """Requests sent before their caller was interrupted whose replies are still
        awaited (see :meth:`aclose`)."""
        return self._in_flight.count

    async def aclose(self) -> None:
        """Wait up to ``in_flight_grace`` seconds for replies to requests sent before an
        interruption (they are cached and recorded), commit queued cache writes, close
        the cache file and the provider's connections for the running event loop (both
        reopen on next use)."""
        await self._in_flight.drain(self.settings.in_flight_grace)
        if self.cache is not None:
            await asyncio.to_thread(self.cache.close)
        close = getattr(self.provider, "aclose", None)
        if close is not None:
            await close()

    # the call path --------------------------------------------------------

    async def _answer(
        self, messages: list[ChatMessage], config: GenerateConfig, trial: int, purpose: str | None
    ) -> tuple[Attempts[Generation], GenerateConfig, list[int]]:
        """One call with its reply schema sent as ``structured`` says (see
        :class:`~ragjudge.models._structured.ReplySchemas`): the outcome, the settings
        it was sent with and the ids of the recorded calls the endpoint refused for
        their schema (the call was then made again as a text call)."""

        async def complete(sent: GenerateConfig) -> Attempts[Generation]:
            return await self._complete(messages, sent, trial, purpose)

        async def record(sent: GenerateConfig, refusal: Attempts[Generation]) -> int | None:
            return await self._log.finish(messages, sent, trial, purpose, refusal)

        who = f"the judge endpoint {provider_endpoint(self.provider) or self.spec}"
        mode = self.settings.structured
        return await self.schemas.answer(config, mode, complete, record, who)

    async def _complete(
        self, messages: list[ChatMessage], config: GenerateConfig, trial: int, purpose: str | None
    ) -> Attempts[Generation]:
        """Cache lookup; an identical call already in flight is waited for (see
        :mod:`ragjudge.models._same_call`); else the provider with retries."""
        started = time.perf_counter()
        key = cache_key(
            self.provider.name,
            self.provider.model,
            messages,
            config_dict(config),
            trial,
            endpoint=provider_endpoint(self.provider),
        )
        while True:
            hit = self._cache_get(key)
            if hit is not None:
                generation = Generation.model_validate(
                    {**hit, "cached": True, "attempts": 0, "latency": time.perf_counter() - started}
                )
                return Attempts(generation, None, 0, [], generation.latency, cached=True)
            if self.cache is None:  # without a cache every call is made as asked
                return await self._chat_request(key, messages, config, trial, purpose, started)
            leader = self._same_calls.leader_of(key)
            if leader is None:
                with self._same_calls.lead(key) as lead:
                    lead.outcome = await self._chat_request(
                        key, messages, config, trial, purpose, started
                    )
                return lead.outcome
            shared = await self._same_calls.follow(leader)
            if shared is not None:
                return followed(shared, time.perf_counter() - started)
            # the leader's caller was cancelled before an outcome: look again

    async def _chat_request(
        self,
        key: str,
        messages: list[ChatMessage],
        config: GenerateConfig,
        trial: int,
        purpose: str | None,
        started: float,
    ) -> Attempts[Generation]:
        output_tokens = config.max_tokens or self.settings.expected_output_tokens
        tokens = estimate_messages_tokens(messages) + output_tokens
        record = self._log.record(messages, config, trial, purpose)
        call = lambda: self.provider.complete(messages, config)  # noqa: E731
        outcome = await self._request(key, record, call, tokens, started)
        outcome.record = record
        if outcome.result is not None:
            outcome.result = outcome.result.model_copy(
                update={"attempts": outcome.attempts, "cached": False}
            )
        return outcome

    async def _request(
        self,
        key: str,
        record: JudgeCallRecord,
        call: Callable[[], Awaitable[Reply]],
        tokens: int,
        started: float,
    ) -> Attempts[Reply]:
        """The provider with retries. With an in-flight recorder the call is stored
        before its request goes out (``call_id`` of the outcome); a request in flight
        when the caller is cancelled is still awaited and kept."""
        call_id = await self._log.begin(record)
        adopted: list[asyncio.Future[Reply]] = []
        if self.before_first_request is not None:
            hook, self.before_first_request = self.before_first_request, None
            hook()

        def keep(request: asyncio.Future[Reply]) -> None:
            adopted.append(request)
            cache = functools.partial(self._cache_reply, key)
            self._in_flight.adopt(request, self._log.keeper(record, call_id, started, cache))

        try:
            outcome = await self._retrying(call, tokens, keep=keep)
        except asyncio.CancelledError:
            # A request that went out is the keeper's to record; one cancelled before
            # its request (waiting for a permit, or between retries) is recorded here,
            # whatever other calls are in flight.
            if call_id is not None and not adopted:
                await self._log.end(call_id, record.model_copy(update={"error": INTERRUPTED}))
            raise
        outcome.latency = time.perf_counter() - started
        outcome.call_id = call_id
        if outcome.result is not None:
            self._cache_reply(key, outcome.result)
        return outcome

    async def _retrying(
        self,
        call: Callable[[], Awaitable[R]],
        tokens: int,
        *,
        keep: Callable[[asyncio.Future[R]], None] | None = None,
    ) -> Attempts[R]:
        """Attempts under the limiter until one succeeds or retrying must stop (see
        :func:`~ragjudge.models._retries.attempt_until_settled`)."""
        return await attempt_until_settled(
            call,
            tokens,
            limiter=self.limiter,
            settings=self.settings,
            retry_delay=self._retry_delay,
            spec=self.spec,
            keep=keep,
        )

    def _retry_delay(self, error: ModelError, attempt: int) -> float | None:
        """Seconds before the next attempt, or ``None`` to give up (see
        :func:`~ragjudge.models._retries.backoff_delay`)."""
        return backoff_delay(self.settings, error, attempt, self._random)

    def _final_error(self, outcome: Attempts[Any], call_ids: list[int]) -> JudgeCallError:
        assert outcome.error is not None
        return JudgeCallError(outcome.error, attempts=outcome.attempts, call_ids=call_ids)

    # cache ----------------------------------------------------------------

    def _cache_get(self, key: str) -> dict[str, Any] | None:
        if self.cache is None:
            return None
        try:
            return self.cache.get(key)
        except sqlite3.Error as exc:
            logger.warning("response cache unreadable, calling the model: %s", exc)
            return None

    def _cache_put(self, key: str, value: dict[str, Any]) -> None:
        if self.cache is not None:
            self.cache.put(key, value)

    def _cache_reply(self, key: str, reply: Generation | EmbeddingResult) -> None:
        self._cache_put(key, cached_form(reply))


def get_model(
    spec: str,
    *,
    base_url: str | None = None,
    api_key: str | None = None,
    settings: ModelSettings | None = None,
    cache: ResponseCache | None = None,
    recorder: CallRecorder | None = None,
    prices: PriceTable | None = None,
) -> JudgeModel:
    """A :class:`JudgeModel` from a spec: ``openai/<model>`` (any OpenAI-compatible
    server; ``base_url``/``api_key`` or ``OPENAI_BASE_URL``/``OPENAI_API_KEY``),
    ``litellm/<provider>/<model>`` (needs the ``litellm`` extra), ``scripted`` or
    ``scripted/<name>`` (canned replies, for tests and dry runs)."""
    settings = settings or ModelSettings()
    provider = make_provider(
        spec,
        base_url=base_url,
        api_key=api_key,
        timeout=settings.timeout,
        max_reply_bytes=settings.max_reply_bytes,
    )
    return JudgeModel(provider, settings=settings, cache=cache, recorder=recorder, prices=prices)

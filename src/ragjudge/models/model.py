"""The judge model: one provider wrapped in everything a reliable evaluation needs.

:class:`JudgeModel` is the only place that caches replies, enforces concurrency and
RPM/TPM limits, retries with backoff (honouring ``Retry-After``), applies per-call
timeouts, re-asks when an output cannot be parsed, records every call and accounts
tokens and cost. Providers make exactly one attempt per call; metrics only see
:meth:`JudgeModel.generate`, :meth:`JudgeModel.generate_parsed` and
:meth:`JudgeModel.embed`.
"""

from __future__ import annotations

import asyncio
import logging
import random
import sqlite3
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, TypeVar

from pydantic import BaseModel
from pydantic_core import to_jsonable_python

from ragjudge.models._results import Attempts
from ragjudge.models._results import JudgeCallError as JudgeCallError
from ragjudge.models._results import Parsed as Parsed
from ragjudge.models._settings import ModelSettings as ModelSettings
from ragjudge.models._specs import SPEC_FORMS as SPEC_FORMS
from ragjudge.models._specs import make_provider as make_provider
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
from ragjudge.models.cache import ResponseCache, cache_key, embedding_key, provider_endpoint
from ragjudge.models.limits import Limiter, LimiterStats, RateLimits
from ragjudge.models.pricing import CallOutcome, PriceTable, UsageTracker
from ragjudge.models.tokens import estimate_messages_tokens, estimate_tokens
from ragjudge.schema import Usage

T = TypeVar("T")
R = TypeVar("R")

logger = logging.getLogger(__name__)

REASK_MESSAGE = "Your answer could not be read: {reason}. Reply again in the required format."
"""The user turn appended when a judge output does not parse."""

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
        self.prices = prices or PriceTable()
        self.usage = UsageTracker()
        self.limiter = Limiter(
            RateLimits(
                max_concurrency=self.settings.max_concurrency,
                rpm=self.settings.rpm,
                tpm=self.settings.tpm,
                window=self.settings.rate_window,
            )
        )
        self._random = random.Random()

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
        config = config or GenerateConfig()
        chat = _as_dicts(messages)
        outcome = await self._complete(chat, config, trial)
        call_id = await self._finish(chat, config, trial, purpose, outcome)
        if outcome.result is None:
            raise self._final_error(outcome, [call_id] if call_id is not None else [])
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
        chat = _as_dicts(messages)
        generations: list[Generation] = []
        call_ids: list[int] = []
        reason: str | None = None
        for ask in range(self.settings.reask_limit + 1):
            outcome = await self._complete(chat, config, trial)
            if outcome.result is None:
                call_id = await self._finish(chat, config, trial, purpose, outcome)
                ids = [*call_ids, call_id] if call_id is not None else call_ids
                raise self._final_error(outcome, ids)
            text = outcome.result.text
            value, reason = _try_parse(parse, text)
            call_id = await self._finish(
                chat, config, trial, purpose, outcome, parsed=value, parse_error=reason
            )
            generations.append(outcome.result.model_copy(update={"call_id": call_id}))
            if call_id is not None:
                call_ids.append(call_id)
            if reason is None:
                return Parsed(value=value, error=None, generations=generations, call_ids=call_ids)
            if ask < self.settings.reask_limit:
                self.usage.add_reask(purpose)
                chat = _reask_conversation(chat, text, reason)
        self.usage.add_parse_failure(purpose)
        return Parsed(
            value=None, error=f"parse error: {reason}", generations=generations, call_ids=call_ids
        )

    async def embed(self, texts: list[str], *, purpose: str | None = None) -> EmbeddingResult:
        """Vectors for ``texts`` (cached, limited and retried like chat calls)."""
        purpose = purpose or EMBEDDINGS_PURPOSE
        key = embedding_key(
            self.provider.name,
            self.provider.model,
            list(texts),
            endpoint=provider_endpoint(self.provider),
        )
        started = time.perf_counter()
        hit = self._cache_get(key)
        if hit is not None:
            result = EmbeddingResult.model_validate({**hit, "cached": True})
            self._count(purpose, Attempts(result, None, 0, [], 0.0, cached=True), result.usage)
            return result
        tokens = sum(estimate_tokens(t) for t in texts)
        outcome = await self._retrying(lambda: self.provider.embed(list(texts)), tokens)
        outcome.latency = time.perf_counter() - started
        if outcome.result is None:
            self._count(purpose, outcome, Usage())
            raise self._final_error(outcome, [])
        self._count(purpose, outcome, outcome.result.usage)
        self._cache_put(key, outcome.result.model_dump(mode="json", exclude={"cached"}))
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

    async def aclose(self) -> None:
        """Commit queued cache writes, close the cache file and the provider's
        connections for the running event loop (both reopen on next use)."""
        if self.cache is not None:
            await asyncio.to_thread(self.cache.close)
        close = getattr(self.provider, "aclose", None)
        if close is not None:
            await close()

    # the call path --------------------------------------------------------

    async def _complete(
        self, messages: list[ChatMessage], config: GenerateConfig, trial: int
    ) -> Attempts[Generation]:
        """Cache lookup, then the provider with retries. Never records."""
        started = time.perf_counter()
        key = cache_key(
            self.provider.name,
            self.provider.model,
            messages,
            _config_dict(config),
            trial,
            endpoint=provider_endpoint(self.provider),
        )
        hit = self._cache_get(key)
        if hit is not None:
            generation = Generation.model_validate(
                {**hit, "cached": True, "attempts": 0, "latency": time.perf_counter() - started}
            )
            return Attempts(generation, None, 0, [], generation.latency, cached=True)
        output_tokens = config.max_tokens or self.settings.expected_output_tokens
        tokens = estimate_messages_tokens(messages) + output_tokens
        outcome = await self._retrying(lambda: self.provider.complete(messages, config), tokens)
        outcome.latency = time.perf_counter() - started
        if outcome.result is not None:
            outcome.result = outcome.result.model_copy(
                update={"attempts": outcome.attempts, "cached": False}
            )
            stored = outcome.result.model_dump(mode="json", include={"text", "usage", "model"})
            self._cache_put(key, stored)
        return outcome

    async def _retrying(self, call: Callable[[], Awaitable[R]], tokens: int) -> Attempts[R]:
        """Attempts under the limiter until one succeeds or retrying must stop."""
        kinds: list[str] = []
        attempt = 0
        while True:
            attempt += 1
            async with self.limiter.slot(tokens) as slot:
                try:
                    async with asyncio.timeout(self.settings.timeout):
                        result = await call()
                except TimeoutError:
                    error = ModelError(
                        f"no answer within {self.settings.timeout:g} s", kind="timeout"
                    )
                except ModelError as exc:
                    error = exc
                else:
                    self.limiter.settle(slot, _total_tokens(result))
                    return Attempts(result, None, attempt, kinds, 0.0)
            kinds.append(error.kind)
            if error.kind == "rate_limit":
                self.limiter.on_rate_limit(slot, error.retry_after)
            delay = self._retry_delay(error, attempt)
            if delay is None:
                return Attempts(None, error, attempt, kinds, 0.0)
            logger.debug(
                "%s: attempt %d failed (%s); retry in %.2f s", self.spec, attempt, error, delay
            )
            await asyncio.sleep(delay)

    def _retry_delay(self, error: ModelError, attempt: int) -> float | None:
        """Seconds before the next attempt, or ``None`` to give up: exponential
        backoff with full jitter, but never less than the server's ``Retry-After``."""
        if not error.retryable or attempt > self.settings.max_retries:
            return None
        retry_after = error.retry_after or 0.0
        if retry_after > self.settings.max_retry_after:
            return None
        ceiling = min(self.settings.backoff_max, self.settings.backoff_base * 2 ** (attempt - 1))
        return max(retry_after, self._random.uniform(0.0, ceiling))

    def _final_error(self, outcome: Attempts[Any], call_ids: list[int]) -> JudgeCallError:
        assert outcome.error is not None
        return JudgeCallError(outcome.error, attempts=outcome.attempts, call_ids=call_ids)

    # recording and accounting ---------------------------------------------

    async def _finish(
        self,
        messages: list[ChatMessage],
        config: GenerateConfig,
        trial: int,
        purpose: str | None,
        outcome: Attempts[Generation],
        *,
        parsed: Any = None,
        parse_error: str | None = None,
    ) -> int | None:
        """Count a finished call and hand its record to the recorder."""
        generation = outcome.result
        usage = generation.usage if generation is not None else Usage()
        self._count(purpose, outcome, usage)
        if self.recorder is None:
            return None
        error = str(outcome.error) if outcome.error is not None else None
        if parse_error is not None:
            error = f"parse error: {parse_error}"
        record = JudgeCallRecord(
            provider=self.provider.name,
            model=self.provider.model,
            messages=messages,
            config=_config_dict(config),
            trial=trial,
            text=generation.text if generation is not None else None,
            parsed=_jsonable(parsed),
            usage=usage,
            latency=outcome.latency,
            attempts=outcome.attempts,
            cached=outcome.cached,
            error=error,
            purpose=purpose,
        )
        return await self.recorder(record)

    def _count(self, purpose: str | None, outcome: Attempts[Any], usage: Usage) -> None:
        cost = None if outcome.cached else self.prices.cost(self.provider.model, usage)
        self.usage.add_call(
            purpose,
            CallOutcome(
                usage=usage,
                cost=cost,
                cached=outcome.cached,
                failed=outcome.result is None,
                attempts=outcome.attempts,
                error_kinds=tuple(outcome.error_kinds),
                latency=outcome.latency,
            ),
        )

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


def _as_dicts(messages: Sequence[ChatMessage | BaseModel]) -> list[ChatMessage]:
    """Chat messages as plain dicts (accepts :class:`ragjudge.schema.Message` too)."""
    return [
        m.model_dump(exclude_none=True) if isinstance(m, BaseModel) else dict(m) for m in messages
    ]


def _config_dict(config: GenerateConfig) -> dict[str, Any]:
    """Only the settings that are set, so new unset options keep cache keys stable."""
    return config.model_dump(mode="json", exclude_none=True)


def _total_tokens(result: object) -> int:
    usage = getattr(result, "usage", None)
    return usage.total_tokens if isinstance(usage, Usage) else 0


def _try_parse(parse: Callable[[str], T], text: str) -> tuple[T | None, str | None]:
    """``(value, None)`` or ``(None, reason)``; any exception counts as unreadable."""
    try:
        return parse(text), None
    except Exception as exc:
        return None, str(exc) or type(exc).__name__


def _reask_conversation(messages: list[ChatMessage], reply: str, reason: str) -> list[ChatMessage]:
    return [
        *messages,
        {"role": "assistant", "content": reply},
        {"role": "user", "content": REASK_MESSAGE.format(reason=reason.rstrip(". "))},
    ]


def _jsonable(value: Any) -> Any:
    if value is None:
        return None
    try:
        return to_jsonable_python(value)
    except Exception:
        return repr(value)


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
    provider = make_provider(spec, base_url=base_url, api_key=api_key, timeout=settings.timeout)
    return JudgeModel(provider, settings=settings, cache=cache, recorder=recorder, prices=prices)

"""Recording and accounting of judge calls: every finished call is counted (tokens,
cost, attempts, errors) and its record handed to the recorder — completing the record
stored before the request went out, when the recorder keeps in-flight records."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import Any, Protocol, TypeGuard

from pydantic_core import to_jsonable_python

from ragjudge.models._pricing import CallOutcome, PriceTable, UsageTracker
from ragjudge.models._results import Attempts, reply_text
from ragjudge.models._types import (
    CallRecorder,
    ChatMessage,
    EmbeddingResult,
    GenerateConfig,
    Generation,
    InFlightRecorder,
    JudgeCallRecord,
    Provider,
)
from ragjudge.schema import Usage

__all__ = ["INTERRUPTED", "INTERRUPTED_IN_FLIGHT", "CallLog", "config_dict", "keeps_in_flight"]

INTERRUPTED = "interrupted before a request was in flight"
INTERRUPTED_IN_FLIGHT = (
    "interrupted while in flight: the provider may have billed it, the reply was not received"
)


class _Accounts(Protocol):
    """What the log reads from its model: the recorder, the prices and the tallies."""

    recorder: CallRecorder | None
    prices: PriceTable
    usage: UsageTracker


class CallLog:
    """Counts and records the calls of one model (``owner`` holds the recorder, the
    price table and the usage tallies, which a user may replace at any time)."""

    def __init__(self, provider: Provider, owner: _Accounts) -> None:
        self.provider = provider
        self.owner = owner

    def record(
        self, messages: list[ChatMessage], config: GenerateConfig, trial: int, purpose: str | None
    ) -> JudgeCallRecord:
        """The record of a call that has not ended yet."""
        return JudgeCallRecord(
            provider=self.provider.name,
            model=self.provider.model,
            messages=messages,
            config=config_dict(config),
            trial=trial,
            purpose=purpose,
        )

    async def begin(self, record: JudgeCallRecord) -> int | None:
        """Store the call before its request goes out, when the recorder can."""
        recorder = self.owner.recorder
        if recorder is not None and keeps_in_flight(recorder):
            return await recorder.begin(record)
        return None

    async def end(self, call_id: int, record: JudgeCallRecord) -> None:
        """Complete a call stored in flight."""
        recorder = self.owner.recorder
        if recorder is not None and keeps_in_flight(recorder):
            await recorder.end(call_id, record)

    async def store(self, record: JudgeCallRecord, call_id: int | None) -> int | None:
        """Complete the in-flight record ``call_id``, or store ``record`` as a new one."""
        if call_id is not None:
            await self.end(call_id, record)
            return call_id
        recorder = self.owner.recorder
        return None if recorder is None else await recorder(record)

    def embedding_record(self, texts: list[str], purpose: str | None) -> JudgeCallRecord:
        """The record of an embedding request that has not ended yet: each text it
        embeds is one ``input`` message."""
        inputs = [{"role": "input", "content": text} for text in texts]
        return JudgeCallRecord(
            provider=self.provider.name,
            model=self.provider.model,
            messages=inputs,
            config={},
            purpose=purpose,
        )

    async def finish(
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
        """Count a finished chat call and hand its record to the recorder (the one its
        request was made with, when the outcome holds it)."""
        record = outcome.record
        if record is None:
            record = self.record(messages, config, trial, purpose)
        return await self.finish_record(record, outcome, parsed=parsed, parse_error=parse_error)

    async def finish_record(
        self,
        record: JudgeCallRecord,
        outcome: Attempts[Generation] | Attempts[EmbeddingResult],
        *,
        parsed: Any = None,
        parse_error: str | None = None,
    ) -> int | None:
        """Count a finished call (chat or embeddings) and hand ``record``, completed
        with how it ended, to the recorder."""
        result = outcome.result
        usage = result.usage if result is not None else Usage()
        self.count(record.purpose, outcome, usage)
        if self.owner.recorder is None:
            return None
        error = str(outcome.error) if outcome.error is not None else None
        if parse_error is not None:
            error = f"parse error: {parse_error}"
        ended = record.model_copy(
            update={
                "text": reply_text(result) if result is not None else None,
                "parsed": _jsonable(parsed),
                "usage": usage,
                "latency": outcome.latency,
                "attempts": outcome.attempts,
                "cached": outcome.cached,
                "error": error,
            }
        )
        return await self.store(ended, outcome.call_id)

    def keeper(
        self,
        record: JudgeCallRecord,
        call_id: int | None,
        started: float,
        cache: Callable[[Generation | EmbeddingResult], None],
    ) -> Callable[[asyncio.Future[Any]], Awaitable[None]]:
        """What to do with the reply to a request whose caller was cancelled: ``cache``
        it, count it and complete its record (or record that it never came)."""

        async def keep(request: asyncio.Future[Generation | EmbeddingResult]) -> None:
            latency = time.perf_counter() - started
            if request.cancelled() or request.exception() is not None:
                reason = "cancelled" if request.cancelled() else str(request.exception())
                ended = record.model_copy(
                    update={"error": f"{INTERRUPTED_IN_FLIGHT} ({reason})", "latency": latency}
                )
            else:
                reply = request.result()
                cache(reply)
                self.count(record.purpose, Attempts(reply, None, 1, [], latency), reply.usage)
                ended = record.model_copy(
                    update={
                        "text": reply_text(reply),
                        "usage": reply.usage,
                        "latency": latency,
                        "attempts": 1,
                    }
                )
            await self.store(ended, call_id)

        return keep

    def count(self, purpose: str | None, outcome: Attempts[Any], usage: Usage) -> None:
        """Add a call to the usage tallies (cost from the price table, 0 when cached)."""
        cost = None if outcome.cached else self.owner.prices.cost(self.provider.model, usage)
        self.owner.usage.add_call(
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


_IN_FLIGHT_METHODS = ("__call__", "begin", "end")


def keeps_in_flight(recorder: CallRecorder) -> TypeGuard[InFlightRecorder]:
    """Whether ``recorder`` is an :class:`InFlightRecorder`. Its class is asked first:
    a runtime protocol check costs more than the rest of a call's accounting."""
    kind = type(recorder)
    if all(callable(getattr(kind, name, None)) for name in _IN_FLIGHT_METHODS):
        return True
    return isinstance(recorder, InFlightRecorder)


def config_dict(config: GenerateConfig) -> dict[str, Any]:
    """Only the settings that are set, so new unset options keep cache keys stable."""
    return config.model_dump(mode="json", exclude_none=True)


def _jsonable(value: Any) -> Any:
    if value is None:
        return None
    try:
        return to_jsonable_python(value)
    except Exception:
        return repr(value)

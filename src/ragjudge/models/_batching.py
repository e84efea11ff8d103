"""Judge calls through a provider's batch API (``mode: batch``): half the price, replies
within hours instead of seconds.

:class:`BatchingProvider` stands where a direct provider would: the judge layer around
it caches, retries, re-asks, records and prices each call exactly as in direct mode;
only the way a call reaches the model differs. Calls are gathered until ``batch_size``
are waiting or ``batch_wait`` seconds have passed since the first, then sent as one
batch through a :class:`BatchService` (OpenAI's Batch API, Anthropic's Message
Batches); the batch is looked at with growing pauses until it ends, and each call gets
the result that bears its ``custom_id``.

Nothing is paid twice when a run is stopped and resumed:

- before a batch is created, its calls are written to the :class:`BatchLedger` (the
  run's store) under an *intent* mark; the moment the provider names the batch, the mark
  is replaced by the batch id. A resumed call whose ``custom_id`` has a batch id waits for
  that batch; one that has only an intent (the process died between the provider's
  reply and the record) asks the service to find the batch created for it, and is sent
  again only when there is none.
- a ``custom_id`` is a digest of the endpoint and the request, with the count of
  identical requests before it in this process, so a restarted run gives its calls the
  ids they had.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from ragjudge.models._anthropic import AnthropicProvider
from ragjudge.models._batch_intents import BatchResults, Intent, missing_reply
from ragjudge.models._openai import OpenAIProvider
from ragjudge.models._types import (
    ChatMessage,
    EmbeddingResult,
    GenerateConfig,
    Generation,
)
from ragjudge.models._types import ModelError as ModelError

logger = logging.getLogger(__name__)

__all__ = ["BatchLedger", "BatchResults", "BatchService", "BatchSettings", "BatchingProvider"]


class Admission(Protocol):
    """What each batch passes before it is created (a cost ceiling)."""

    async def admit(self, batch_key: str, requests: Sequence[dict[str, Any]]) -> None:
        """Raise (:class:`ModelError`) to keep the batch of ``requests`` from being sent."""
        ...

    def settled(self, batch_key: str) -> None:
        """The batch admitted under ``batch_key`` has ended (its calls are recorded)."""
        ...


class BatchService(Protocol):
    """One provider's batch API."""

    def request(self, messages: list[ChatMessage], config: GenerateConfig) -> dict[str, Any]:
        """The request body of one call."""
        ...

    async def create(self, requests: list[tuple[str, dict[str, Any]]], intent: Intent) -> str:
        """Create a batch of ``(custom_id, request)``; its id."""
        ...

    async def find(self, intent: Intent, custom_ids: list[str], known: set[str]) -> str | None:
        """The batch created for ``intent`` (never one of ``known``), or None if the
        provider has none."""
        ...

    async def results(self, batch_id: str) -> BatchResults | None:
        """Each call's result once the batch has ended; None while it runs."""
        ...


class BatchLedger(Protocol):
    """Where the batches sent are kept, so a restarted run finds them."""

    def submitted_batch(self, custom_id: str) -> str | None:
        """The id (or intent mark) of the batch the call ``custom_id`` was sent in."""
        ...

    def record_batch(self, batch_id: str, custom_ids: Sequence[str]) -> None:
        """Keep that the calls ``custom_ids`` were sent in batch ``batch_id`` (an id or
        an intent mark)."""
        ...

    def calls_in(self, batch_id: str) -> list[str]:
        """The ``custom_id`` of each call kept under ``batch_id``."""
        ...

    def batch_ids(self) -> set[str]:
        """Every batch id (not intent mark) kept."""
        ...


class MemoryLedger:
    """A :class:`BatchLedger` in memory: for one process (and tests)."""

    def __init__(self) -> None:
        self.batches: dict[str, str] = {}

    def submitted_batch(self, custom_id: str) -> str | None:
        """The batch ``custom_id`` was sent in, if any."""
        return self.batches.get(custom_id)

    def record_batch(self, batch_id: str, custom_ids: Sequence[str]) -> None:
        """Keep the calls of a new batch."""
        self.batches.update(dict.fromkeys(custom_ids, batch_id))

    def calls_in(self, batch_id: str) -> list[str]:
        """The calls kept under ``batch_id``."""
        return [cid for cid, kept in self.batches.items() if kept == batch_id]

    def batch_ids(self) -> set[str]:
        """The batch ids kept."""
        return {b for b in self.batches.values() if Intent.from_mark(b) is None}


@dataclass(frozen=True)
class BatchSettings:
    """How calls are gathered into batches and how often a batch is looked at."""

    batch_size: int = 1000
    """Calls in one batch at most."""
    batch_wait: float = 5.0
    """Seconds the first waiting call waits for others before its batch is sent."""
    poll_interval: float = 10.0
    """Seconds before a new batch is first looked at; the pause doubles each time."""
    poll_max: float = 300.0
    """The longest pause between two looks at a batch."""


@dataclass
class _Waiting:
    """Calls gathered for the next batch, each with the future of its batch's id."""

    requests: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    sent: list[asyncio.Future[str]] = field(default_factory=list)
    timer: asyncio.TimerHandle | None = None


class BatchingProvider:
    """A provider whose chat calls go through a batch API; ``inner``, the same model
    asked directly, answers embeddings and the pre-flight question."""

    def __init__(
        self,
        inner: OpenAIProvider | AnthropicProvider,
        service: BatchService,
        *,
        ledger: BatchLedger | None = None,
        settings: BatchSettings | None = None,
        admit: Admission | None = None,
    ) -> None:
        self.inner = inner
        self.service = service
        self.name = inner.name
        self.model = inner.model
        self.ledger: BatchLedger = ledger if ledger is not None else MemoryLedger()
        self.settings = settings or BatchSettings()
        self.admit = admit
        self.submitted = 0
        """Batches this provider created."""
        self._seen: Counter[str] = Counter()
        self._waiting = _Waiting()
        self._results: dict[str, asyncio.Task[BatchResults]] = {}
        self._found: dict[str, asyncio.Task[str | None]] = {}
        self._admitted: dict[str, str] = {}
        self._tasks: set[asyncio.Task[Any]] = set()

    def __repr__(self) -> str:
        return f"BatchingProvider({self.inner!r})"

    @property
    def endpoint(self) -> str | None:
        """The base URL without credentials (as the inner provider's)."""
        return self.inner.endpoint

    @property
    def secrets(self) -> list[str]:
        """The credentials the inner provider sends."""
        return self.inner.secrets

    @property
    def has_credentials(self) -> bool:
        """Whether requests can be sent."""
        return self.inner.has_credentials

    async def complete(self, messages: list[ChatMessage], config: GenerateConfig) -> Generation:
        """The reply to one chat call, sent in a batch (or found in one already sent)."""
        started = time.perf_counter()
        payload = self.service.request(messages, config)
        custom_id = self._custom_id(payload)
        batch_id = await self._batch_already_sent(custom_id)
        if batch_id is None:
            batch_id = await self._send_with_others(custom_id, payload)
        results = await asyncio.shield(self._results_of(batch_id))
        return _reply_of(results, custom_id, batch_id, started, bool(config.logprobs))

    async def embed(self, texts: list[str]) -> EmbeddingResult:
        """Embeddings are not batched: sent as one direct request."""
        return await self.inner.embed(texts)

    async def aclose(self) -> None:
        """Let the batches being created get their ids on record (for as long as one
        request may take), stop watching batches (they go on at the provider and a
        resumed run finds them) and close the connections."""
        if self._tasks:
            await asyncio.wait(self._tasks, timeout=self.inner.timeout)
        tasks = [*self._tasks, *self._results.values(), *self._found.values()]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        self._tasks.clear()
        self._results.clear()
        self._found.clear()
        await self.inner.aclose()

    # a batch sent before -------------------------------------------------------

    async def _batch_already_sent(self, custom_id: str) -> str | None:
        """The batch the call was sent in by an earlier process, if any: a recorded
        batch id, or the batch found for a recorded intent."""
        mark = self.ledger.submitted_batch(custom_id)
        if mark is None or Intent.from_mark(mark) is None:
            return mark
        task = self._found.get(mark)
        if task is None or (task.done() and (task.cancelled() or task.exception() is not None)):
            task = asyncio.get_running_loop().create_task(self._find(mark))
            self._found[mark] = task
        return await asyncio.shield(task)

    async def _find(self, mark: str) -> str | None:
        intent = Intent.from_mark(mark)
        assert intent is not None
        custom_ids = self.ledger.calls_in(mark)
        batch_id = await self.service.find(intent, custom_ids, self.ledger.batch_ids())
        if batch_id is not None:
            self.ledger.record_batch(batch_id, custom_ids)
            logger.info("found batch %s, created before the record of its calls", batch_id)
        return batch_id

    # gathering and sending ------------------------------------------------

    def _custom_id(self, payload: dict[str, Any]) -> str:
        text = json.dumps([self.inner.endpoint, payload], sort_keys=True, ensure_ascii=False)
        digest = hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]
        count = self._seen[digest]
        self._seen[digest] += 1
        return f"{digest}-{count}"

    async def _send_with_others(self, custom_id: str, payload: dict[str, Any]) -> str:
        loop = asyncio.get_running_loop()
        sent: asyncio.Future[str] = loop.create_future()
        waiting = self._waiting
        waiting.requests.append((custom_id, payload))
        waiting.sent.append(sent)
        if len(waiting.requests) >= self.settings.batch_size:
            self._send_waiting()
        elif waiting.timer is None:
            waiting.timer = loop.call_later(self.settings.batch_wait, self._send_waiting)
        return await asyncio.shield(sent)

    def _send_waiting(self) -> None:
        waiting, self._waiting = self._waiting, _Waiting()
        if waiting.timer is not None:
            waiting.timer.cancel()
        if waiting.requests:
            task = asyncio.get_running_loop().create_task(self._submit(waiting))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def _submit(self, waiting: _Waiting) -> None:
        custom_ids = [custom_id for custom_id, _ in waiting.requests]
        try:
            intent = Intent.new(len(custom_ids))
            if self.admit is not None:
                await self.admit.admit(intent.key, [request for _, request in waiting.requests])
            self.ledger.record_batch(intent.mark, custom_ids)
            batch_id = await self.service.create(waiting.requests, intent)
        except ModelError as exc:
            _settle(waiting.sent, exc)
            return
        except BaseException as exc:
            _settle(waiting.sent, ModelError(f"batch not sent: {exc!r}", kind="server"))
            raise
        self.ledger.record_batch(batch_id, custom_ids)
        self._admitted[batch_id] = intent.key
        self.submitted += 1
        logger.info("sent batch %s of %d judge calls", batch_id, len(waiting.requests))
        for future in waiting.sent:
            if not future.done():
                future.set_result(batch_id)

    def _settled(self, batch_id: str) -> None:
        key = self._admitted.pop(batch_id, None)
        if key is not None and self.admit is not None:
            self.admit.settled(key)

    # waiting for a batch ---------------------------------------------------

    def _results_of(self, batch_id: str) -> asyncio.Task[BatchResults]:
        task = self._results.get(batch_id)
        if task is None or (task.done() and (task.cancelled() or task.exception() is not None)):
            task = asyncio.get_running_loop().create_task(self._collect(batch_id))
            self._results[batch_id] = task
        return task

    async def _collect(self, batch_id: str) -> BatchResults:
        pause = self.settings.poll_interval
        while True:
            try:
                results = await self.service.results(batch_id)
                if results is not None:
                    self._settled(batch_id)
                    return results
            except ModelError as exc:
                if not exc.retryable:
                    raise
                # a passing failure: the batch is still there, never send it again
                logger.warning("looking at batch %s failed, trying again: %s", batch_id, exc)
            await asyncio.sleep(pause)
            pause = min(self.settings.poll_max, pause * 2)


def _settle(futures: list[asyncio.Future[str]], error: ModelError) -> None:
    for future in futures:
        if not future.done():
            future.set_exception(error)


def _reply_of(
    results: BatchResults, custom_id: str, batch_id: str, started: float, logprobs: bool
) -> Generation:
    result = results.get(custom_id)
    if result is None:
        missing = results.get("")
        raise missing if isinstance(missing, ModelError) else missing_reply(batch_id, "unknown")
    if isinstance(result, ModelError):
        raise result
    update: dict[str, Any] = {"latency": time.perf_counter() - started}
    if not logprobs:
        update["logprobs"] = None
    return result.model_copy(update=update)

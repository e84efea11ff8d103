"""Judge calls through a provider's batch API (``mode: batch``): half the price, replies
within hours instead of seconds.

:class:`BatchingProvider` stands where an :class:`OpenAIProvider` would: the judge layer
around it caches, retries, re-asks, records and prices each call exactly as in direct
mode; only the way a call reaches the model differs. Calls are gathered until
``batch_size`` are waiting or ``batch_wait`` seconds have passed since the first, then
sent as one batch; the batch is looked at with growing pauses until it ends, and each
call gets the line of the result files that bears its ``custom_id``.

Every batch is written to a :class:`BatchLedger` (the run's store) with its calls'
``custom_id`` the moment it is created. A call whose ``custom_id`` is already there
(the run was stopped and resumed) waits for that batch instead of being sent again, so
nothing is paid twice. A ``custom_id`` is a digest of the endpoint and the request, with
the count of identical requests before it in this process, so a restarted run gives its
calls the ids they had.
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

from ragjudge.models import _batch_api as api
from ragjudge.models._openai import OpenAIProvider, _message_text, _token_logprobs, _usage
from ragjudge.models._types import (
    ChatMessage,
    EmbeddingResult,
    ErrorKind,
    GenerateConfig,
    Generation,
)
from ragjudge.models._types import ModelError as ModelError

logger = logging.getLogger(__name__)

BatchResults = dict[str, Generation | ModelError]
"""Each call of an ended batch by ``custom_id``: its reply, or why it has none."""


class BatchLedger(Protocol):
    """Where the batches sent are kept, so a restarted run finds them."""

    def submitted_batch(self, custom_id: str) -> str | None:
        """The id of the batch the call ``custom_id`` was sent in, if any."""
        ...

    def record_batch(self, batch_id: str, custom_ids: Sequence[str]) -> None:
        """Keep that the calls ``custom_ids`` were sent in batch ``batch_id``."""
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
    """An OpenAI-compatible provider whose chat calls go through the Batch API
    (embeddings are sent directly)."""

    def __init__(
        self,
        inner: OpenAIProvider,
        *,
        ledger: BatchLedger | None = None,
        settings: BatchSettings | None = None,
    ) -> None:
        self.inner = inner
        self.name = inner.name
        self.model = inner.model
        self.ledger: BatchLedger = ledger if ledger is not None else MemoryLedger()
        self.settings = settings or BatchSettings()
        self.submitted = 0
        """Batches this provider created."""
        self._seen: Counter[str] = Counter()
        self._waiting = _Waiting()
        self._results: dict[str, asyncio.Task[BatchResults]] = {}
        self._tasks: set[asyncio.Task[Any]] = set()

    def __repr__(self) -> str:
        return f"BatchingProvider({self.inner!r})"

    @property
    def endpoint(self) -> str:
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
        payload = self.inner._chat_payload(messages, config)
        custom_id = self._custom_id(payload)
        batch_id = self.ledger.submitted_batch(custom_id)
        if batch_id is None:
            batch_id = await self._send_with_others(custom_id, payload)
        results = await asyncio.shield(self._results_of(batch_id))
        return _reply_of(results, custom_id, batch_id, started, bool(config.logprobs))

    async def embed(self, texts: list[str]) -> EmbeddingResult:
        """Embeddings are not batched: sent as one direct request."""
        return await self.inner.embed(texts)

    async def aclose(self) -> None:
        """Stop watching batches (they go on at the provider and a resumed run finds
        them) and close the connections."""
        for task in [*self._tasks, *self._results.values()]:
            task.cancel()
        await asyncio.gather(*self._tasks, *self._results.values(), return_exceptions=True)
        self._tasks.clear()
        self._results.clear()
        await self.inner.aclose()

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
        try:
            file_id = await api.upload_requests(self.inner, api.request_lines(waiting.requests))
            batch = await api.create_batch(self.inner, file_id)
        except ModelError as exc:
            _settle(waiting.sent, exc)
            return
        except BaseException as exc:
            _settle(waiting.sent, ModelError(f"batch not sent: {exc!r}", kind="server"))
            raise
        batch_id = str(batch["id"])
        self.ledger.record_batch(batch_id, [custom_id for custom_id, _ in waiting.requests])
        self.submitted += 1
        logger.info("sent batch %s of %d judge calls", batch_id, len(waiting.requests))
        for future in waiting.sent:
            if not future.done():
                future.set_result(batch_id)

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
                batch = await api.retrieve_batch(self.inner, batch_id)
                if batch.get("status") in api.FINISHED:
                    return await self._read_results(batch)
            except ModelError as exc:
                if not exc.retryable:
                    raise
                # a passing failure: the batch is still there, never send it again
                logger.warning("looking at batch %s failed, trying again: %s", batch_id, exc)
            await asyncio.sleep(pause)
            pause = min(self.settings.poll_max, pause * 2)

    async def _read_results(self, batch: dict[str, Any]) -> BatchResults:
        results: BatchResults = {}
        for key in ("output_file_id", "error_file_id"):
            file_id = batch.get(key)
            if isinstance(file_id, str) and file_id:
                for line in await api.result_lines(self.inner, file_id):
                    results[line["custom_id"]] = _line_result(line, self.model)
        ended = str(batch.get("status"))
        if ended != "completed":
            logger.warning(
                "batch %s ended %s; its calls without a result are retried", batch.get("id"), ended
            )
        return {**results, "": _missing(str(batch.get("id")), ended)}


def _settle(futures: list[asyncio.Future[str]], error: ModelError) -> None:
    for future in futures:
        if not future.done():
            future.set_exception(error)


def _missing(batch_id: str, status: str) -> ModelError:
    """The error of a call an ended batch has no line for (expired, cancelled, failed)."""
    return ModelError(f"batch {batch_id} ended {status} without this call's reply", kind="server")


def _line_result(line: dict[str, Any], model: str) -> Generation | ModelError:
    """One result line as a reply, or as the error it reports."""
    response = line.get("response")
    status = response.get("status_code") if isinstance(response, dict) else None
    body = response.get("body") if isinstance(response, dict) else None
    if status == 200 and isinstance(body, dict):
        try:
            text = _message_text(body)
        except ModelError as exc:
            return exc
        return Generation(
            text=text,
            usage=_usage(body),
            model=str(body.get("model") or model),
            logprobs=_token_logprobs(body),
        )
    return _line_error(line.get("error"), status, body)


def _line_error(error: Any, status: Any, body: Any) -> ModelError:
    detail = error if error else body
    if isinstance(detail, dict):
        inner = detail.get("error", detail)
        detail = inner.get("message", inner) if isinstance(inner, dict) else inner
    code = status if isinstance(status, int) else None
    kind: ErrorKind = "client"
    if code == 429:
        kind = "rate_limit"
    elif code is None or code >= 500:
        kind = "server"
    where = f"HTTP {code}" if code is not None else "an error line"
    return ModelError(f"batch result: {where}: {detail}", kind=kind, status=code)


def _reply_of(
    results: BatchResults, custom_id: str, batch_id: str, started: float, logprobs: bool
) -> Generation:
    result = results.get(custom_id)
    if result is None:
        missing = results.get("")
        raise missing if isinstance(missing, ModelError) else _missing(batch_id, "unknown")
    if isinstance(result, ModelError):
        raise result
    update: dict[str, Any] = {"latency": time.perf_counter() - started}
    if not logprobs:
        update["logprobs"] = None
    return result.model_copy(update=update)

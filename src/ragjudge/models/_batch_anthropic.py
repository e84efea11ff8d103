"""Anthropic's Message Batches API as a batch service of
:class:`~ragjudge.models._batching.BatchingProvider`: the calls sent as one batch of
``{custom_id, params}``, the batch looked at until its ``processing_status`` is
``ended``, its results read as JSON Lines.

Anthropic's batches carry no metadata, so a batch whose creation was never recorded
(the process was killed between the create request and the store) is looked for among
the recent batches: created after the intent, with as many requests as the intent, and
none of the run's recorded batches. One such batch is taken as it; when there are
several, each is waited for and the one whose results bear the intent's ``custom_id``\\ s
is taken.
"""

from __future__ import annotations

import asyncio
from datetime import datetime
from typing import Any

from ragjudge.models._anthropic import AnthropicProvider, generation_of
from ragjudge.models._batch_intents import BatchResults, Intent, missing_reply
from ragjudge.models._reply_bodies import custom_id_lines, json_object
from ragjudge.models._types import ChatMessage, ErrorKind, GenerateConfig, ModelError

BATCHES = "/v1/messages/batches"
CLOCK_SLACK = 300.0
"""Seconds a provider's clock may be behind ours when matching a batch's creation time."""
_ERROR_KINDS: dict[str, ErrorKind] = {
    "overloaded_error": "server",
    "api_error": "server",
    "rate_limit_error": "rate_limit",
}


class AnthropicBatches:
    """The Message Batches API of Anthropic (or a server that speaks it)."""

    def __init__(self, provider: AnthropicProvider, find_pause: float = 10.0) -> None:
        self.provider = provider
        self.find_pause = find_pause

    def request(self, messages: list[ChatMessage], config: GenerateConfig) -> dict[str, Any]:
        """The ``params`` of one call."""
        return self.provider.message_params(messages, config)

    async def create(self, requests: list[tuple[str, dict[str, Any]]], intent: Intent) -> str:
        """Create the batch of the calls; its id."""
        body = {"requests": [{"custom_id": cid, "params": params} for cid, params in requests]}
        reply = json_object(await self.provider.send("POST", BATCHES, body), "creating a batch")
        ident = reply.get("id")
        if not isinstance(ident, str) or not ident:
            raise ModelError("creating a batch: the reply names no id", kind="bad_response")
        return ident

    async def find(self, intent: Intent, custom_ids: list[str], known: set[str]) -> str | None:
        """The batch created for ``intent`` (see the module docstring); None if none."""
        candidates = [
            str(batch["id"])
            for batch in await self._recent()
            if batch.get("id") not in known and _could_be(batch, intent)
        ]
        if len(candidates) <= 1:
            return candidates[0] if candidates else None
        wanted = set(custom_ids)
        for batch_id in candidates:
            results = await self._ended_results(batch_id)
            if wanted & set(results):
                return batch_id
        return None

    async def results(self, batch_id: str) -> BatchResults | None:
        """Each call's reply or error once the batch has ended; None while it runs."""
        batch = json_object(
            await self.provider.send("GET", f"{BATCHES}/{batch_id}"), f"looking at {batch_id}"
        )
        if batch.get("processing_status") != "ended":
            return None
        results: BatchResults = {}
        url = batch.get("results_url")
        if isinstance(url, str) and url:
            for line in custom_id_lines(await self.provider.send("GET", _path_of(url))):
                results[line["custom_id"]] = _result_of(line, self.provider.model)
        return {**results, "": missing_reply(batch_id, "ended")}

    async def _recent(self) -> list[dict[str, Any]]:
        reply = json_object(
            await self.provider.send("GET", f"{BATCHES}?limit=100"), "listing batches"
        )
        data = reply.get("data")
        return (
            [batch for batch in data if isinstance(batch, dict)] if isinstance(data, list) else []
        )

    async def _ended_results(self, batch_id: str) -> BatchResults:
        while True:
            results = await self.results(batch_id)
            if results is not None:
                return results
            await asyncio.sleep(self.find_pause)


def _could_be(batch: dict[str, Any], intent: Intent) -> bool:
    """Whether ``batch`` may be the one created for ``intent``: created after it (less
    the clock slack) with as many requests."""
    counts = batch.get("request_counts")
    total = (
        sum(v for v in counts.values() if isinstance(v, int)) if isinstance(counts, dict) else -1
    )
    try:
        created = datetime.fromisoformat(str(batch.get("created_at"))).timestamp()
    except ValueError:
        return False
    return total == intent.count and created >= intent.created - CLOCK_SLACK


def _path_of(url: str) -> str:
    """The path (and query) of a results URL, asked under the provider's base URL."""
    if "://" not in url:
        return url
    rest = url.split("://", 1)[1]
    return "/" + rest.split("/", 1)[1] if "/" in rest else "/"


def _result_of(line: dict[str, Any], model: str) -> Any:
    """One result line: the message as a reply, else the error of the call."""
    result = line.get("result")
    kind = result.get("type") if isinstance(result, dict) else None
    if kind == "succeeded" and isinstance(result, dict) and isinstance(result.get("message"), dict):
        try:
            return generation_of(result["message"], model)
        except ModelError as exc:
            return exc
    if kind == "errored" and isinstance(result, dict):
        error = result.get("error")
        inner = error.get("error", error) if isinstance(error, dict) else {}
        inner = inner if isinstance(inner, dict) else {}
        error_type = str(inner.get("type") or "")
        message = inner.get("message") or error_type or "errored"
        return ModelError(f"batch result: {message}", kind=_ERROR_KINDS.get(error_type, "client"))
    return ModelError(f"batch result: the request was {kind or 'not answered'}", kind="server")

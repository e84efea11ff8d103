"""OpenAI's Batch API as a batch service of :class:`~ragjudge.models._batching.BatchingProvider`:
the calls uploaded as a JSON Lines file, a batch created with the run's intent key in
its ``metadata``, the batch looked at until it ends, the result files read.

A batch whose creation was never recorded (the process was killed between the create
request and the store) is found again by listing the batches and matching that key.
"""

from __future__ import annotations

from typing import Any

from ragjudge.models import _batch_api as api
from ragjudge.models._batch_intents import BatchResults, Intent, missing_reply
from ragjudge.models._openai import OpenAIProvider, _message_text, _token_logprobs, _usage
from ragjudge.models._types import (
    ChatMessage,
    ErrorKind,
    GenerateConfig,
    Generation,
    ModelError,
)

INTENT_KEY = "ragjudge_intent"
"""The ``metadata`` key of a batch that holds the key of the intent it was created for."""


class OpenAIBatches:
    """The Batch API of an OpenAI-compatible endpoint."""

    def __init__(self, provider: OpenAIProvider) -> None:
        self.provider = provider

    def request(self, messages: list[ChatMessage], config: GenerateConfig) -> dict[str, Any]:
        """The chat-completions body of one call."""
        return self.provider._chat_payload(messages, config)

    async def create(self, requests: list[tuple[str, dict[str, Any]]], intent: Intent) -> str:
        """Upload the calls and create their batch; its id."""
        file_id = await api.upload_requests(self.provider, api.request_lines(requests))
        batch = await api.create_batch(self.provider, file_id, {INTENT_KEY: intent.key})
        return str(batch["id"])

    async def find(self, intent: Intent, custom_ids: list[str], known: set[str]) -> str | None:
        """The batch created for ``intent``, found by its metadata key; None if there
        is none (it was never created)."""
        for batch in await api.list_batches(self.provider):
            metadata = batch.get("metadata")
            if isinstance(metadata, dict) and metadata.get(INTENT_KEY) == intent.key:
                return str(batch["id"])
        return None

    async def results(self, batch_id: str) -> BatchResults | None:
        """Each call's reply or error once the batch has ended; None while it runs."""
        batch = await api.retrieve_batch(self.provider, batch_id)
        status = str(batch.get("status"))
        if status not in api.FINISHED:
            return None
        results: BatchResults = {}
        for key in ("output_file_id", "error_file_id"):
            file_id = batch.get(key)
            if isinstance(file_id, str) and file_id:
                for line in await api.result_lines(self.provider, file_id):
                    results[line["custom_id"]] = _line_result(line, self.provider.model)
        return {**results, "": missing_reply(batch_id, status)}


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

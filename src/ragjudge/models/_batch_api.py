"""The requests of OpenAI's Batch API, sent through an :class:`OpenAIProvider`'s
connection (its key, headers and base URL): upload a JSON Lines file of requests,
create a batch of them, look at a batch, read a result file.

Each function is one request; a failure is a :class:`~ragjudge.models.ModelError` with
the key scrubbed, as for chat calls.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Sequence
from typing import Any

from ragjudge._util.redact import scrub_text, scrub_url
from ragjudge._util.urls import join_path
from ragjudge.models._openai import OpenAIProvider, error_from_status, error_from_transport
from ragjudge.models._reply_bodies import custom_id_lines, json_object
from ragjudge.models._types import ModelError

COMPLETION_WINDOW = "24h"
"""How long a batch may take; the only window OpenAI offers."""
CHAT_ENDPOINT = "/v1/chat/completions"
FINISHED = frozenset({"completed", "failed", "expired", "cancelled"})
"""Batch statuses after which nothing more will come."""
RESULT_FILE_BYTES = 512 * 1024 * 1024
"""The most of one result file read (OpenAI's own cap on a batch's input file)."""


def request_lines(requests: Sequence[tuple[str, dict[str, Any]]]) -> bytes:
    """The JSON Lines input file of a batch: one chat-completions request per
    ``(custom_id, payload)``."""
    lines = (
        json.dumps(
            {"custom_id": custom_id, "method": "POST", "url": CHAT_ENDPOINT, "body": payload},
            ensure_ascii=False,
        )
        for custom_id, payload in requests
    )
    return ("\n".join(lines) + "\n").encode("utf-8")


def _form(fields: dict[str, str], name: str, content: bytes) -> tuple[bytes, str]:
    """A ``multipart/form-data`` body with ``fields`` and one file, and its content type."""
    boundary = "ragjudge-" + secrets.token_hex(12)
    parts = [
        f'--{boundary}\r\nContent-Disposition: form-data; name="{key}"\r\n\r\n{value}\r\n'.encode()
        for key, value in fields.items()
    ]
    head = (
        f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="{name}"\r\n'
        "Content-Type: application/jsonl\r\n\r\n"
    ).encode()
    body = b"".join([*parts, head, content, f"\r\n--{boundary}--\r\n".encode()])
    return body, f"multipart/form-data; boundary={boundary}"


async def _send(
    provider: OpenAIProvider,
    method: str,
    path: str,
    *,
    content: bytes | None = None,
    content_type: str | None = None,
    json_body: dict[str, Any] | None = None,
) -> bytes:
    """One request to ``path`` under the provider's base URL; the body of a 2xx reply."""
    import httpx2

    from ragjudge._util.bodies import BodyTooLarge, read_body, read_start

    if not provider.has_credentials:
        raise ModelError("no API key for OpenAI: set OPENAI_API_KEY or pass api_key", kind="client")
    url = join_path(provider.base_url, path)
    client = provider._client()
    headers = {"Content-Type": content_type} if content_type else None
    try:
        request = client.build_request(
            method, url, content=content, json=json_body, headers=headers
        )
        response = await client.send(request)
        try:
            if response.status_code >= 300:
                raise error_from_status(response, await read_start(response, 64 * 1024))
            return await read_body(response, RESULT_FILE_BYTES)
        finally:
            await response.aclose()
    except httpx2.HTTPError as exc:
        raise _scrubbed(error_from_transport(exc, url), provider) from None
    except BodyTooLarge:
        message = f"reply from {scrub_url(url)} larger than {RESULT_FILE_BYTES} bytes"
        raise ModelError(message, kind="too_large") from None
    except ModelError as exc:
        raise _scrubbed(exc, provider) from None


def _scrubbed(error: ModelError, provider: OpenAIProvider) -> ModelError:
    message = scrub_text(str(error), provider.secrets)
    return ModelError(message, kind=error.kind, status=error.status, retry_after=error.retry_after)


def _id_of(body: dict[str, Any], what: str) -> str:
    ident = body.get("id")
    if not isinstance(ident, str) or not ident:
        raise ModelError(f"{what}: the reply names no id", kind="bad_response")
    return ident


async def upload_requests(provider: OpenAIProvider, content: bytes) -> str:
    """Upload a batch's input file (purpose ``batch``); its file id."""
    body, content_type = _form({"purpose": "batch"}, "requests.jsonl", content)
    reply = await _send(provider, "POST", "/files", content=body, content_type=content_type)
    return _id_of(json_object(reply, "uploading a batch file"), "uploading a batch file")


async def create_batch(
    provider: OpenAIProvider, file_id: str, metadata: dict[str, str] | None = None
) -> dict[str, Any]:
    """Create a batch of the requests in ``file_id`` (tagged with ``metadata``); the
    batch object."""
    payload: dict[str, Any] = {
        "input_file_id": file_id,
        "endpoint": CHAT_ENDPOINT,
        "completion_window": COMPLETION_WINDOW,
    }
    if metadata:
        payload["metadata"] = metadata
    reply = await _send(provider, "POST", "/batches", json_body=payload)
    body = json_object(reply, "creating a batch")
    _id_of(body, "creating a batch")
    return body


async def retrieve_batch(provider: OpenAIProvider, batch_id: str) -> dict[str, Any]:
    """The batch object of ``batch_id`` as it is now."""
    reply = await _send(provider, "GET", f"/batches/{batch_id}")
    return json_object(reply, f"looking at batch {batch_id}")


async def list_batches(provider: OpenAIProvider, limit: int = 100) -> list[dict[str, Any]]:
    """The most recent batches of the account, newest first."""
    reply = json_object(await _send(provider, "GET", f"/batches?limit={limit}"), "listing batches")
    data = reply.get("data")
    return [batch for batch in data if isinstance(batch, dict)] if isinstance(data, list) else []


async def result_lines(provider: OpenAIProvider, file_id: str) -> list[dict[str, Any]]:
    """The lines of a result file (output or errors), each a JSON object; lines that
    are not are left out (their calls then count as missing from the batch)."""
    content = await _send(provider, "GET", f"/files/{file_id}/content")
    return custom_id_lines(content)

"""Anthropic's Messages API, reached directly over HTTP: one message (the pre-flight
question of a batched judge) and the requests of its Message Batches API (create, look
at, list, read the results of, cancel a batch).

Requests carry the key in ``x-api-key`` and the API version in ``anthropic-version``;
a failure is a :class:`~ragjudge.models.ModelError` with the key scrubbed.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from ragjudge._util.redact import scrub_text, scrub_url, url_secrets
from ragjudge._util.urls import join_path
from ragjudge.models._openai import error_from_status, error_from_transport, never_tls
from ragjudge.models._reply_bodies import json_object
from ragjudge.models._send_times import trace_departure
from ragjudge.models._settings import DEFAULT_MAX_REPLY_BYTES
from ragjudge.models._types import (
    ChatMessage,
    EmbeddingResult,
    GenerateConfig,
    Generation,
    ModelError,
)
from ragjudge.schema import Usage

if TYPE_CHECKING:
    from ragjudge.models._lean_http import LeanClient

ANTHROPIC_BASE_URL = "https://api.anthropic.com"
ANTHROPIC_VERSION = "2023-06-01"
DEFAULT_MAX_TOKENS = 1024
"""Anthropic requires ``max_tokens``; the one sent when the call sets none."""
RESULTS_BYTES = 512 * 1024 * 1024
"""The most of one batch's results read."""


class AnthropicProvider:
    """A Claude model behind Anthropic's Messages API (``/v1/messages``)."""

    name = "anthropic"

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        timeout: float = 60.0,
        max_reply_bytes: int = DEFAULT_MAX_REPLY_BYTES,
    ) -> None:
        self.model = model
        url = base_url or os.environ.get("ANTHROPIC_BASE_URL") or ANTHROPIC_BASE_URL
        self.base_url = url.rstrip("/")
        self._api_key = api_key or os.environ.get("ANTHROPIC_API_KEY")
        self.timeout = timeout
        self.max_reply_bytes = max_reply_bytes
        self._client_now: LeanClient | None = None

    def __repr__(self) -> str:
        return f"AnthropicProvider({self.model!r}, endpoint={self.endpoint!r})"

    @property
    def endpoint(self) -> str:
        """The base URL without credentials."""
        return scrub_url(self.base_url)

    @property
    def secrets(self) -> list[str]:
        """The credentials requests carry (never shown)."""
        return [*([self._api_key] if self._api_key else []), *url_secrets(self.base_url)]

    @property
    def has_credentials(self) -> bool:
        """Whether a key is set."""
        return bool(self._api_key)

    def message_params(self, messages: list[ChatMessage], config: GenerateConfig) -> dict[str, Any]:
        """The Messages API parameters of one chat call: system messages joined into
        ``system``, the rest as they are."""
        system = [str(m.get("content", "")) for m in messages if m.get("role") == "system"]
        params: dict[str, Any] = {
            "model": self.model,
            "max_tokens": config.max_tokens or DEFAULT_MAX_TOKENS,
            "messages": [dict(m) for m in messages if m.get("role") != "system"],
        }
        if system:
            params["system"] = "\n\n".join(system)
        if config.temperature is not None:
            params["temperature"] = config.temperature
        if config.stop:
            params["stop_sequences"] = list(config.stop)
        return params

    async def complete(self, messages: list[ChatMessage], config: GenerateConfig) -> Generation:
        """One message, asked directly."""
        reply = await self.send("POST", "/v1/messages", self.message_params(messages, config))
        return generation_of(json_object(reply, "a message"), self.model)

    async def embed(self, texts: list[str]) -> EmbeddingResult:
        """Anthropic has no embeddings endpoint."""
        raise ModelError("Anthropic's API has no embeddings; name an embedder", kind="client")

    async def aclose(self) -> None:
        """Close the connection."""
        if self._client_now is not None:
            await self._client_now.aclose()
            self._client_now = None

    async def send(self, method: str, path: str, body: dict[str, Any] | None = None) -> bytes:
        """One request to ``path`` under the base URL; the body of a 2xx reply."""
        import httpx2

        from ragjudge._util.bodies import BodyTooLarge, read_body, read_start

        if not self.has_credentials:
            raise ModelError("no API key for Anthropic: set ANTHROPIC_API_KEY", kind="client")
        url = join_path(self.base_url, path)
        client = self._client()
        try:
            request = client.build_request(method, url, json=body)
            trace_departure(request.extensions)
            response = await client.send(request)
            try:
                if response.status_code >= 300:
                    raise error_from_status(response, await read_start(response, 64 * 1024))
                return await read_body(response, RESULTS_BYTES)
            finally:
                await response.aclose()
        except httpx2.HTTPError as exc:
            raise self._scrubbed(error_from_transport(exc, url)) from None
        except BodyTooLarge:
            message = f"reply from {scrub_url(url)} larger than {RESULTS_BYTES} bytes"
            raise ModelError(message, kind="too_large") from None
        except ModelError as exc:
            raise self._scrubbed(exc) from None

    def _client(self) -> LeanClient:
        import httpx2

        from ragjudge.models._lean_http import lean_client

        if self._client_now is None or self._client_now.is_closed:
            headers = {
                "x-api-key": self._api_key or "",
                "anthropic-version": ANTHROPIC_VERSION,
                "content-type": "application/json",
            }
            self._client_now = lean_client(
                self.base_url,
                headers=headers,
                timeout=httpx2.Timeout(self.timeout),
                verify=not never_tls(self.base_url),
            )
        return self._client_now

    def _scrubbed(self, error: ModelError) -> ModelError:
        message = scrub_text(str(error), self.secrets)
        return ModelError(
            message, kind=error.kind, status=error.status, retry_after=error.retry_after
        )


def generation_of(message: dict[str, Any], model: str) -> Generation:
    """A Messages API message as a reply: its text blocks joined, its token counts."""
    blocks = message.get("content")
    if not isinstance(blocks, list):
        raise ModelError("the message has no content", kind="bad_response")
    text = "".join(
        str(block.get("text", ""))
        for block in blocks
        if isinstance(block, dict) and block.get("type") == "text"
    )
    counts = message.get("usage")
    usage = counts if isinstance(counts, dict) else {}
    return Generation(
        text=text,
        usage=Usage(
            input_tokens=int(usage.get("input_tokens") or 0),
            output_tokens=int(usage.get("output_tokens") or 0),
        ),
        model=str(message.get("model") or model),
    )

"""A provider for any OpenAI-compatible HTTP server.

One implementation serves OpenAI, Azure OpenAI's ``/v1`` endpoint, vLLM, Ollama,
LM Studio, the llama.cpp server and TGI: they all speak ``/chat/completions`` and
``/embeddings``. It talks HTTP through :mod:`httpx2` directly, so there are no hidden
retries: one :meth:`OpenAIProvider.complete` call is exactly one request, and every
failure becomes a :class:`~ragjudge.models.ModelError` of the right kind for the
layer around it to retry or report.

Error messages name the URL without credentials and never hold the key in use (nor a
header value, nor a key-like query value of the base URL), even when the server
echoes it; redirects are not followed, so the key is only ever sent to the
configured server.
"""

from __future__ import annotations

import asyncio
import email.utils
import json
import os
import threading
import time
import weakref
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any
from urllib.parse import urlparse

from ragjudge._util.bodies import ACCEPT_ENCODING
from ragjudge._util.redact import header_secrets, scrub_text, scrub_url, url_secrets
from ragjudge._util.urls import join_path
from ragjudge.models._send_times import trace_departure
from ragjudge.models._settings import DEFAULT_MAX_REPLY_BYTES
from ragjudge.models._types import (
    ChatMessage,
    EmbeddingResult,
    GenerateConfig,
    Generation,
    ModelError,
    TokenLogprob,
    TopLogprob,
)
from ragjudge.schema import Usage

if TYPE_CHECKING:  # imported where a request is made: a run without a judge needs none
    import httpx2

    from ragjudge.models._lean_http import LeanClient

EMBEDDING_REPLY_BYTES = 64 * 1024
"""What an embeddings reply may hold beyond the cap per text embedded: a vector of
3,072 numbers written out in full."""
ERROR_BYTES = 64 * 1024
"""Bytes of an error reply read to quote the server's message."""

OPENAI_BASE_URL = "https://api.openai.com/v1"
LOCAL_API_KEY = "ragjudge-no-key"
"""Sent when no key is configured and the server is not OpenAI's (local servers
accept any key)."""


def resolve_base_url(base_url: str | None = None) -> str:
    """The base URL an OpenAI-compatible provider uses: ``base_url``, else
    ``OPENAI_BASE_URL``, else OpenAI's; without a trailing slash."""
    url = base_url or os.environ.get("OPENAI_BASE_URL") or OPENAI_BASE_URL
    return url.rstrip("/")


def scrub_error(error: ModelError, secrets: list[str]) -> ModelError:
    """``error`` with its message scrubbed (:func:`ragjudge._util.redact.scrub_text`): no
    URL credentials, no key-like query values, none of ``secrets``."""
    message = scrub_text(str(error), secrets)
    if message == str(error):
        return error
    return ModelError(message, kind=error.kind, status=error.status, retry_after=error.retry_after)


def parse_retry_after(headers: Mapping[str, str], *, now: float | None = None) -> float | None:
    """Seconds to wait from ``Retry-After-Ms``, or ``Retry-After`` given as seconds
    or as an HTTP date. ``None`` when absent or unreadable."""
    millis = headers.get("retry-after-ms")
    if millis is not None:
        try:
            return max(0.0, float(millis) / 1000.0)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    current = time.time() if now is None else now
    return max(0.0, when.timestamp() - current)


def _error_detail(text: str) -> str:
    """The server's error message, or the start of the body."""
    try:
        body = json.loads(text)
    except ValueError:
        return text[:300].strip()
    if isinstance(body, dict):
        error = body.get("error")
        if isinstance(error, dict) and isinstance(error.get("message"), str):
            return str(error["message"])
        if isinstance(error, str):
            return error
        if isinstance(body.get("detail"), str):
            return str(body["detail"])
    return text[:300].strip()


def error_from_status(response: httpx2.Response, body: bytes) -> ModelError:
    """Map a non-2xx response (``body``: the start of its body) to a :class:`ModelError`:
    429 → ``rate_limit`` with its ``Retry-After``, 408 → ``timeout``, 5xx → ``server``,
    other 4xx → ``client``."""
    status = response.status_code
    detail = _error_detail(body.decode("utf-8", errors="replace"))
    where = scrub_url(str(response.request.url))
    message = f"HTTP {status} from {where}: {detail}".rstrip(": ")
    retry_after = parse_retry_after(response.headers)
    if status == 429:
        return ModelError(message, kind="rate_limit", status=status, retry_after=retry_after)
    if status == 408:
        return ModelError(message, kind="timeout", status=status, retry_after=retry_after)
    if status >= 500:
        return ModelError(message, kind="server", status=status, retry_after=retry_after)
    return ModelError(message, kind="client", status=status)


def error_from_transport(exc: httpx2.HTTPError, url: str) -> ModelError:
    """Map an httpx2 transport failure to a :class:`ModelError`."""
    import httpx2

    name = type(exc).__name__
    url = scrub_url(url)
    if isinstance(exc, httpx2.TimeoutException):
        return ModelError(f"request to {url} timed out ({name})", kind="timeout")
    if isinstance(exc, httpx2.RemoteProtocolError):
        return ModelError(f"incomplete response from {url}: {exc}", kind="bad_response")
    if isinstance(exc, httpx2.DecodingError):
        return ModelError(f"undecodable response from {url}: {exc}", kind="bad_response")
    if isinstance(exc, httpx2.TransportError):
        return ModelError(f"cannot reach {url}: {name}: {exc}", kind="connection")
    return ModelError(f"request to {url} failed: {name}: {exc}", kind="client")


def _json_body(response: httpx2.Response, content: bytes) -> dict[str, Any]:
    try:
        body = json.loads(content)
    except ValueError as exc:
        where = scrub_url(str(response.request.url))
        raise ModelError(
            f"response from {where} is not valid JSON ({len(content)} bytes): {exc}",
            kind="bad_response",
            status=response.status_code,
        ) from exc
    if not isinstance(body, dict):
        where = scrub_url(str(response.request.url))
        raise ModelError(
            f"response from {where} is not a JSON object",
            kind="bad_response",
            status=response.status_code,
        )
    if "error" in body and "choices" not in body and "data" not in body:
        raise ModelError(
            f"server returned an error: {body['error']}",
            kind="server",
            status=response.status_code,
        )
    return body


def _usage(body: Mapping[str, Any]) -> Usage:
    raw = body.get("usage")
    if not isinstance(raw, dict):
        return Usage()
    return Usage(
        input_tokens=int(raw.get("prompt_tokens") or 0),
        output_tokens=int(raw.get("completion_tokens") or 0),
    )


def _message_text(body: Mapping[str, Any]) -> str:
    """The first choice's message content, or a ``bad_response`` error."""
    choices = body.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        raise ModelError("response holds no choices", kind="bad_response")
    message = choices[0].get("message")
    content = message.get("content") if isinstance(message, dict) else None
    if isinstance(content, list):  # content parts
        content = "".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    if not isinstance(content, str):
        refusal = message.get("refusal") if isinstance(message, dict) else None
        reason = f"the model refused: {refusal}" if refusal else "no message content"
        raise ModelError(f"response holds {reason}", kind="bad_response")
    return content


def _token_logprobs(body: Mapping[str, Any]) -> tuple[TokenLogprob, ...] | None:
    """The first choice's ``logprobs.content``: each reply token with its log
    probability and the most likely tokens at its place; None when the endpoint sent
    none or sent them in a form not read here (the caller then does without)."""
    choices = body.get("choices")
    first = choices[0] if isinstance(choices, list) and choices else None
    logprobs = first.get("logprobs") if isinstance(first, dict) else None
    content = logprobs.get("content") if isinstance(logprobs, dict) else None
    if not isinstance(content, list) or not content:
        return None
    try:
        return tuple(
            TokenLogprob(
                token=str(item["token"]),
                logprob=float(item["logprob"]),
                top=tuple(
                    TopLogprob(token=str(t["token"]), logprob=float(t["logprob"]))
                    for t in item.get("top_logprobs") or ()
                ),
            )
            for item in content
        )
    except (KeyError, TypeError, ValueError, AttributeError):
        return None


class OpenAIProvider:
    """One OpenAI-compatible endpoint and model.

    ``base_url`` and ``api_key`` default to ``OPENAI_BASE_URL`` / ``OPENAI_API_KEY``; a
    query string of the base URL (Azure's ``?api-version=…``) goes with every request,
    after the endpoint's path;
    a server other than OpenAI's gets a dummy key when none is set. One
    :class:`httpx2.AsyncClient` is created lazily per event loop and reused.
    :attr:`endpoint` is the base URL without credentials (it is part of every cache
    key and of the stored run record).
    """

    name = "openai"

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        timeout: float = 60.0,
        headers: Mapping[str, str] | None = None,
        max_reply_bytes: int = DEFAULT_MAX_REPLY_BYTES,
    ) -> None:
        self.model = model
        self.base_url = resolve_base_url(base_url)
        self.timeout = timeout
        self.max_reply_bytes = max_reply_bytes
        host = urlparse(self.base_url).hostname or ""
        self._is_openai = host == "api.openai.com"
        self._is_azure = host.endswith(".openai.azure.com")
        key = api_key or os.environ.get("OPENAI_API_KEY")
        self._api_key = key or (None if self._is_openai else LOCAL_API_KEY)
        self._headers = dict(headers or {})
        self._secrets = [
            *([self._api_key] if self._api_key else []),
            *header_secrets(self._headers),
            *url_secrets(self.base_url),
        ]
        self._clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, LeanClient]
        self._clients = weakref.WeakKeyDictionary()
        self._clients_lock = threading.Lock()
        self._endpoint = ("", "")

    def __repr__(self) -> str:
        return f"OpenAIProvider(model={self.model!r}, base_url={self.endpoint!r})"

    @property
    def endpoint(self) -> str:
        """The base URL without credentials or key-like query values (kept for the
        base URL it was made from: every call's cache key names it)."""
        made_from, scrubbed = self._endpoint
        if made_from != self.base_url:
            scrubbed = scrub_url(self.base_url)
            self._endpoint = (self.base_url, scrubbed)
        return scrubbed

    @property
    def secrets(self) -> list[str]:
        """The credentials it sends: its key (not the stand-in for local servers), the
        credential header values and the secrets written in its base URL."""
        return [s for s in self._secrets if s != LOCAL_API_KEY]

    @property
    def has_credentials(self) -> bool:
        """Whether requests can be sent: a key is set, or the server is not OpenAI's
        (local servers get a dummy key)."""
        return self._api_key is not None

    async def complete(self, messages: list[ChatMessage], config: GenerateConfig) -> Generation:
        """Send one chat-completions request and return its first choice."""
        started = time.perf_counter()
        payload = self._chat_payload(messages, config)
        body = await self._post("/chat/completions", payload, self.max_reply_bytes)
        text = _message_text(body)
        return Generation(
            text=text,
            usage=_usage(body),
            model=str(body.get("model") or self.model),
            latency=time.perf_counter() - started,
            logprobs=_token_logprobs(body) if config.logprobs else None,
        )

    async def embed(self, texts: list[str]) -> EmbeddingResult:
        """Embed ``texts`` with one ``/embeddings`` request (its reply may hold
        :data:`EMBEDDING_REPLY_BYTES` more per text than ``max_reply_bytes``)."""
        payload = {"model": self.model, "input": texts}
        cap = self.max_reply_bytes + EMBEDDING_REPLY_BYTES * len(texts)
        body = await self._post("/embeddings", payload, cap)
        data = body.get("data")
        if not isinstance(data, list) or len(data) != len(texts):
            raise ModelError(
                f"embeddings response holds {len(data) if isinstance(data, list) else 0}"
                f" vectors for {len(texts)} texts",
                kind="bad_response",
            )
        try:
            ordered = sorted(data, key=lambda item: int(item.get("index", 0)))
            vectors = [[float(x) for x in item["embedding"]] for item in ordered]
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise ModelError(f"malformed embeddings response: {exc}", kind="bad_response") from exc
        return EmbeddingResult(
            vectors=vectors, usage=_usage(body), model=str(body.get("model") or self.model)
        )

    async def aclose(self) -> None:
        """Close the HTTP client of the running loop (a new one opens on next use)."""
        loop = asyncio.get_running_loop()
        with self._clients_lock:
            client = self._clients.pop(loop, None)
        if client is not None:
            await client.aclose()

    # internals ------------------------------------------------------------

    def _chat_payload(self, messages: list[ChatMessage], config: GenerateConfig) -> dict[str, Any]:
        payload: dict[str, Any] = {"model": self.model, "messages": messages}
        options = config.model_dump(exclude_none=True)
        if "stop" in options:
            options["stop"] = list(options["stop"])
        if self._is_openai and "max_tokens" in options:
            # OpenAI's reasoning models accept only the newer name; all its models do.
            options["max_completion_tokens"] = options.pop("max_tokens")
        payload.update(options)
        return payload

    def _client(self) -> LeanClient:
        loop = asyncio.get_running_loop()
        with self._clients_lock:
            client = self._clients.get(loop)
            if client is None or client.is_closed:
                client = self._new_client()
                self._clients[loop] = client
        return client

    def _new_client(self) -> LeanClient:
        import httpx2

        from ragjudge.models._lean_http import lean_client

        headers = {
            "Content-Type": "application/json",
            "Accept-Encoding": ACCEPT_ENCODING,
            **self._headers,
        }
        if self._api_key:
            headers["Authorization"] = f"Bearer {self._api_key}"
            if self._is_azure:  # Azure OpenAI keys travel in their own header
                headers["api-key"] = self._api_key
        return lean_client(
            self.base_url,
            headers=headers,
            timeout=httpx2.Timeout(self.timeout, connect=min(self.timeout, 10.0)),
            verify=not never_tls(self.base_url),
        )

    async def _post(self, path: str, payload: dict[str, Any], cap: int) -> dict[str, Any]:
        if not self.has_credentials:
            raise ModelError(
                "no API key for OpenAI: set OPENAI_API_KEY or pass api_key", kind="client"
            )
        try:
            return await self._exchange(path, payload, cap)
        except ModelError as exc:
            # Raised without its cause: the transport's exception may name the key.
            raise scrub_error(exc, self._secrets) from None

    async def _exchange(self, path: str, payload: dict[str, Any], cap: int) -> dict[str, Any]:
        """One request; its body is read as it arrives and no further than ``cap``
        bytes (decoded): a longer reply, or one that never ends, is a ``too_large``
        error and its connection is closed."""
        import httpx2

        from ragjudge._util.bodies import BodyTooLarge, BodyUndecodable, read_body, read_start

        url = join_path(self.base_url, path)  # before the base URL's query, if any
        client = self._client()
        try:
            request = client.build_request("POST", url, json=payload)
            trace_departure(request.extensions)
            response = await client.send(request)
            try:
                if response.status_code >= 300:
                    raise error_from_status(response, await read_start(response, ERROR_BYTES))
                content = await read_body(response, cap)
            finally:
                await response.aclose()
        except httpx2.HTTPError as exc:
            raise error_from_transport(exc, url) from exc
        except BodyTooLarge:
            message = f"reply from {scrub_url(url)} larger than {cap} bytes (max_reply_bytes)"
            raise ModelError(message, kind="too_large") from None
        except BodyUndecodable as exc:
            message = f"undecodable response from {scrub_url(url)}: {exc}"
            raise ModelError(message, kind="bad_response") from None
        return _json_body(response, content)


def never_tls(base_url: str) -> bool:
    """Whether a client for ``base_url`` never speaks TLS: a plain-HTTP endpoint (a
    local vLLM or Ollama) reached without a proxy (redirects are not followed). Its
    client then skips loading the certificate store."""
    from urllib.request import getproxies

    return urlparse(base_url).scheme == "http" and not getproxies()

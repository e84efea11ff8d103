"""JSON over HTTP with a timeout per attempt, bounded retries of the failures a
retry can cure (HTTP 429, 408, 5xx, timeouts, connection errors), a cap on the size of
a reply, redirects that never carry the configured headers to another origin, and
messages that hold no secret."""

from __future__ import annotations

import asyncio
import json
import random
import re
import threading
import weakref
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import httpx2

from ragjudge._util.bodies import (
    ACCEPT_ENCODING,
    BodyTooLarge,
    BodyUndecodable,
    read_body,
    read_start,
)
from ragjudge._util.redact import header_secrets, is_secret_name, scrub_text, scrub_url, url_secrets
from ragjudge.models._openai import parse_retry_after
from ragjudge.targets._targets import DEFAULT_MAX_REPLY_BYTES, TargetError, TargetSetupError

EXCERPT_CHARS = 200
MAX_BACKOFF = 20.0
MAX_RETRY_AFTER = 60.0
"""A ``Retry-After`` longer than this ends the retries instead of stalling the run."""
MAX_REDIRECTS = 5
ERROR_BODY_BYTES = 16 * 1024
"""How much of an error page is read, to quote its start."""
_REDIRECTS = (301, 302, 303, 307, 308)
_DEFAULT_PORTS = {"http": 80, "https": 443}


class HttpCallError(TargetError, RuntimeError):
    """An HTTP request that failed for good (after its retries, or at once when a
    retry cannot help)."""

    def __init__(self, message: str, *, url: str, attempts: int, status: int | None = None) -> None:
        super().__init__(message)
        self.url = url
        self.attempts = attempts
        self.status = status


@dataclass
class HttpReply:
    """A successful response, parsed as JSON, and how many attempts it took."""

    url: str
    status: int
    body: Any
    attempts: int
    retried: list[str] = field(default_factory=list)
    """Why each earlier attempt failed."""

    def trace(self) -> dict[str, Any]:
        """The ``Output.trace`` entry for this exchange."""
        return {
            "http": {
                "url": self.url,
                "status": self.status,
                "attempts": self.attempts,
                "retried": self.retried,
            }
        }


class _Failure(Exception):
    """One failed attempt: whether a retry may cure it, and how long to wait."""

    def __init__(
        self,
        message: str,
        *,
        retryable: bool,
        status: int | None = None,
        retry_after: float | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.retryable = retryable
        self.status = status
        self.retry_after = retry_after


class HttpClient:
    """JSON over HTTP with timeouts, bounded retries and a cap on the reply.

    One :class:`httpx2.AsyncClient` is created lazily in each running event loop and
    reused for every request made in that loop. ``timeout`` bounds each attempt as a
    whole (connecting, waiting, following redirects and reading); ``max_retries`` is
    the number of retries after the first attempt; the wait before retry ``n`` is
    ``Retry-After`` when the server sends it, else ``backoff * 2**(n-1)`` seconds with
    jitter.

    A body larger than ``max_reply_bytes`` once decoded (decompressed) fails the
    request as soon as the cap is passed; it is not read further, nor retried.
    Redirects (at most :data:`MAX_REDIRECTS`) are followed here, not by httpx2, so
    that the configured ``headers`` — keys, tokens, whatever was configured — go
    only to the origin (scheme, host, port) of the URL asked for, or to its HTTPS
    form; a hop to another origin is made without them. Messages (errors and the
    reasons for retries) show URLs without credentials or key-like query values and
    hold none of the configured header values.
    """

    def __init__(
        self,
        *,
        headers: Mapping[str, str] | None = None,
        timeout: float = 60.0,
        max_retries: int = 2,
        backoff: float = 0.5,
        max_reply_bytes: int = DEFAULT_MAX_REPLY_BYTES,
    ) -> None:
        if timeout <= 0:
            raise TargetSetupError(f"timeout must be positive, got {timeout}")
        if max_retries < 0:
            raise TargetSetupError(f"max_retries must not be negative, got {max_retries}")
        if max_reply_bytes <= 0:
            raise TargetSetupError(f"max_reply_bytes must be positive, got {max_reply_bytes}")
        self.headers = dict(headers or {})
        self.timeout = timeout
        self.max_retries = max_retries
        self.backoff = backoff
        self.max_reply_bytes = max_reply_bytes
        self.secrets = header_secrets(self.headers)
        """The configured header values, kept out of every message."""
        self._clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, httpx2.AsyncClient]
        self._clients = weakref.WeakKeyDictionary()
        self._lock = threading.Lock()

    def scrub(self, text: str, url: str = "") -> str:
        """``text`` without URL credentials, key-like values, the configured header
        values or the secrets written in ``url``."""
        return scrub_text(text, [*self.secrets, *url_secrets(url)])

    async def request_json(
        self,
        method: str,
        url: str,
        *,
        json_body: Any = None,
        params: Mapping[str, str] | None = None,
    ) -> HttpReply:
        """Send the request, retrying what a retry can cure; the JSON reply or
        :class:`HttpCallError`."""
        secrets = [*self.secrets, *url_secrets(url), *_parameter_secrets(params)]
        shown = scrub_url(url)
        retried: list[str] = []
        attempts = self.max_retries + 1
        for attempt in range(1, attempts + 1):
            try:
                response, body = await self._attempt(method, url, json_body, params)
            except _Failure as failure:
                failure.message = scrub_text(failure.message, secrets)
                wait = self._wait_before_retry(attempt, failure.retry_after)
                if not failure.retryable or attempt == attempts or wait is None:
                    raise _final_error(failure, shown, attempt, wait is None) from None
                retried.append(failure.message)
                await asyncio.sleep(wait)
                continue
            parsed = _parse_json(response, body, shown, attempt, secrets)
            return HttpReply(shown, response.status_code, parsed, attempt, retried)
        raise AssertionError("unreachable: the loop returns or raises")

    async def aclose(self) -> None:
        """Close the running loop's client (a new one opens on next use)."""
        with self._lock:
            client = self._clients.pop(asyncio.get_running_loop(), None)
        if client is not None:
            await client.aclose()

    async def _attempt(
        self, method: str, url: str, json_body: Any, params: Mapping[str, str] | None
    ) -> tuple[httpx2.Response, bytes]:
        shown = scrub_url(url)
        try:
            # httpx2's timeout is per network operation; this bounds the whole attempt,
            # so a server that trickles bytes cannot hold a sample forever.
            async with asyncio.timeout(self.timeout):
                return await self._exchange(method, url, json_body, params)
        except (TimeoutError, httpx2.TimeoutException):
            raise _Failure(
                f"no response from {shown} within {self.timeout:g} s", retryable=True
            ) from None
        except BodyTooLarge:
            raise _Failure(
                f"reply larger than {self.max_reply_bytes} bytes (max_reply_bytes) from {shown}",
                retryable=False,
            ) from None
        except (BodyUndecodable, httpx2.DecodingError) as exc:
            raise _Failure(f"undecodable response from {shown}: {exc}", retryable=False) from None
        except httpx2.UnsupportedProtocol as exc:
            raise _Failure(f"cannot request {shown}: {exc}", retryable=False) from None
        except httpx2.TransportError as exc:
            raise _Failure(
                f"cannot reach {shown}: {type(exc).__name__}: {exc}", retryable=True
            ) from None

    async def _exchange(
        self, method: str, url: str, json_body: Any, params: Mapping[str, str] | None
    ) -> tuple[httpx2.Response, bytes]:
        """One request and its redirects: the final response (closed) and its body."""
        client = self._client()
        request = client.build_request(
            method, url, json=json_body, params=params, headers=self.headers
        )
        origin = _origin(request.url)
        left_origin = False
        for _ in range(MAX_REDIRECTS + 1):
            response = await client.send(request, stream=True)
            try:
                if response.status_code in _REDIRECTS and "location" in response.headers:
                    request = self._redirected(client, request, response, origin)
                    left_origin = left_origin or not _same_origin(request.url, origin)
                    continue
                if response.status_code >= 300:
                    page = await read_start(response, ERROR_BODY_BYTES)
                    raise _status_failure(response, page, left_origin)
                return response, await read_body(response, self.max_reply_bytes)
            finally:
                await response.aclose()
        raise _Failure(
            f"more than {MAX_REDIRECTS} redirects from {scrub_url(url)}", retryable=False
        )

    def _redirected(
        self,
        client: httpx2.AsyncClient,
        request: httpx2.Request,
        response: httpx2.Response,
        origin: tuple[str, str, int],
    ) -> httpx2.Request:
        """The request a redirect asks for: 303 (and 301/302 after a POST) turn into
        a GET without a body; the configured headers stay behind on another origin."""
        url = request.url.join(response.headers["location"])
        method, content = request.method, request.content
        status = response.status_code
        if (status == 303 and method != "HEAD") or (status in (301, 302) and method == "POST"):
            method, content = "GET", b""
        headers = dict(self.headers) if _same_origin(url, origin) else {}
        if content:
            headers["Content-Type"] = request.headers.get("content-type", "application/json")
        return client.build_request(method, url, content=content or None, headers=headers)

    def _wait_before_retry(self, attempt: int, retry_after: float | None) -> float | None:
        """Seconds to wait before the next attempt; None when the server asks for
        longer than :data:`MAX_RETRY_AFTER`."""
        if retry_after is not None:
            return retry_after if retry_after <= MAX_RETRY_AFTER else None
        delay = min(MAX_BACKOFF, self.backoff * 2.0 ** (attempt - 1))
        return delay * random.uniform(0.5, 1.0)

    def _client(self) -> httpx2.AsyncClient:
        loop = asyncio.get_running_loop()
        with self._lock:
            client = self._clients.get(loop)
            if client is None or client.is_closed:
                client = httpx2.AsyncClient(
                    headers={"Accept-Encoding": ACCEPT_ENCODING},
                    timeout=httpx2.Timeout(self.timeout, connect=min(self.timeout, 10.0)),
                    follow_redirects=False,
                    limits=httpx2.Limits(max_connections=256, max_keepalive_connections=64),
                )
                self._clients[loop] = client
        return client


def _origin(url: httpx2.URL) -> tuple[str, str, int]:
    scheme = url.scheme.lower()
    return scheme, url.host.lower(), url.port or _DEFAULT_PORTS.get(scheme, 0)


def _same_origin(url: httpx2.URL, origin: tuple[str, str, int]) -> bool:
    """Whether ``url`` is on ``origin``, or is its HTTPS form (same host, default
    ports): the configured headers may go there."""
    target = _origin(url)
    if target == origin:
        return True
    upgrade = ("http", origin[1], 80), ("https", origin[1], 443)
    return (origin, target) == upgrade


def _parameter_secrets(params: Mapping[str, str] | None) -> list[str]:
    """The values of key-like query parameters, kept out of messages."""
    return [v for k, v in (params or {}).items() if v and is_secret_name(k)]


def _status_failure(response: httpx2.Response, page: bytes, left_origin: bool) -> _Failure:
    status = response.status_code
    retryable = status in (408, 429) or status >= 500
    note = " (redirected to another origin, without the configured headers)" if left_origin else ""
    text = excerpt(_text(response, page)) or "(empty body)"
    return _Failure(
        f"HTTP {status} from {scrub_url(str(response.url))}{note}: {text}",
        retryable=retryable,
        status=status,
        retry_after=parse_retry_after(response.headers) if retryable else None,
    )


def _final_error(failure: _Failure, url: str, attempts: int, wait_too_long: bool) -> HttpCallError:
    note = f" ({attempts} attempt{'s' if attempts > 1 else ''})"
    if wait_too_long:
        note += f"; the server asked to retry after more than {MAX_RETRY_AFTER:g} s"
    return HttpCallError(failure.message + note, url=url, attempts=attempts, status=failure.status)


def _parse_json(
    response: httpx2.Response, body: bytes, url: str, attempts: int, secrets: list[str]
) -> Any:
    try:
        return json.loads(body)
    except ValueError:
        quoted = excerpt(_text(response, body)) or "(empty body)"
        message = (
            f"response from {url} is not JSON (HTTP {response.status_code}, "
            f"{len(body)} bytes): {quoted}"
        )
        raise HttpCallError(
            scrub_text(message, secrets),
            url=url,
            attempts=attempts,
            status=response.status_code,
        ) from None


def _text(response: httpx2.Response, body: bytes) -> str:
    """``body`` as text in the response's charset (UTF-8 when unknown)."""
    try:
        return body.decode(response.charset_encoding or "utf-8", errors="replace")
    except LookupError:
        return body.decode("utf-8", errors="replace")


def excerpt(text: str, limit: int = EXCERPT_CHARS) -> str:
    """``text`` on one line, cut to ``limit`` characters."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def check_url(url: str) -> str:
    """``url`` when it is an http(s) URL naming a host; raises
    :class:`~ragjudge.errors.TargetSetupError` otherwise."""
    if not re.match(r"https?://[^/\s]+", url):
        shown = scrub_url(url)
        raise TargetSetupError(f"URL {shown!r} must start with http:// or https:// and name a host")
    return url

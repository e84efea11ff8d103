"""JSON over HTTP with a timeout per attempt and bounded retries of the failures a
retry can cure (HTTP 429, 408, 5xx, timeouts, connection errors)."""

from __future__ import annotations

import asyncio
import random
import re
import threading
import weakref
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import httpx

from ragjudge.models.openai_provider import parse_retry_after
from ragjudge.targets import TargetError

EXCERPT_CHARS = 200
MAX_BACKOFF = 20.0
MAX_RETRY_AFTER = 60.0
"""A ``Retry-After`` longer than this ends the retries instead of stalling the run."""


class HttpCallError(RuntimeError):
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
    """JSON over HTTP with timeouts and bounded retries.

    One :class:`httpx.AsyncClient` is created lazily in each running event loop and
    reused for every request made in that loop. ``timeout`` bounds each attempt as a
    whole (connecting, waiting and reading); ``max_retries`` is the number of retries
    after the first attempt; the wait before retry ``n`` is ``Retry-After`` when the
    server sends it, else ``backoff * 2**(n-1)`` seconds with jitter.
    """

    def __init__(
        self,
        *,
        headers: Mapping[str, str] | None = None,
        timeout: float = 60.0,
        max_retries: int = 2,
        backoff: float = 0.5,
    ) -> None:
        if timeout <= 0:
            raise TargetError(f"timeout must be positive, got {timeout}")
        if max_retries < 0:
            raise TargetError(f"max_retries must not be negative, got {max_retries}")
        self.headers = dict(headers or {})
        self.timeout = timeout
        self.max_retries = max_retries
        self.backoff = backoff
        self._clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, httpx.AsyncClient]
        self._clients = weakref.WeakKeyDictionary()
        self._lock = threading.Lock()

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
        retried: list[str] = []
        attempts = self.max_retries + 1
        for attempt in range(1, attempts + 1):
            try:
                response = await self._attempt(method, url, json_body, params)
            except _Failure as failure:
                wait = self._wait_before_retry(attempt, failure.retry_after)
                if not failure.retryable or attempt == attempts or wait is None:
                    raise _final_error(failure, url, attempt, wait is None) from None
                retried.append(failure.message)
                await asyncio.sleep(wait)
                continue
            body = _parse_json(response, url, attempt)
            return HttpReply(url, response.status_code, body, attempt, retried)
        raise AssertionError("unreachable: the loop returns or raises")

    async def aclose(self) -> None:
        """Close the running loop's client (a new one opens on next use)."""
        with self._lock:
            client = self._clients.pop(asyncio.get_running_loop(), None)
        if client is not None:
            await client.aclose()

    async def _attempt(
        self, method: str, url: str, json_body: Any, params: Mapping[str, str] | None
    ) -> httpx.Response:
        try:
            # httpx's timeout is per network operation; this bounds the whole attempt,
            # so a server that trickles bytes cannot hold a sample forever.
            async with asyncio.timeout(self.timeout):
                response = await self._client().request(method, url, json=json_body, params=params)
        except (TimeoutError, httpx.TimeoutException):
            raise _Failure(
                f"no response from {url} within {self.timeout:g} s", retryable=True
            ) from None
        except httpx.UnsupportedProtocol as exc:
            raise _Failure(f"cannot request {url}: {exc}", retryable=False) from None
        except httpx.TransportError as exc:
            raise _Failure(
                f"cannot reach {url}: {type(exc).__name__}: {exc}", retryable=True
            ) from None
        if response.status_code >= 300:
            raise _status_failure(response, url)
        return response

    def _wait_before_retry(self, attempt: int, retry_after: float | None) -> float | None:
        """Seconds to wait before the next attempt; None when the server asks for
        longer than :data:`MAX_RETRY_AFTER`."""
        if retry_after is not None:
            return retry_after if retry_after <= MAX_RETRY_AFTER else None
        delay = min(MAX_BACKOFF, self.backoff * 2.0 ** (attempt - 1))
        return delay * random.uniform(0.5, 1.0)

    def _client(self) -> httpx.AsyncClient:
        loop = asyncio.get_running_loop()
        with self._lock:
            client = self._clients.get(loop)
            if client is None or client.is_closed:
                client = httpx.AsyncClient(
                    headers=self.headers,
                    timeout=httpx.Timeout(self.timeout, connect=min(self.timeout, 10.0)),
                    follow_redirects=True,
                    limits=httpx.Limits(max_connections=256, max_keepalive_connections=64),
                )
                self._clients[loop] = client
        return client


def _status_failure(response: httpx.Response, url: str) -> _Failure:
    status = response.status_code
    retryable = status in (408, 429) or status >= 500
    return _Failure(
        f"HTTP {status} from {url}: {excerpt(response.text) or '(empty body)'}",
        retryable=retryable,
        status=status,
        retry_after=parse_retry_after(response.headers) if retryable else None,
    )


def _final_error(failure: _Failure, url: str, attempts: int, wait_too_long: bool) -> HttpCallError:
    note = f" ({attempts} attempt{'s' if attempts > 1 else ''})"
    if wait_too_long:
        note += f"; the server asked to retry after more than {MAX_RETRY_AFTER:g} s"
    return HttpCallError(failure.message + note, url=url, attempts=attempts, status=failure.status)


def _parse_json(response: httpx.Response, url: str, attempts: int) -> Any:
    try:
        return response.json()
    except ValueError:
        raise HttpCallError(
            f"response from {url} is not JSON (HTTP {response.status_code}, "
            f"{len(response.content)} bytes): {excerpt(response.text) or '(empty body)'}",
            url=url,
            attempts=attempts,
            status=response.status_code,
        ) from None


def excerpt(text: str, limit: int = EXCERPT_CHARS) -> str:
    """``text`` on one line, cut to ``limit`` characters."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def check_url(url: str) -> str:
    """``url`` when it is an http(s) URL naming a host; raises TargetError otherwise."""
    if not re.match(r"https?://[^/\s]+", url):
        raise TargetError(f"URL {url!r} must start with http:// or https:// and name a host")
    return url

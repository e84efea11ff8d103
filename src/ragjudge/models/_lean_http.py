"""The HTTP client of the OpenAI-compatible and Anthropic providers: an
``httpx2.AsyncClient`` whose requests go straight to its connection pool unless a proxy
or credentials in the base URL need the client's own handling.

httpx2 is the maintained fork of httpx. Its connection pool hands a request a
connection in one pass over its connections; httpx's pool (httpcore 1) scans them again
for each idle one, so with dozens of connections open (a run's first burst of calls) it
took a large share of the run's own time.

``AsyncClient.send`` takes every request through the client's auth flow, redirect
handling, cookie jar, event hooks and response wrapping. A judge call needs none of
them: its key travels in a header, redirects are not followed, and the API answers
each request on its own (a cookie a load balancer sets is not sent back). Those layers
are a large share of what the judge layer adds to a call
(``benchmarks/call_overhead.py``), so :class:`LeanClient` hands a request built by the
client (headers, timeouts) to the client's transport directly. When the environment
names a proxy (``HTTP_PROXY`` and the like, also ``NO_PROXY``), the client is left to
route every request through its proxy mounts as usual; credentials in the base URL
(``http://user:pw@host/v1``) are left to its auth flow, which sends them as a Basic
header.

Imported where a request is made: a run without a judge never imports httpx2.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from urllib.parse import urlparse
from urllib.request import getproxies

import httpx2

from ragjudge.models._concurrency import AUTO_CEILING
from ragjudge.models._connections import asyncio_transport

__all__ = ["JUDGE_LIMITS", "LeanClient", "lean_client"]

_KEPT_URLS = 16

JUDGE_LIMITS = httpx2.Limits(max_connections=AUTO_CEILING, max_keepalive_connections=64)
"""A connection for every call the judge may keep in flight (so none queues in the pool
unseen by the limiter), and 64 of them kept open between bursts."""


@dataclass(frozen=True)
class LeanClient:
    """``client``, and the transport its requests are handed to directly (None: each
    goes through ``client.send``)."""

    client: httpx2.AsyncClient
    direct: httpx2.AsyncBaseTransport | None
    _urls: dict[str, httpx2.URL] = field(default_factory=dict, init=False, repr=False)
    """The URLs requested, each parsed once: httpx2 parses a URL given as text again
    for every request built with it."""

    @property
    def is_closed(self) -> bool:
        """Whether the client was closed (its transport with it)."""
        return self.client.is_closed

    def build_request(
        self,
        method: str,
        url: str,
        *,
        json: object = None,
        content: bytes | None = None,
        headers: dict[str, str] | None = None,
    ) -> httpx2.Request:
        """A request with the client's headers (and ``headers``) and timeouts, its body
        ``json`` or ``content``."""
        parsed = self._urls.get(url)
        if parsed is None:
            if len(self._urls) >= _KEPT_URLS:  # batch files and batches have URLs of their own
                self._urls.clear()
            parsed = self._urls[url] = httpx2.URL(url)
        return self.client.build_request(
            method, parsed, json=json, content=content, headers=headers
        )

    async def send(self, request: httpx2.Request) -> httpx2.Response:
        """Send ``request``; the response's body is left to be read (or closed)."""
        if self.direct is None:
            return await self.client.send(request, stream=True)
        response = await self.direct.handle_async_request(request)
        response.request = request
        return response

    async def aclose(self) -> None:
        """Close the client and its connections."""
        await self.client.aclose()


def lean_client(
    base_url: str,
    *,
    headers: dict[str, str],
    timeout: httpx2.Timeout,
    verify: bool,
    limits: httpx2.Limits = JUDGE_LIMITS,
) -> LeanClient:
    """A :class:`LeanClient` for requests to ``base_url``, sending ``headers`` with
    each, at most ``limits`` connections open. Unless the environment names a proxy or the base URL holds credentials (the
    client's auth flow sends those), the client is built on a transport of its own,
    whose connections are asyncio streams (:mod:`ragjudge.models._connections`;
    certificates from the system's store, or ``SSL_CERT_FILE``/``SSL_CERT_DIR``, as
    httpx2's client reads them), which requests are handed to directly."""
    parts = urlparse(base_url)
    if getproxies() or parts.username is not None or parts.password is not None:
        client = httpx2.AsyncClient(headers=headers, timeout=timeout, limits=limits, verify=verify)
        return LeanClient(client, None)
    transport = asyncio_transport(verify=verify, limits=limits)
    client = httpx2.AsyncClient(headers=headers, timeout=timeout, transport=transport)
    return LeanClient(client, transport)

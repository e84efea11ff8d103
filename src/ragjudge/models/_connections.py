"""The judge client's connections on asyncio's own streams.

httpx2's connection pool (httpcore2) opens its connections through a network backend,
by default anyio's sockets. Two of anyio's costs fall on every judge call:

* each time the pool hands out a connection it asks every idle connection whether the
  server has closed it, and anyio answers by building a table of all of the socket's
  attributes to read one of them: with the dozens of connections a run's first burst
  opens, dozens of tables per call;
* a write, a close, and a read whose data is already there each yield a turn of the
  event loop, and each read and write runs in a cancel scope for its timeout (so the
  first request after a long wait, which closes every connection that expired
  meanwhile, waits a turn per connection).

:class:`AsyncioBackend` opens connections with :func:`asyncio.open_connection` and
answers the pool's questions from the socket it keeps; :func:`asyncio_transport` is
an ``httpx2.AsyncHTTPTransport`` whose pool uses it. Timeouts and failures raise
httpcore2's exceptions, which the transport turns into httpx2's as for any backend.
"""

from __future__ import annotations

import asyncio
import select
import ssl
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any, Protocol

import httpcore2
import httpx2

__all__ = ["AsyncioBackend", "AsyncioStream", "asyncio_transport"]

HAPPY_EYEBALLS_DELAY = 0.25
"""Seconds before trying a host's next address while the first still connects (RFC
8305's recommended delay, and anyio's)."""


class _Descriptor(Protocol):
    def fileno(self) -> int: ...


@contextmanager
def _raised_as(
    timeout: type[httpcore2.TimeoutException], failure: type[httpcore2.NetworkError]
) -> Iterator[None]:
    """Raise a timeout as ``timeout`` and a socket or TLS failure as ``failure``."""
    try:
        yield
    except TimeoutError as exc:
        raise timeout(str(exc) or "timed out") from exc
    except OSError as exc:  # ssl.SSLError is one
        raise failure(str(exc) or type(exc).__name__) from exc


def _socket_readable(sock: _Descriptor | None) -> bool:
    """Whether ``sock`` has something to read, or is gone: on an idle connection, the
    server has closed it (or sent what no request asked for)."""
    if sock is None or sock.fileno() < 0:
        return True
    if hasattr(select, "poll"):
        poller = select.poll()
        poller.register(sock.fileno(), select.POLLIN)
        return bool(poller.poll(0))
    readable, _, _ = select.select([sock], [], [], 0)
    return bool(readable)


class AsyncioStream(httpcore2.AsyncNetworkStream):
    """One connection, plain or TLS, as an asyncio stream pair."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._reader = reader
        self._writer = writer
        self._socket: _Descriptor | None = writer.get_extra_info("socket")

    async def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        """Up to ``max_bytes`` bytes, ``b""`` once the server closed the connection."""
        with _raised_as(httpcore2.ReadTimeout, httpcore2.ReadError):
            async with asyncio.timeout(timeout):
                return await self._reader.read(max_bytes)

    async def write(self, buffer: bytes, timeout: float | None = None) -> None:
        """Send ``buffer``, waiting while the socket's buffer is full (a large body)."""
        if not buffer:
            return
        with _raised_as(httpcore2.WriteTimeout, httpcore2.WriteError):
            self._writer.write(buffer)
            async with asyncio.timeout(timeout):
                await self._writer.drain()  # also raises when the connection was lost

    async def aclose(self) -> None:
        """Close at once: the pool closes a connection it is done with (idle, expired
        or broken), so nothing written is left to flush, and no TLS goodbye is
        awaited."""
        self._writer.transport.abort()

    async def start_tls(
        self,
        ssl_context: ssl.SSLContext,
        server_hostname: str | None = None,
        timeout: float | None = None,
    ) -> AsyncioStream:
        """Upgrade this connection to TLS in place."""
        with _raised_as(httpcore2.ConnectTimeout, httpcore2.ConnectError):
            async with asyncio.timeout(timeout):
                await self._writer.start_tls(ssl_context, server_hostname=server_hostname)
        return self

    def get_extra_info(self, info: str) -> Any:
        """What the pool asks of a connection: ``is_readable`` (closed by the server
        while idle), ``ssl_object``, ``client_addr``, ``server_addr``, ``socket``."""
        if info == "is_readable":
            return _socket_readable(self._socket)
        if info == "socket":
            return self._socket
        if info == "client_addr":
            return self._writer.get_extra_info("sockname")
        if info == "server_addr":
            return self._writer.get_extra_info("peername")
        if info == "ssl_object":
            return self._writer.get_extra_info("ssl_object")
        return None


class AsyncioBackend(httpcore2.AsyncNetworkBackend):
    """Opens TCP connections with :func:`asyncio.open_connection` (both address
    families tried as anyio does); ``connections`` counts them."""

    def __init__(self) -> None:
        self.connections = 0

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[httpcore2.SOCKET_OPTION] | None = None,
    ) -> AsyncioStream:
        """A connection to ``host``:``port`` within ``timeout`` seconds."""
        local = None if local_address is None else (local_address, 0)
        with _raised_as(httpcore2.ConnectTimeout, httpcore2.ConnectError):
            async with asyncio.timeout(timeout):
                reader, writer = await asyncio.open_connection(
                    host, port, local_addr=local, happy_eyeballs_delay=HAPPY_EYEBALLS_DELAY
                )
        sock = writer.get_extra_info("socket")  # asyncio's stand-in for the socket
        if sock is not None:
            for option in socket_options or ():
                sock.setsockopt(*option)
        self.connections += 1
        return AsyncioStream(reader, writer)

    async def sleep(self, seconds: float) -> None:
        """Wait ``seconds`` (the pool's pause between connection retries)."""
        await asyncio.sleep(seconds)


class _AsyncioTransport(httpx2.AsyncHTTPTransport):
    """httpx2's transport with its connection pool on :class:`AsyncioBackend`.

    httpx2 builds its pool itself and offers no way to pass a network backend, so the
    pool is built again with the same settings and the backend; the transport reaches
    its pool by the attribute ``_pool``, which the tests check it still does."""

    def __init__(self, *, verify: bool, limits: httpx2.Limits) -> None:
        context = httpx2.create_ssl_context(verify=verify, trust_env=True)
        super().__init__(verify=context, limits=limits)
        self.backend = AsyncioBackend()
        self._pool = httpcore2.AsyncConnectionPool(
            ssl_context=context,
            max_connections=limits.max_connections,
            max_keepalive_connections=limits.max_keepalive_connections,
            keepalive_expiry=limits.keepalive_expiry,
            network_backend=self.backend,
        )


def asyncio_transport(*, verify: bool, limits: httpx2.Limits) -> httpx2.AsyncHTTPTransport:
    """An HTTP/1.1 transport whose connections are asyncio streams (certificates from
    the system's store, or ``SSL_CERT_FILE``/``SSL_CERT_DIR``, as httpx2 reads them;
    none checked when ``verify`` is false)."""
    return _AsyncioTransport(verify=verify, limits=limits)

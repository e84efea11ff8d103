"""The judge client's connections on asyncio's own streams (``models/_connections.py``):
requests through the provider's client travel over them, plain and TLS; an idle
connection the server closed is replaced, not reused; failures and timeouts are
httpx2's exceptions."""

from __future__ import annotations

import asyncio
import socket
import ssl
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import asynccontextmanager
from pathlib import Path

import httpx2
import pytest

from ragjudge.models._connections import AsyncioBackend
from ragjudge.models._lean_http import LeanClient, lean_client
from ragjudge.testing.server import OpenAITestServer
from served import running

Handler = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]


@asynccontextmanager
async def raw_server(handler: Handler, context: ssl.SSLContext | None = None) -> AsyncIterator[str]:
    """A loopback server answering each connection with ``handler``; its base URL."""
    server = await asyncio.start_server(handler, "127.0.0.1", 0, ssl=context)
    port = server.sockets[0].getsockname()[1]
    scheme = "http" if context is None else "https"
    host = "127.0.0.1" if context is None else "localhost"
    try:
        yield f"{scheme}://{host}:{port}"
    finally:
        server.close()
        await server.wait_closed()


async def read_request(reader: asyncio.StreamReader) -> bytes:
    """One request's body (after headers with a Content-Length)."""
    head = await reader.readuntil(b"\r\n\r\n")
    length = 0
    for line in head.split(b"\r\n"):
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value)
    return await reader.readexactly(length)


def answer(body: bytes) -> bytes:
    return b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body)


def client_for(base_url: str, *, read: float = 5.0, verify: bool = False) -> LeanClient:
    return lean_client(
        base_url,
        headers={"Content-Type": "application/json"},
        timeout=httpx2.Timeout(5.0, read=read),
        limits=httpx2.Limits(max_connections=4),
        verify=verify,
    )


def backend_of(client: LeanClient) -> AsyncioBackend:
    backend = getattr(client.direct, "backend", None)
    assert isinstance(backend, AsyncioBackend), "the client's transport is not on asyncio"
    return backend


async def post(client: LeanClient, url: str, body: bytes = b"{}") -> httpx2.Response:
    response = await client.send(client.build_request("POST", url, content=body))
    await response.aread()
    await response.aclose()
    return response


@pytest.fixture
def no_proxy(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY"):
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.lower(), raising=False)


@pytest.fixture
def server() -> Iterator[OpenAITestServer]:
    yield from running(OpenAITestServer())


@pytest.mark.usefixtures("no_proxy")
async def test_requests_travel_over_the_pools_asyncio_connections_and_reuse_them(
    server: OpenAITestServer,
) -> None:
    client = client_for(server.base_url)
    url = server.base_url + "/chat/completions"
    body = b'{"model": "m", "messages": [{"role": "user", "content": "hi"}]}'
    try:
        first = await asyncio.gather(*(post(client, url, body) for _ in range(8)))
        opened = backend_of(client).connections
        again = [await post(client, url, body) for _ in range(8)]
    finally:
        await client.aclose()
    assert [r.status_code for r in first + again] == [200] * 16
    assert "choices" in again[-1].json()
    assert 1 <= opened <= 4  # the pool's limit
    assert backend_of(client).connections == opened  # one at a time reuses them


@pytest.mark.usefixtures("no_proxy")
async def test_an_idle_connection_the_server_closed_is_replaced_not_reused() -> None:
    closed = asyncio.Event()

    async def once_then_close(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await read_request(reader)
        writer.write(answer(b"ok"))  # keep-alive by HTTP/1.1's default
        await writer.drain()
        writer.close()
        await writer.wait_closed()
        closed.set()

    async with raw_server(once_then_close) as base_url:
        client = client_for(base_url)
        try:
            assert (await post(client, base_url + "/x")).content == b"ok"
            await closed.wait()
            closed.clear()
            assert (await post(client, base_url + "/x")).content == b"ok"
        finally:
            await client.aclose()
    assert backend_of(client).connections == 2


@pytest.mark.usefixtures("no_proxy")
async def test_a_large_body_is_written_whole() -> None:
    async def count(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        body = await read_request(reader)
        writer.write(answer(str(len(body)).encode()))
        await writer.drain()
        writer.close()

    body = b"x" * (8 * 1024 * 1024)
    async with raw_server(count) as base_url:
        client = client_for(base_url)
        try:
            assert (await post(client, base_url + "/x", body)).content == str(len(body)).encode()
        finally:
            await client.aclose()


@pytest.mark.usefixtures("no_proxy")
async def test_a_reply_that_never_comes_is_a_read_timeout() -> None:
    async def silent(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await read_request(reader)
        await reader.read()  # until the client gives up and closes

    async with raw_server(silent) as base_url:
        client = client_for(base_url, read=0.2)
        try:
            with pytest.raises(httpx2.ReadTimeout):
                await post(client, base_url + "/x")
        finally:
            await client.aclose()


@pytest.mark.usefixtures("no_proxy")
async def test_a_refused_connection_is_a_connect_error() -> None:
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    client = client_for(f"http://127.0.0.1:{port}")
    try:
        with pytest.raises(httpx2.ConnectError):
            await post(client, f"http://127.0.0.1:{port}/x")
    finally:
        await client.aclose()


@pytest.mark.usefixtures("no_proxy")
async def test_tls_connections_check_the_servers_certificate(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    trustme = pytest.importorskip("trustme", reason="the TLS test needs trustme (dev extra)")
    authority = trustme.CA()
    served = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    authority.issue_cert("localhost").configure_cert(served)
    bundle = tmp_path / "ca.pem"
    authority.cert_pem.write_to_path(str(bundle))

    async def hello(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            await read_request(reader)
        except (asyncio.IncompleteReadError, ConnectionError):
            return  # a client that refused the certificate
        writer.write(answer(b"hello over TLS"))
        await writer.drain()
        writer.close()

    async with raw_server(hello, served) as base_url:
        monkeypatch.setenv("SSL_CERT_FILE", str(bundle))
        trusting = client_for(base_url, verify=True)
        monkeypatch.delenv("SSL_CERT_FILE")
        strangers = client_for(base_url, verify=True)
        try:
            assert (await post(trusting, base_url + "/x")).content == b"hello over TLS"
            with pytest.raises(httpx2.ConnectError, match="CERTIFICATE_VERIFY_FAILED"):
                await post(strangers, base_url + "/x")
        finally:
            await trusting.aclose()
            await strangers.aclose()

"""The background ASGI runner: serves any app on a loopback port, start/stop and the
context-manager forms."""

from __future__ import annotations

import socket
import threading

import httpx2
import pytest
from starlette.types import Receive, Scope, Send

from ragjudge.testing import BackgroundASGIServer


async def hello_app(scope: Scope, receive: Receive, send: Send) -> None:
    """Answers every HTTP request with its path as plain text."""
    if scope["type"] != "http":
        return
    body = scope["path"].encode()
    headers = [(b"content-type", b"text/plain"), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": 200, "headers": headers})
    await send({"type": "http.response.body", "body": body})


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


def test_serves_the_app_on_a_free_loopback_port_until_stopped() -> None:
    server = BackgroundASGIServer(hello_app)
    server.start()
    try:
        assert server.running
        assert server.port > 0
        assert server.url == f"http://127.0.0.1:{server.port}"
        response = httpx2.get(f"{server.url}/some/path", timeout=5)
        assert (response.status_code, response.text) == (200, "/some/path")
        url = server.url
    finally:
        server.stop()

    assert not server.running
    with pytest.raises(httpx2.ConnectError):
        httpx2.get(url, timeout=2)


def test_port_and_url_need_a_running_server() -> None:
    server = BackgroundASGIServer(hello_app)
    with pytest.raises(RuntimeError, match="not running"):
        _ = server.port
    with pytest.raises(RuntimeError, match="not running"):
        _ = server.url
    server.stop()  # stopping an idle server does nothing
    assert not server.running


def test_requested_port_is_used_and_the_thread_is_named_after_it() -> None:
    port = free_port()
    with BackgroundASGIServer(hello_app, port=port, thread_name="unit-server") as server:
        assert server.port == port
        names = {thread.name for thread in threading.enumerate()}
        assert f"unit-server-{port}" in names
    assert f"unit-server-{port}" not in {thread.name for thread in threading.enumerate()}


def test_starting_twice_is_refused_and_restarting_after_stop_works() -> None:
    server = BackgroundASGIServer(hello_app)
    with server, pytest.raises(RuntimeError, match="already running"):
        server.start()
    with server:
        assert httpx2.get(f"{server.url}/again", timeout=5).text == "/again"


async def test_async_context_manager_serves_while_the_loop_runs() -> None:
    async with (
        BackgroundASGIServer(hello_app) as server,
        httpx2.AsyncClient(base_url=server.url, timeout=5) as client,
    ):
        response = await client.get("/async")
        assert response.text == "/async"
    assert not server.running

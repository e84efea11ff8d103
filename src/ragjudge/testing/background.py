"""Run an ASGI app with uvicorn on a loopback port in a background thread.

Tests and examples use :class:`BackgroundASGIServer` to put a real HTTP server inside
the current process: it binds ``127.0.0.1`` (a free port by default), serves from a
daemon thread, and :meth:`~BackgroundASGIServer.start` returns only once requests are
accepted. :class:`StartStopContext` gives anything with ``start()``/``stop()`` the
``with`` and ``async with`` forms.

Uvicorn runs with the asyncio loop and the h11 protocol whatever is installed, so a
request's ``send`` is always a bound method of h11's per-request cycle (with its
``transport``), and it leaves the process's logging configuration alone.
"""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from abc import ABC, abstractmethod
from types import TracebackType
from typing import Self

import uvicorn
from starlette.types import ASGIApp

LOOPBACK = "127.0.0.1"


class StartStopContext(ABC):
    """Sync and async context managers over :meth:`start` and :meth:`stop`.

    ``async with`` runs both in a worker thread, so the event loop keeps serving
    whatever the server's requests wait for.
    """

    @abstractmethod
    def start(self) -> None:
        """Start serving; return once it is ready."""

    @abstractmethod
    def stop(self) -> None:
        """Stop serving and release what :meth:`start` took."""

    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()

    async def __aenter__(self) -> Self:
        await asyncio.to_thread(self.start)
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await asyncio.to_thread(self.stop)


class BackgroundASGIServer(StartStopContext):
    """An ASGI app served by uvicorn from a daemon thread on ``127.0.0.1``.

    ``port=0`` picks a free port; :attr:`port` and :attr:`url` tell which once
    started. ``thread_name`` prefixes the serving thread's name (the port is
    appended); ``shutdown_grace`` is how many seconds :meth:`stop` lets open
    requests finish before uvicorn cancels them.
    """

    def __init__(
        self,
        app: ASGIApp,
        *,
        port: int = 0,
        thread_name: str = "ragjudge-asgi-server",
        shutdown_grace: int = 2,
    ) -> None:
        self.app = app
        self.requested_port = port
        self.thread_name = thread_name
        self.shutdown_grace = shutdown_grace
        self._port: int | None = None
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None
        self._socket: socket.socket | None = None

    @property
    def running(self) -> bool:
        """Whether the server has been started and not stopped since."""
        return self._port is not None

    @property
    def port(self) -> int:
        """The port the server listens on; :class:`RuntimeError` when not running."""
        if self._port is None:
            raise RuntimeError("the server is not running")
        return self._port

    @property
    def url(self) -> str:
        """``http://127.0.0.1:PORT``; :class:`RuntimeError` when not running."""
        return f"http://{LOOPBACK}:{self.port}"

    def start(self, timeout: float = 10.0) -> None:
        """Bind the port and serve in a background thread; return once requests are
        accepted, or stop and raise :class:`RuntimeError` if that takes over ``timeout``
        seconds."""
        if self._thread is not None:
            raise RuntimeError("the server is already running")
        sock = _bound_socket(self.requested_port)
        self._socket = sock
        self._port = sock.getsockname()[1]
        self._server = uvicorn.Server(self._config(self._port))
        self._thread = threading.Thread(
            target=self._server.run,
            kwargs={"sockets": [sock]},
            name=f"{self.thread_name}-{self._port}",
            daemon=True,
        )
        self._thread.start()
        self._wait_until_started(timeout)

    def _config(self, port: int) -> uvicorn.Config:
        return uvicorn.Config(
            self.app,
            host=LOOPBACK,
            port=port,
            loop="asyncio",
            http="h11",
            interface="asgi3",
            lifespan="off",
            proxy_headers=False,
            log_config=None,
            log_level="warning",
            access_log=False,
            timeout_graceful_shutdown=self.shutdown_grace,
        )

    def _wait_until_started(self, timeout: float) -> None:
        assert self._server is not None and self._thread is not None
        deadline = time.monotonic() + timeout
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"the server {self.thread_name!r} failed to start")
            time.sleep(0.005)

    def stop(self) -> None:
        """Stop serving and join the thread (forcing uvicorn out if it lingers);
        does nothing when not running."""
        if self._server is not None:
            self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout=10)
            if self._thread.is_alive() and self._server is not None:
                self._server.force_exit = True
                self._thread.join(timeout=5)
        if self._socket is not None:
            self._socket.close()
        self._server = None
        self._thread = None
        self._socket = None
        self._port = None


def _bound_socket(port: int) -> socket.socket:
    """A TCP socket bound to ``127.0.0.1:port`` (``0``: a free port), not yet listening."""
    # An explicit IPPROTO_TCP makes asyncio set TCP_NODELAY on accepted connections;
    # without it every small response waits ~40 ms for the peer's delayed ACK.
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((LOOPBACK, port))
    return sock

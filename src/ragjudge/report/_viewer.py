"""``ragjudge view``: a local web server over a store that lists its runs and serves
any run's report or the comparison of two runs.

It reads and never writes: GET and HEAD only, nothing in the store is changed. It is
Python's own ``http.server`` (no dependency to install or keep up to date; one user on
one machine needs no more). It binds to 127.0.0.1 by default and answers only requests
addressed to the host it listens on, so a web page that re-points its own domain at
127.0.0.1 cannot read the store through the visitor's browser.
"""

from __future__ import annotations

import re
import sys
import threading
import traceback
from collections import OrderedDict
from collections.abc import Callable, Sequence
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from ragjudge.report._compare import comparison_report_html
from ragjudge.report._page import content_policy, render_page
from ragjudge.report._run import run_report_html
from ragjudge.store._store import RunInfo, Store

__all__ = ["ViewerServer", "make_server"]

_RUN_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")
_CACHED_PAGES = 8


class _NotFound(Exception):
    """The address names no page or no run."""


class _BadRequest(Exception):
    """The address is malformed."""


class ViewerServer(ThreadingHTTPServer):
    """The HTTP server of one store; pages of finished runs are kept, a few at a time."""

    daemon_threads = True

    def __init__(self, address: tuple[str, int], store_path: Path, *, quiet: bool = True) -> None:
        super().__init__(address, _Handler)
        self.store_path = store_path
        self.quiet = quiet
        self._pages: OrderedDict[tuple[Any, ...], str] = OrderedDict()
        self._lock = threading.Lock()

    @property
    def url(self) -> str:
        """The address to open in a browser."""
        host, port = str(self.server_address[0]), self.server_address[1]
        shown = f"[{host}]" if ":" in host else host
        return f"http://{shown}:{port}/"

    def allowed_hosts(self) -> set[str]:
        """The Host headers a request may carry: the address listened on (and the
        loopback names for a loopback address)."""
        host, port = str(self.server_address[0]), self.server_address[1]
        names = {host, f"[{host}]"}
        if host in ("127.0.0.1", "::1", "localhost"):
            names |= {"127.0.0.1", "localhost", "[::1]"}
        return {f"{name}:{port}" for name in names}

    def cached(self, key: tuple[Any, ...], build: Callable[[], str], keep: bool) -> str:
        """The page for ``key``, built once while ``keep`` (a finished run's page)."""
        with self._lock:
            if key in self._pages:
                self._pages.move_to_end(key)
                return self._pages[key]
        page = build()
        if keep:
            with self._lock:
                self._pages[key] = page
                while len(self._pages) > _CACHED_PAGES:
                    self._pages.popitem(last=False)
        return page


class _Handler(BaseHTTPRequestHandler):
    server: ViewerServer
    server_version = "ragjudge-view"

    def do_GET(self) -> None:
        self._answer(send_body=True)

    def do_HEAD(self) -> None:
        self._answer(send_body=False)

    def _refuse(self) -> None:
        self._send(HTTPStatus.METHOD_NOT_ALLOWED, _message_page("read-only: only GET"), True)

    do_POST = do_PUT = do_DELETE = do_PATCH = _refuse

    def log_message(self, format: str, *args: Any) -> None:
        if not self.server.quiet:
            super().log_message(format, *args)

    def _answer(self, send_body: bool) -> None:
        if self.headers.get("Host", "") not in self.server.allowed_hosts():
            page = _message_page("This server answers only requests addressed to it.")
            self._send(HTTPStatus.MISDIRECTED_REQUEST, page, send_body)
            return
        try:
            status, page = HTTPStatus.OK, self._page()
        except _NotFound as exc:
            status, page = HTTPStatus.NOT_FOUND, _message_page(str(exc))
        except (_BadRequest, ValueError) as exc:
            status, page = HTTPStatus.BAD_REQUEST, _message_page(str(exc))
        except KeyError as exc:
            status, page = (
                HTTPStatus.NOT_FOUND,
                _message_page(str(exc.args[0] if exc.args else exc)),
            )
        except Exception:
            traceback.print_exc(file=sys.stderr)
            status, page = (
                HTTPStatus.INTERNAL_SERVER_ERROR,
                _message_page("the page failed; see the server's output"),
            )
        self._send(status, page, send_body)

    def _send(self, status: HTTPStatus, page: str, send_body: bool) -> None:
        body = page.encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.send_header(
            "Content-Security-Policy", content_policy(forms=True) + "; frame-ancestors 'none'"
        )
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("Referrer-Policy", "no-referrer")
        self.send_header("Cache-Control", "no-store")
        if status == HTTPStatus.METHOD_NOT_ALLOWED:
            self.send_header("Allow", "GET, HEAD")
        self.end_headers()
        if send_body:
            self.wfile.write(body)

    def _page(self) -> str:
        parts = urlsplit(self.path)
        query = parse_qs(parts.query)
        path = parts.path
        if path == "/":
            return self._index()
        if path.startswith("/run/"):
            return self._run(_run_id(path.removeprefix("/run/")), query)
        if path == "/compare":
            return self._compare(query)
        raise _NotFound(f"no page {path}")

    def _store(self) -> Store:
        if not self.server.store_path.is_file():
            raise _NotFound(f"no store at {self.server.store_path}")
        return Store(self.server.store_path)

    def _index(self) -> str:
        with self._store() as store:
            runs = list(reversed(store.runs()))
        return render_page(
            "index.html.jinja",
            forms=True,
            title=f"runs · {self.server.store_path.name}",
            runs=runs,
            metrics={r.run_id: _metric_names(r) for r in runs},
            store=str(self.server.store_path),
        )

    def _run(self, run_id: str, query: dict[str, list[str]]) -> str:
        by, human = _one(query, "by"), query.get("human", [])
        with self._store() as store:
            run = store.run(run_id)
            key = ("run", run.run_id, run.finished_at, by, tuple(human))
            return self.server.cached(
                key,
                lambda: run_report_html(store, run.run_id, by=by, human=human, home="/"),
                keep=run.status != "running",
            )

    def _compare(self, query: dict[str, list[str]]) -> str:
        a, b = _run_id(_one(query, "a") or ""), _run_id(_one(query, "b") or "")
        by = _one(query, "by")
        with self._store() as store:
            run_a, run_b = store.run(a), store.run(b)
            key = ("compare", run_a.run_id, run_a.finished_at, run_b.run_id, run_b.finished_at, by)
            finished = "running" not in (run_a.status, run_b.status)
            return self.server.cached(
                key,
                lambda: comparison_report_html(store, a, store, b, by=by, home="/"),
                keep=finished,
            )


def _run_id(text: str) -> str:
    if not _RUN_ID.match(text):
        raise _BadRequest(f"not a run id: {text[:80]!r}")
    return text


def _one(query: dict[str, list[str]], name: str) -> str | None:
    values = [v for v in query.get(name, []) if v]
    return values[0] if values else None


def _metric_names(run: RunInfo) -> list[str]:
    if run.meanings:
        return list(run.meanings)
    specs: Sequence[Any] = run.config.get("metrics") or []
    return [s if isinstance(s, str) else str(s.get("name") or s.get("metric")) for s in specs]


def _message_page(message: str) -> str:
    return render_page("message.html.jinja", forms=True, title="ragjudge view", message=message)


def make_server(
    store_path: Path, host: str = "127.0.0.1", port: int = 8765, *, quiet: bool = True
) -> ViewerServer:
    """A viewer of the store at ``store_path`` listening on ``host:port`` (port 0: any
    free port); call ``serve_forever()`` on it. ``OSError`` when it cannot listen."""
    return ViewerServer((host, port), store_path, quiet=quiet)

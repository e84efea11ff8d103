"""``ragjudge view``: a local web server over one or more stores that lists their
runs (state, headline means; sorted and filtered in the page) and serves any run's
report or the comparison of two runs, from the same store or two. A running run's
page reloads itself until the run ends.

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
from html import escape
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

from ragjudge.analysis._listing import RunListing, list_runs
from ragjudge.errors import AnalysisError
from ragjudge.report._compare import comparison_report_html
from ragjudge.report._label_page import label_policy
from ragjudge.report._label_routes import (
    LABEL_PATH,
    json_body,
    label_address,
    label_page,
    label_write,
)
from ragjudge.report._labelling import LabellingSession, LabelProblem
from ragjudge.report._page import content_policy, render_page
from ragjudge.report._run import run_report_html
from ragjudge.report._sample_page import sample_page_html
from ragjudge.report._samples import column_labels
from ragjudge.store._store import Store

__all__ = ["ViewerServer", "make_server", "stores_in"]

_SAMPLE = "/sample/"
"""Between a run id and a request id in the address of one sample's page."""
_RUN_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")
_CACHED_PAGES = 8
REFRESH_SECONDS = 5
"""How often the page of a running run, and the list while a run is running, reload."""


class _NotFound(Exception):
    """The address names no page or no run."""


class _BadRequest(Exception):
    """The address is malformed."""


class ViewerServer(ThreadingHTTPServer):
    """The HTTP server of a few stores; pages of finished runs are kept, a few at a time.
    Stores are numbered in the order given; addresses name a store by its number."""

    daemon_threads = True

    def __init__(
        self,
        address: tuple[str, int],
        store_paths: Sequence[Path],
        *,
        quiet: bool = True,
        labelling: LabellingSession | None = None,
    ) -> None:
        super().__init__(address, _Handler)
        self.store_paths = list(store_paths)
        self.quiet = quiet
        self.labelling = labelling
        """The labelling session (``ragjudge view --label``): the only writer; None
        for the read-only viewer, which refuses every write."""
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

    do_PUT = do_DELETE = do_PATCH = _refuse

    def do_POST(self) -> None:
        session = self.server.labelling
        if session is None or not urlsplit(self.path).path.startswith(LABEL_PATH):
            self._refuse()
            return
        if self.headers.get("Host", "") not in self.server.allowed_hosts():
            status: int = HTTPStatus.MISDIRECTED_REQUEST
            reply: dict[str, Any] = {"error": "not addressed to this server"}
        else:
            origins = {f"http://{host}" for host in self.server.allowed_hosts()}
            status, reply = label_write(session, self.path, self.headers, self._body(), origins)
        body = json_body(reply)
        self.send_response(status)
        self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(body)

    def _body(self) -> bytes:
        length = self.headers.get("Content-Length", "0")
        size = int(length) if length.isdigit() else 0
        return self.rfile.read(min(size, 65_536))

    def log_message(self, format: str, *args: Any) -> None:
        if not self.server.quiet:
            super().log_message(format, *args)

    def _answer(self, send_body: bool) -> None:
        if self.headers.get("Host", "") not in self.server.allowed_hosts():
            page = _message_page("This server answers only requests addressed to it.")
            self._send(HTTPStatus.MISDIRECTED_REQUEST, page, send_body)
            return
        policy = None
        try:
            if self.server.labelling is not None and self.path.startswith(LABEL_PATH):
                policy = label_policy()
                status, page = HTTPStatus.OK, label_page(self.server.labelling, self.path)
            else:
                status, page = HTTPStatus.OK, self._page()
        except LabelProblem as exc:
            status, page, policy = HTTPStatus(exc.status), _message_page(str(exc)), None
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
        self._send(status, page, send_body, policy)

    def _send(
        self, status: HTTPStatus, page: str, send_body: bool, policy: str | None = None
    ) -> None:
        body = page.encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.send_header(
            "Content-Security-Policy",
            policy or content_policy(forms=True) + "; frame-ancestors 'none'",
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
        if path.startswith("/run/") and _SAMPLE in path:
            run_id, request_id = path.removeprefix("/run/").split(_SAMPLE, 1)
            return self._sample(_run_id(run_id), unquote(request_id), query)
        if path.startswith("/run/"):
            return self._run(_run_id(path.removeprefix("/run/")), query)
        if path == "/compare":
            return self._compare(query)
        raise _NotFound(f"no page {path}")

    def _store(self, number: int) -> Store:
        if not 0 <= number < len(self.server.store_paths):
            raise _NotFound(f"no store number {number}")
        path = self.server.store_paths[number]
        if not path.is_file():
            raise _NotFound(f"no store at {path}")
        return Store(path)

    def _holding(self, run_id: str) -> int:
        """The number of the first store holding ``run_id`` (links that name no store,
        such as a comparison's, find their run this way)."""
        for number, path in enumerate(self.server.store_paths):
            if path.is_file():
                with Store(path) as store:
                    try:
                        store.run(run_id)
                    except KeyError:
                        continue
                    return number
        return 0

    def _index(self) -> str:
        listed: list[tuple[int, RunListing]] = []
        missing: list[str] = []
        for number, path in enumerate(self.server.store_paths):
            if not path.is_file():
                missing.append(str(path))
                continue
            with Store(path) as store:
                listed += [(number, listing) for listing in list_runs(store)]
        listed.sort(key=lambda item: item[1].run.created_at, reverse=True)
        names = [str(p) for p in self.server.store_paths]
        return render_page(
            "index.html.jinja",
            forms=True,
            title="runs · " + ", ".join(p.name for p in self.server.store_paths),
            listed=listed,
            labels={
                (number, x.run.run_id): column_labels([t.metric for t in x.headlines])
                for number, x in listed
            },
            stores=names,
            short_names=[f"{p.parent.name}/{p.name}" for p in self.server.store_paths],
            missing=missing,
            refresh=REFRESH_SECONDS if any(x.state == "running" for _, x in listed) else None,
        )

    def _run(self, run_id: str, query: dict[str, list[str]]) -> str:
        by, human = _one(query, "by"), query.get("human", [])
        given = _one(query, "store")
        number = self._holding(run_id) if given is None else _store_number(given)
        with self._store(number) as store:
            run = store.run(run_id)
            running = run.status == "running"
            # the page shows the estimates calibrated to the run's labels: new ones rebuild it
            labels = _labels_state(store, run.run_id)
            key = ("run", number, run.run_id, run.finished_at, by, tuple(human), labels)
            page = self.server.cached(
                key,
                lambda: run_report_html(
                    store,
                    run.run_id,
                    by=by,
                    human=human,
                    home="/",
                    refresh=REFRESH_SECONDS if running else None,
                ),
                keep=not running,
            )
        return self._with_label_link(run.run_id, page)

    def _with_label_link(self, run_id: str, page: str) -> str:
        """The run's page with a link to the labelling page when this viewer labels it."""
        session = self.server.labelling
        if session is None or session.task.run_id != run_id:
            return page
        link = escape(label_address(session, "/"), quote=True)
        text = escape(f"label {session.task.metric} as {session.task.annotator}")
        anchor = f'<a class="home" id="label-link" href="{link}">{text}</a>'
        return page.replace('<header class="top">', f'<header class="top">{anchor}', 1)

    def _sample(self, run_id: str, request_id: str, query: dict[str, list[str]]) -> str:
        given = _one(query, "store")
        number = self._holding(run_id) if given is None else _store_number(given)
        with self._store(number) as store:
            try:
                return sample_page_html(store, run_id, request_id, home="/")
            except AnalysisError as exc:
                raise _NotFound(str(exc)) from None

    def _compare(self, query: dict[str, list[str]]) -> str:
        (store_a, a), (store_b, b) = _run_ref(_one(query, "a")), _run_ref(_one(query, "b"))
        by = _one(query, "by")
        with self._store(store_a) as first, self._store(store_b) as second:
            run_a, run_b = first.run(a), second.run(b)
            key = (
                "compare",
                (store_a, run_a.run_id, run_a.finished_at),
                (store_b, run_b.run_id, run_b.finished_at),
                by,
            )
            return self.server.cached(
                key,
                lambda: comparison_report_html(first, a, second, b, by=by, home="/"),
                keep="running" not in (run_a.status, run_b.status),
            )


def _labels_state(store: Store, run_id: str) -> int:
    """A fingerprint of the labels people gave run ``run_id``: it changes when one is
    added, replaced or deleted."""
    return hash(
        tuple(
            (label.request_id, label.metric, label.annotator, label.created_at, repr(label.value))
            for label in store.labels(run_id)
        )
    )


def _run_id(text: str) -> str:
    if not _RUN_ID.match(text):
        raise _BadRequest(f"not a run id: {text[:80]!r}")
    return text


def _store_number(text: str | None) -> int:
    if text is None:
        return 0
    if not text.isdigit() or len(text) > 4:
        raise _BadRequest(f"not a store number: {text[:80]!r}")
    return int(text)


def _run_ref(text: str | None) -> tuple[int, str]:
    """``STORE:RUN`` (or a bare ``RUN`` of the first store) as a store number and id."""
    store, _, run = (text or "").rpartition(":")
    return _store_number(store or None), _run_id(run)


def _one(query: dict[str, list[str]], name: str) -> str | None:
    values = [v for v in query.get(name, []) if v]
    return values[0] if values else None


def _message_page(message: str) -> str:
    return render_page("message.html.jinja", forms=True, title="ragjudge view", message=message)


def stores_in(paths: Sequence[Path]) -> list[Path]:
    """The stores ``paths`` name: a file is a store; a folder stands for every ``*.db``
    file under it (sorted; hidden folders such as ``.ragjudge`` included)."""
    found: list[Path] = []
    for path in paths:
        shown = sorted(path.rglob("*.db")) if path.is_dir() else [path]
        found += [p for p in shown if p not in found]
    return found


def make_server(
    store_paths: Path | Sequence[Path],
    host: str = "127.0.0.1",
    port: int = 8765,
    *,
    quiet: bool = True,
    labelling: LabellingSession | None = None,
) -> ViewerServer:
    """A viewer of the stores at ``store_paths`` (a store file, a folder of stores, or
    several of either) listening on ``host:port`` (port 0: any free port); call
    ``serve_forever()`` on it; with ``labelling``, it also serves that session's
    labelling page and takes its label writes. ``OSError`` when it cannot listen."""
    paths = [store_paths] if isinstance(store_paths, Path) else list(store_paths)
    return ViewerServer((host, port), stores_in(paths), quiet=quiet, labelling=labelling)

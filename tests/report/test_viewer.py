"""``ragjudge view``'s server: the list of runs, a run's report, a comparison; read-only,
answering only requests addressed to it."""

from __future__ import annotations

import hashlib
import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from pages import Page

from ragjudge.report import ViewerServer, make_server
from report_runs import improved_run, quickstart_run


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, str]:
    path = tmp_path_factory.mktemp("viewer") / "runs.db"
    return path, quickstart_run(path), improved_run(path)


@pytest.fixture
def server(store: tuple[Path, str, str]) -> Iterator[ViewerServer]:
    srv = make_server(store[0], "127.0.0.1", 0)
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    try:
        yield srv
    finally:
        srv.shutdown()
        srv.server_close()


def _contents(path: Path) -> str:
    """A digest of every row of every table of the store."""
    digest = hashlib.sha256()
    with sqlite3.connect(path) as conn:
        for (table,) in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name"
        ):
            for row in conn.execute(f"SELECT * FROM {table} ORDER BY 1"):
                digest.update(repr(row).encode())
    return digest.hexdigest()


def test_lists_runs_and_serves_reports_and_comparisons(
    server: ViewerServer, store: tuple[Path, str, str]
) -> None:
    path, a, b = store
    before = _contents(path)
    index = httpx.get(server.url)
    assert index.status_code == 200
    page = Page(index.text)
    assert [
        x["href"] for t, x in page.tags if t == "a" and (x.get("href") or "").startswith("/run/")
    ] == [
        f"/run/{b}",
        f"/run/{a}",
    ]
    assert "completed" in page.words and "rouge_l" in page.words
    assert "form-action 'self'" in index.headers["content-security-policy"]

    report = httpx.get(f"{server.url}run/{a}")
    assert report.status_code == 200 and "<h2>Samples</h2>" in report.text
    assert 'href="/"' in report.text  # back to the list
    assert httpx.get(f"{server.url}run/{a}").text == report.text  # served again from memory

    compared = httpx.get(f"{server.url}compare", params={"a": a, "b": b})
    assert compared.status_code == 200 and "Paired differences" in compared.text
    assert f'href="/run/{b}"' in compared.text
    assert _contents(path) == before


def test_refuses_what_it_does_not_serve(server: ViewerServer) -> None:
    assert httpx.get(f"{server.url}run/nope").status_code == 404
    assert httpx.get(f"{server.url}run/..%2Fetc").status_code == 400
    assert httpx.get(f"{server.url}compare", params={"a": "x"}).status_code == 400
    assert httpx.get(f"{server.url}nothing").status_code == 404
    posted = httpx.post(server.url, content=b"x")
    assert posted.status_code == 405 and posted.headers["allow"] == "GET, HEAD"
    assert httpx.delete(f"{server.url}run/x").status_code == 405


def test_answers_only_requests_addressed_to_it(server: ViewerServer) -> None:
    """A page on another site that points its own name at 127.0.0.1 (DNS rebinding)
    sends its own name as the Host: refused."""
    port = server.server_address[1]
    refused = httpx.get(server.url, headers={"Host": f"evil.example:{port}"})
    assert refused.status_code == 421
    assert httpx.get(server.url, headers={"Host": f"localhost:{port}"}).status_code == 200


def test_listens_on_loopback_by_default(store: tuple[Path, str, str]) -> None:
    srv = make_server(store[0], port=0)
    try:
        assert srv.server_address[0] == "127.0.0.1"
        assert srv.url.startswith("http://127.0.0.1:")
    finally:
        srv.server_close()

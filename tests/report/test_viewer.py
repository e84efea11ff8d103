"""``ragjudge view``'s server: the list of runs, a run's report, a comparison; read-only,
answering only requests addressed to it."""

from __future__ import annotations

import hashlib
import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path

import httpx2
import pytest
from pages import Page

from ragjudge.report import ViewerServer, make_server
from ragjudge.store._store import Store
from report_runs import improved_run, quickstart_run, synthetic_run


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
    index = httpx2.get(server.url)
    assert index.status_code == 200
    page = Page(index.text)
    assert [
        x["href"] for t, x in page.tags if t == "a" and (x.get("href") or "").startswith("/run/")
    ] == [
        f"/run/{b}",
        f"/run/{a}",
    ]
    assert "completed" in page.words and "exact_match" in page.words
    assert "form-action 'self'" in index.headers["content-security-policy"]

    report = httpx2.get(f"{server.url}run/{a}")
    assert report.status_code == 200 and "<h2>Samples</h2>" in report.text
    assert 'href="/"' in report.text  # back to the list
    assert httpx2.get(f"{server.url}run/{a}").text == report.text  # served again from memory

    compared = httpx2.get(f"{server.url}compare", params={"a": a, "b": b})
    assert compared.status_code == 200 and "Paired differences" in compared.text
    assert f'href="/run/{b}"' in compared.text
    assert _contents(path) == before


def test_refuses_what_it_does_not_serve(server: ViewerServer) -> None:
    assert httpx2.get(f"{server.url}run/nope").status_code == 404
    assert httpx2.get(f"{server.url}run/..%2Fetc").status_code == 400
    assert httpx2.get(f"{server.url}compare", params={"a": "x"}).status_code == 400
    assert httpx2.get(f"{server.url}nothing").status_code == 404
    posted = httpx2.post(server.url, content=b"x")
    assert posted.status_code == 405 and posted.headers["allow"] == "GET, HEAD"
    assert httpx2.delete(f"{server.url}run/x").status_code == 405


def test_answers_only_requests_addressed_to_it(server: ViewerServer) -> None:
    """A page on another site that points its own name at 127.0.0.1 (DNS rebinding)
    sends its own name as the Host: refused."""
    port = server.server_address[1]
    refused = httpx2.get(server.url, headers={"Host": f"evil.example:{port}"})
    assert refused.status_code == 421
    assert httpx2.get(server.url, headers={"Host": f"localhost:{port}"}).status_code == 200


def test_listens_on_loopback_by_default(store: tuple[Path, str, str]) -> None:
    srv = make_server(store[0], port=0)
    try:
        assert srv.server_address[0] == "127.0.0.1"
        assert srv.url.startswith("http://127.0.0.1:")
    finally:
        srv.server_close()


def _serving(paths: list[Path]) -> ViewerServer:
    srv = make_server(paths, "127.0.0.1", 0)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    return srv


def _states(page: Page) -> dict[str, str]:
    """Each listed run's id and shown state."""
    rows = [a for t, a in page.tags if t == "tr" and a.get("data-state")]
    links = [
        a["href"] for t, a in page.tags if t == "a" and (a.get("href") or "").startswith("/run/")
    ]
    return {
        (link or "").removeprefix("/run/").split("?")[0]: str(row["data-state"])
        for row, link in zip(rows, links, strict=True)
    }


def test_serves_several_stores_with_each_runs_state(
    store: tuple[Path, str, str], tmp_path: Path
) -> None:
    other = tmp_path / "more" / "other.db"
    other.parent.mkdir()
    failed = synthetic_run(other, trials=1)  # one sample's scores fail: beyond max_error_rate 0
    with Store(other, write=True) as s:
        running = s.create_run(name="busy", config={}, versions={}, samples=[], trials=1)
        stopped = s.create_run(name="stopped", config={}, versions={}, samples=[], trials=1)
        s.set_status(stopped, "interrupted")
    srv = _serving([store[0], tmp_path / "more"])
    try:
        index = httpx2.get(srv.url)
        states = _states(Page(index.text))
        assert states == {
            store[1]: "completed",
            store[2]: "completed",
            failed: "incomplete",
            running: "running",
            stopped: "interrupted",
        }
        # a run is running: the list reloads itself
        assert '<meta http-equiv="refresh" content="5">' in index.text
        page = httpx2.get(f"{srv.url}run/{running}?store=1")
        assert page.status_code == 200 and 'http-equiv="refresh"' in page.text
        # a finished run's page does not reload; a link naming no store finds its run
        finished = httpx2.get(f"{srv.url}run/{failed}")
        assert finished.status_code == 200 and 'http-equiv="refresh"' not in finished.text
        assert httpx2.get(f"{srv.url}run/{failed}?store=0").status_code == 404
        compared = httpx2.get(
            f"{srv.url}compare", params={"a": f"0:{store[1]}", "b": f"0:{store[2]}"}
        )
        assert compared.status_code == 200 and "Paired differences" in compared.text
        assert (
            httpx2.get(
                f"{srv.url}compare", params={"a": f"1:{store[1]}", "b": f"0:{store[2]}"}
            ).status_code
            == 404
        )
    finally:
        srv.shutdown()
        srv.server_close()


def test_the_list_shows_headline_means(server: ViewerServer, store: tuple[Path, str, str]) -> None:
    page = Page(httpx2.get(server.url).text)
    cells = [a for t, a in page.tags if t == "td" and "headline" in (a.get("class") or "")]
    assert len(cells) == 3 * 2  # three headline metrics per run
    with Store(store[0]) as s:
        tallies = s.metric_tallies(store[1])
    first = next(t for t in tallies if t.values)
    assert any(
        c.get("data-v") == str(first.mean) and (c.get("title") or "").startswith(first.metric)
        for c in cells
    )

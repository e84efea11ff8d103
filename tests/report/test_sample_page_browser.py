"""In a real browser (Debian's Chromium driven by Playwright): the report of a run
larger than the embedded-sample bound says so, and the viewer opens a sample the page
does not embed by its request id. Skipped, with the reason, without Playwright or a
Chromium binary."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import ragjudge as rj
from chromium_browser import launched_chromium
from ragjudge.report import _embedded, make_server
from ragjudge.report._run import run_report_html
from ragjudge.store import Store

SAMPLES = 30


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    rows = [
        {
            "request_id": f"q{i:02d}",
            "request": f"Question {i}",
            "response": f"UNION ALL keeps duplicates {i}",
            "expected_response": f"UNION ALL keeps duplicates {i % 5}",
        }
        for i in range(SAMPLES)
    ]
    store = tmp_path_factory.mktemp("sample-page") / "runs.db"
    result = rj.evaluate(rows, metrics=["rouge_l"], store=store, progress=False)
    return store, result.run_id


@pytest.fixture
def page(run: tuple[Path, str]) -> Iterator[Any]:
    with launched_chromium() as browser:
        yield browser.new_page()


def test_a_sample_left_out_of_the_page_opens_by_its_id(
    run: tuple[Path, str], page: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    store_path, run_id = run
    monkeypatch.setattr(_embedded, "EMBEDDED_SAMPLES", 8)
    with Store(store_path) as store:
        html = run_report_html(store, run_id)
    embedded = {f"q{i:02d}" for i in range(SAMPLES) if f">q{i:02d}</a>" in html}
    left_out = sorted({f"q{i:02d}" for i in range(SAMPLES)} - embedded)[0]
    server = make_server(store_path, "127.0.0.1", 0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        page.goto(f"{server.url}/run/{run_id}")
        note = page.locator("#embedded-note")
        assert note.is_visible()
        assert "8 of the run's 30 samples" in note.inner_text()
        assert page.locator("#samples-table tbody tr").count() == 8

        page.goto(f"{server.url}/run/{run_id}/sample/{left_out}")
        heading = page.locator("#sample-page article.sample-drill h2")
        assert heading.inner_text().strip() == left_out
        assert f"UNION ALL keeps duplicates {int(left_out[1:])}" in page.inner_text("#sample-page")
    finally:
        server.shutdown()
        server.server_close()
    assert errors == []

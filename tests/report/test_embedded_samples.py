"""The report of a run larger than the embedded-sample bound embeds the bound: the
samples that scored lowest first, then a seeded random share; a smaller run embeds
every sample as before."""

from __future__ import annotations

import re
import threading
from pathlib import Path

import httpx2
import pytest

import ragjudge as rj
from ragjudge.report import _embedded, make_server
from ragjudge.report._run import run_report_html
from ragjudge.store import Store

SAMPLES = 40
WRONG = {3, 17, 29}
"""Samples whose response shares no word with the reference: the lowest ROUGE-L."""


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    rows = [
        {
            "request_id": f"q{i:02d}",
            "request": f"Question {i}",
            "response": "nothing alike" if i in WRONG else f"UNION ALL keeps duplicates {i}",
            "expected_response": f"UNION ALL keeps duplicates {i}",
        }
        for i in range(SAMPLES)
    ]
    store = tmp_path_factory.mktemp("embedded") / "runs.db"
    result = rj.evaluate(rows, metrics=["rouge_l"], store=store, progress=False)
    return store, result.run_id


def embedded_ids(html: str) -> list[str]:
    return re.findall(r'<td class="id"><a href="#sample-\d+">([^<]+)</a>', html)


def test_a_run_over_the_bound_embeds_the_bound_lowest_first(
    run: tuple[Path, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    store_path, run_id = run
    monkeypatch.setattr(_embedded, "EMBEDDED_SAMPLES", 10)
    with Store(store_path) as store:
        html = run_report_html(store, run_id)

    ids = embedded_ids(html)
    assert len(ids) == 10
    assert {f"q{i:02d}" for i in WRONG} <= set(ids)
    assert re.search(r"This page holds 10 of the run(&#39;|')s 40 samples", html)


def test_the_embedded_share_is_the_same_each_time(run: tuple[Path, str]) -> None:
    store_path, run_id = run
    with Store(store_path) as store:
        first = _embedded.embedded_positions(store, run_id, SAMPLES, limit=12)
        again = _embedded.embedded_positions(store, run_id, SAMPLES, limit=12)

    assert first == again
    assert first is not None and len(first) == 12 == len(set(first))
    assert set(WRONG) <= set(first)


def test_a_run_within_the_bound_embeds_every_sample(run: tuple[Path, str]) -> None:
    store_path, run_id = run
    with Store(store_path) as store:
        html = run_report_html(store, run_id)

    assert len(embedded_ids(html)) == SAMPLES
    assert "embedded-note" not in html


def test_the_plots_of_a_large_run_read_every_score(run: tuple[Path, str]) -> None:
    store_path, run_id = run
    with Store(store_path) as store:
        values = store.score_values(run_id)
        whole = store.score_frame(run_id)

    assert len(values) == len(whole) == SAMPLES
    assert list(values["value"]) == list(whole["value"])
    assert list(values["metric"].astype(str)) == list(whole["metric"])


def test_the_viewer_opens_a_sample_the_page_does_not_embed(
    run: tuple[Path, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    store_path, run_id = run
    monkeypatch.setattr(_embedded, "EMBEDDED_SAMPLES", 10)
    with Store(store_path) as store:
        left_out = sorted(
            {f"q{i:02d}" for i in range(SAMPLES)}
            - set(embedded_ids(run_report_html(store, run_id)))
        )
    server = make_server(store_path, "127.0.0.1", 0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        found = httpx2.get(f"{server.url}/run/{run_id}/sample/{left_out[0]}")
        missing = httpx2.get(f"{server.url}/run/{run_id}/sample/nope")
    finally:
        server.shutdown()
        server.server_close()

    assert found.status_code == 200
    number = int(left_out[0][1:])
    assert f'data-request-id="{left_out[0]}"' in found.text
    assert f"UNION ALL keeps duplicates {number}" in found.text
    assert missing.status_code == 404
    assert "has no sample" in missing.text

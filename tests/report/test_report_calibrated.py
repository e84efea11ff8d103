"""The run report's block "Calibrated to people's labels": there with the figures of
the stored labels' estimate when the run has labels, absent when it has none, and on
the viewer's run page as soon as labels are stored."""

from __future__ import annotations

import re
import threading
from pathlib import Path

import httpx2
from pages import Page

from labelled_run import add_labels, evaluated_run, expected_estimate, labelled_run
from ragjudge.report import make_server, run_report_html
from ragjudge.store import Store


def _report(store: Path, run_id: str) -> str:
    with Store(store) as opened:
        return run_report_html(opened, run_id)


def _calibrated_row(html: str) -> list[str]:
    row = re.search(r'<tr data-score="exact_match"><td>exact_match</td>(.*?)</tr>', html)
    assert row is not None
    return [" ".join(cell.split()) for cell in re.findall(r"<td[^>]*>(.*?)</td>", row[1])]


def test_a_labelled_run_shows_its_calibrated_figures(tmp_path: Path) -> None:
    store = tmp_path / "runs.db"
    html = _report(store, labelled_run(store).run_id)

    expected = expected_estimate().ppi
    assert expected.value is not None and expected.ci is not None
    assert "Calibrated to people's labels" in Page(html).words
    judge, value, interval, method, used, targeted, people, worth = _calibrated_row(html)
    assert (judge, value, method, used, targeted, people) == (
        "0.750",
        f"{expected.value:.3f}",
        "PPI",
        "20",
        "2",
        "1",
    )
    assert interval == f"[{expected.ci.low:.3f}, {expected.ci.high:.3f}]"
    assert worth.startswith("≈ ")


def test_a_run_without_labels_has_no_calibrated_block(tmp_path: Path) -> None:
    store = tmp_path / "runs.db"
    html = _report(store, evaluated_run(store).run_id)

    assert "Calibrated to people's labels" not in Page(html).words
    assert 'id="calibrated"' not in html


def test_the_viewers_run_page_shows_labels_given_after_it_was_first_served(
    tmp_path: Path,
) -> None:
    store = tmp_path / "runs.db"
    run_id = evaluated_run(store).run_id
    server = make_server(store, "127.0.0.1", 0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        before = httpx2.get(f"{server.url}run/{run_id}").text
        add_labels(store, run_id)
        after = httpx2.get(f"{server.url}run/{run_id}").text
    finally:
        server.shutdown()
        server.server_close()

    assert 'id="calibrated"' not in before
    assert 'id="calibrated"' in after and _calibrated_row(after)[4] == "20"

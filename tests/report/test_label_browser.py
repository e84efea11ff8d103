"""Labelling in a real browser (Debian's Chromium driven by Playwright): ten labels
given with the keyboard alone survive a reload; a request from the page without the
session's token stores nothing; two people's labels of one sample are both kept.
Skipped, with the reason, without Playwright or a Chromium binary."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from chromium_browser import launched_chromium
from label_sessions import SCORE, labelled_run, serving
from ragjudge.report._label_routes import label_address
from ragjudge.store import Store


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with launched_chromium() as launched:
        yield launched


@pytest.fixture
def run(tmp_path: Path) -> tuple[Path, str]:
    store = tmp_path / "runs.db"
    return store, labelled_run(store)


def _watched_page(browser: Any) -> tuple[Any, list[str]]:
    page = browser.new_page()
    problems: list[str] = []
    page.on("pageerror", lambda e: problems.append(str(e)))
    page.on(
        "console", lambda m: problems.append(m.text) if m.type in ("error", "warning") else None
    )
    return page, problems


def _wait_for_mine(page: Any, count: int) -> None:
    page.wait_for_function(
        "n => document.getElementById('p-mine').textContent === n", arg=str(count)
    )


def test_ten_keyboard_labels_are_stored_and_shown_after_a_reload(
    browser: Any, run: tuple[Path, str]
) -> None:
    store, run_id = run
    with serving(store, run_id, "ana") as (server, session):
        page, problems = _watched_page(browser)
        page.goto(label_address(session, server.url))
        answers: dict[str, bool] = {}
        for count in range(1, 11):
            shown = page.locator("article.label-item:not([hidden])")
            request_id = shown.get_attribute("data-request-id")
            answers[request_id] = count % 3 != 0
            page.keyboard.press("y" if answers[request_id] else "n")
            if count == 2:
                page.keyboard.press("c")
                page.keyboard.type("checked y and n")
                page.keyboard.press("Escape")
            page.keyboard.press("Enter")
            _wait_for_mine(page, count)
        assert "10 saved here" in page.locator("#position").inner_text()
        page.reload()
        _wait_for_mine(page, 10)
        assert page.locator("#my-labels tbody tr").count() == 10
        assert page.locator("article.label-item").count() == 2  # the two not labelled yet
        assert page.locator("#p-samples").inner_text() == "10"
        assert "κ" in page.locator("#p-agreement").inner_text()
        assert page.evaluate("window.hit") is None  # the response's markup stayed text
        assert problems == []
    with Store(store) as s:
        labels = s.labels(run_id, metric=SCORE, annotator="ana")
    assert {x.request_id: x.value for x in labels} == answers
    assert [x.comment for x in labels if x.comment] == ["checked y and n"]
    # Half the queue is random draws; a targeted label that falls in the random prefix
    # of this run's shuffle (seeded by its random run id) is counted as random too, so
    # whether any stays targeted depends on the run.
    drawn = {x.drawn for x in labels}
    assert "random" in drawn and drawn <= {"random", "targeted"}


def test_the_page_cannot_write_without_the_token_and_two_people_both_count(
    browser: Any, run: tuple[Path, str]
) -> None:
    store, run_id = run
    with (
        serving(store, run_id, "ana") as (first, ana),
        serving(store, run_id, "ben") as (
            second,
            ben,
        ),
    ):
        page, problems = _watched_page(browser)
        page.goto(label_address(ana, first.url))
        status = page.evaluate(
            """async () => (await fetch(location.pathname, {method: "POST",
                headers: {"Content-Type": "application/json"},
                body: JSON.stringify({request_id: "q1", value: true})})).status"""
        )
        assert status == 403
        first_id = page.locator("article.label-item:not([hidden])").get_attribute("data-request-id")
        page.keyboard.press("y")
        page.keyboard.press("Enter")
        _wait_for_mine(page, 1)
        page.goto(label_address(ben, second.url))
        assert page.locator("#annotator").inner_text() == "ben"
        assert page.locator("#p-samples").inner_text() == "1"  # ana's label counts here too
        page.keyboard.press("n")
        page.keyboard.press("Enter")
        _wait_for_mine(page, 1)
        # one shared sample, labelled yes by one and no by the other: kappa 0
        assert page.locator("#p-people").inner_text() == "ana – ben: Cohen's κ 0.000 over 1 samples"
        assert [p for p in problems if "403" not in p] == []  # the refused fetch's own
    with Store(store) as s:
        by_person = {(x.annotator, x.request_id): x.value for x in s.labels(run_id)}
    assert by_person == {("ana", first_id): True, ("ben", first_id): False}

"""The report in a real browser: Debian's Chromium driven by Playwright for Python.

Skipped, with the reason, when Playwright or a Chromium binary is missing (``.ci/run``
installs both; ``RAGJUDGE_CHROMIUM`` names another binary). Every run and report is
built before the browser starts: Playwright's synchronous API holds an event loop,
and building a run needs one of its own. Screenshots of the summary, a drill-down, a
Japanese sample and a comparison are written to each test's temporary folder.
"""

from __future__ import annotations

import json
import subprocess
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from pages import Page

import ragjudge as rj
from chromium_browser import chromium_binary, launched_chromium
from ragjudge.report import make_server, write_comparison_report, write_run_report
from ragjudge.report._text import _HIDDEN, search_text
from ragjudge.store._store import Store
from report_runs import (
    databricks_run,
    improved_run,
    judged_run,
    quickstart_run,
    rubric_run,
    synthetic_run,
)
from security.attacks import ATTACKS


@dataclass
class Built:
    """The runs and reports the tests open."""

    folder: Path
    store: Path
    runs: dict[str, str] = field(default_factory=dict)
    reports: dict[str, Path] = field(default_factory=dict)


def _attack_rows() -> list[dict[str, Any]]:
    return [
        {
            "request_id": f"attack-{name}",
            "request": f"Question about {name}: {text}",
            "response": text,
            "expected_response": "UNION removes duplicates.",
            "metadata": {"attack": name, "note": text},
        }
        for name, text in sorted(ATTACKS.items())
    ]


@pytest.fixture(scope="module")
def chromium() -> str:
    """The Chromium binary, once Playwright is there too (checked before any run is
    built, so a machine without them skips at once)."""
    return chromium_binary()


@pytest.fixture(scope="module")
def built(chromium: str, tmp_path_factory: pytest.TempPathFactory) -> Built:
    folder = tmp_path_factory.mktemp("browser")
    made = Built(folder, folder / "runs.db")
    made.runs["quickstart"] = quickstart_run(made.store, report=False)
    made.runs["improved"] = improved_run(made.store)
    made.runs["judged"] = judged_run(folder / "judged.db", limit=6)
    made.runs["synthetic"] = synthetic_run(folder / "synthetic.db")
    attacked = rj.evaluate(
        _attack_rows(), metrics=["word_recall"], store=folder / "attacks.db", progress=False
    )
    made.runs["attacks"] = attacked.run_id
    with Store(made.store) as s:
        made.reports["quickstart"] = write_run_report(s, made.runs["quickstart"])
        made.reports["compare"] = write_comparison_report(
            s, made.runs["quickstart"], s, made.runs["improved"]
        )
    made.runs["databricks"] = databricks_run(folder / "databricks.db")
    made.runs["rubric"] = rubric_run(folder / "rubric.db")
    for name, store in (
        ("judged", "judged.db"),
        ("synthetic", "synthetic.db"),
        ("attacks", "attacks.db"),
        ("databricks", "databricks.db"),
        ("rubric", "rubric.db"),
    ):
        with Store(folder / store) as s:
            made.reports[name] = write_run_report(s, made.runs[name])
    return made


@dataclass
class Watched:
    """A page and everything it did: console messages, errors, requests, dialogs."""

    page: Any
    console: list[tuple[str, str]] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)
    dialogs: list[str] = field(default_factory=list)

    def open(self, path: Path, fragment: str = "") -> None:
        self.page.goto(path.as_uri() + fragment)
        self.page.wait_for_load_state("load")

    def clean(self, *allowed: str) -> None:
        """No console error or warning, no script error, no dialog, and no request but
        to the ``allowed`` addresses."""
        assert [m for m in self.console if m[0] in ("error", "warning")] == []
        assert self.errors == [] and self.dialogs == []
        assert [u for u in self.requests if not u.startswith(allowed)] == []


@pytest.fixture
def browser(chromium: str, built: Built) -> Iterator[Any]:
    with launched_chromium(chromium) as launched:
        yield launched


@pytest.fixture
def watched(browser: Any) -> Iterator[Watched]:
    context = browser.new_context(viewport={"width": 1400, "height": 900}, locale="ja-JP")
    page = context.new_page()
    seen = Watched(page)
    page.on("console", lambda m: seen.console.append((m.type, m.text)))
    page.on("pageerror", lambda e: seen.errors.append(str(e)))
    page.on("request", lambda r: seen.requests.append(r.url))

    def dialog(d: Any) -> None:
        seen.dialogs.append(d.message)
        d.dismiss()

    page.on("dialog", dialog)
    try:
        yield seen
    finally:
        context.close()


def _visible_ids(page: Any) -> list[str]:
    return list(
        page.eval_on_selector_all(
            "#samples-table tbody tr:not([hidden])",
            "rows => rows.map(r => r.cells[0].textContent.trim())",
        )
    )


def _visible_values(page: Any, column: int) -> list[float | None]:
    return list(
        page.eval_on_selector_all(
            "#samples-table tbody tr:not([hidden])",
            f"rows => rows.map(r => r.cells[{column}].dataset.v === undefined ? null : parseFloat(r.cells[{column}].dataset.v))",
        )
    )


def test_the_quickstart_report_opens_cleanly(
    built: Built, watched: Watched, tmp_path: Path
) -> None:
    report = built.reports["quickstart"]
    watched.open(report)
    page = watched.page
    assert page.title().startswith("quickstart")
    assert page.locator("table.summary tbody tr").count() == 7
    assert page.locator("#samples-table tbody tr").count() == 31
    assert page.locator("svg.chart").count() == 14  # 7 distributions, 7 per-language charts
    page.screenshot(path=str(tmp_path / "summary.png"))
    page.locator("#plots").scroll_into_view_if_needed()
    page.screenshot(path=str(tmp_path / "plots.png"))
    watched.clean(report.as_uri())
    assert watched.requests == [report.as_uri()]


def test_japanese_text_has_japanese_glyphs(built: Built, watched: Watched, tmp_path: Path) -> None:
    listed = subprocess.run(
        ["fc-list", ":lang=ja", "family"], capture_output=True, text=True, check=False
    )
    if not listed.stdout.strip():
        pytest.skip("no font with Japanese glyphs (apt-get install fonts-noto-cjk)")
    watched.open(built.reports["quickstart"])
    page = watched.page
    page.locator("#samples-table tbody tr", has_text="トランザクションの原子性").click()
    page.wait_for_selector("#drill-body article")
    japanese = page.locator("#drill-body .msg.current pre")
    assert japanese.get_attribute("lang") == "ja"
    family = japanese.evaluate("e => getComputedStyle(e).fontFamily")
    assert family.startswith('"Noto Sans CJK JP"')
    assert page.evaluate(
        "document.fonts.check('14px \"Noto Sans CJK JP\"', 'トランザクションの原子性')"
    )
    page.screenshot(path=str(tmp_path / "japanese.png"))
    watched.clean(built.reports["quickstart"].as_uri())


def test_sorting_and_filtering_change_the_visible_rows(built: Built, watched: Watched) -> None:
    report = built.reports["quickstart"]
    watched.open(report)
    page = watched.page
    headers = page.locator("#samples-table thead th")
    rouge = next(
        i for i in range(headers.count()) if headers.nth(i).inner_text().strip() == "rouge_l"
    )
    headers.nth(rouge).click()
    ascending = _visible_values(page, rouge)
    assert ascending == sorted(ascending) and len(ascending) == 31
    assert headers.nth(rouge).get_attribute("aria-sort") == "ascending"
    headers.nth(rouge).click()
    assert _visible_values(page, rouge) == sorted(ascending, reverse=True)
    headers.nth(0).click()
    assert _visible_ids(page) == sorted(_visible_ids(page))

    rows = [
        a for t, a in Page(report.read_text(encoding="utf-8")).tags if t == "tr" and "data-i" in a
    ]
    page.fill("#f-text", "トランザクション")
    wanted = sum(search_text("トランザクション") in (a["data-text"] or "") for a in rows)
    assert 0 < len(_visible_ids(page)) == wanted
    assert page.inner_text("#f-count") == f"{wanted} of 31 samples"
    page.fill("#f-text", "")
    page.select_option("#f-group", "ja")
    assert len(_visible_ids(page)) == 7
    page.select_option("#f-group", "")
    page.select_option("#f-metric", label="rouge_l")
    page.fill("#f-min", "0.5")
    kept = _visible_values(page, rouge)
    assert kept and all(v is not None and v >= 0.5 for v in kept)
    assert len(kept) == sum(v is not None and v >= 0.5 for v in ascending)
    page.fill("#f-max", "0.6")
    assert all(v is not None and 0.5 <= v <= 0.6 for v in _visible_values(page, rouge))
    watched.clean(report.as_uri())


def test_errors_only(built: Built, watched: Watched) -> None:
    watched.open(built.reports["synthetic"])
    page = watched.page
    page.check("#f-errors")
    assert _visible_ids(page) == ["r-err"]
    page.select_option("#f-metric", label="novel")
    assert _visible_ids(page) == []
    page.select_option("#f-metric", label="rubric")
    assert _visible_ids(page) == ["r-err"]
    watched.clean(built.reports["synthetic"].as_uri())


def test_the_drill_down_shows_the_stored_judge_prompt_verbatim(
    built: Built, watched: Watched, tmp_path: Path
) -> None:
    with Store(built.folder / "judged.db") as s:
        scores = [sc for rid, _, sc in s.scores(built.runs["judged"]) if rid == "q03"]
        calls = s.judge_calls(built.runs["judged"])
    accuracy = next(sc for sc in scores if sc.metric == "accuracy_e3")
    call_id = accuracy.judge_call_ids[0]
    stored = json.loads(calls.loc[calls["call_id"] == call_id, "messages_json"].iloc[0])
    reply = calls.loc[calls["call_id"] == call_id, "text"].iloc[0]
    watched.open(built.reports["judged"])
    page = watched.page
    page.locator("#samples-table tbody tr", has_text="What is a deadlock?").click()
    page.wait_for_selector("#drill-body article")
    assert page.inner_text("#drill-title") == "q03"
    page.locator(f"#drill-body a.call-link[data-call='{call_id}']").first.click()
    call = page.locator(f"#call-{call_id}")
    prompts = call.locator("pre.prompt")
    assert prompts.first.is_visible()
    assert [prompts.nth(i).text_content() for i in range(prompts.count())] == [
        m["content"] for m in stored
    ]
    assert call.locator("pre.reply").text_content() == reply
    page.screenshot(path=str(tmp_path / "drill.png"))
    page.keyboard.press("j")
    _expect(page.locator("#drill-title")).not_to_have_text("q03")
    page.keyboard.press("Escape")
    assert page.locator("#drill").is_hidden()
    watched.clean(built.reports["judged"].as_uri())


def _expect(locator: Any) -> Any:
    """Playwright's retrying assertion. It checks through the page's own DOM, whereas
    `wait_for_function` evaluates a string, which the report's Content-Security-Policy
    (no 'unsafe-eval') may refuse."""
    from playwright.sync_api import expect

    return expect(locator)


def test_attack_strings_are_shown_as_text_and_run_nothing(built: Built, watched: Watched) -> None:
    report = built.reports["attacks"]
    watched.open(report)
    page = watched.page
    names = sorted(ATTACKS)
    for index, name in enumerate(names):
        page.evaluate(f"location.hash = 'sample-{index}'")
        _expect(page.locator("#drill-title")).to_have_text(f"attack-{name}")
        response = page.locator("#drill-body section:has(h3:text-is('Response')) pre").first
        shown = response.text_content() or ""
        if not _HIDDEN.search(ATTACKS[name]):
            assert shown == ATTACKS[name], name
        assert response.is_visible()
    counts = page.evaluate(
        "['script', 'img', 'iframe', 'object', 'embed', 'link[rel=stylesheet]']"
        ".map(s => document.querySelectorAll(s).length)"
    )
    assert counts == [2, 0, 0, 0, 0, 0]
    watched.clean(report.as_uri())


def test_the_comparison_opens_cleanly(built: Built, watched: Watched, tmp_path: Path) -> None:
    report = built.reports["compare"]
    watched.open(report)
    page = watched.page
    assert page.locator("table.compare").first.locator("tbody tr").count() == 7
    assert page.locator("details.changed[open] .side").count() == 10
    page.screenshot(path=str(tmp_path / "comparison.png"))
    page.locator("#changed").scroll_into_view_if_needed()
    page.screenshot(path=str(tmp_path / "changed.png"))
    watched.clean(report.as_uri())


def test_the_viewer_lists_opens_and_compares(
    built: Built, watched: Watched, tmp_path: Path
) -> None:
    server = make_server(built.store, "127.0.0.1", 0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        page = watched.page
        page.goto(server.url)
        assert page.locator("table.runs tbody tr").count() == 2
        page.screenshot(path=str(tmp_path / "viewer.png"))
        page.locator(f"a[href='/run/{built.runs['quickstart']}']").click()
        page.wait_for_selector("#samples-table")
        page.locator("#samples-table tbody tr").first.click()
        page.wait_for_selector("#drill-body article")
        page.locator("a.home").click()
        page.check(f"input[name=a][value='{built.runs['quickstart']}']")
        page.check(f"input[name=b][value='{built.runs['improved']}']")
        page.click("button[type=submit]")
        page.wait_for_selector("table.compare")
        assert "Comparison: B − A" in page.inner_text("h1")
        watched.clean(server.url)
    finally:
        server.shutdown()
        server.server_close()


def test_many_scores_fit_1280_pixels_without_scrolling_sideways(
    built: Built, browser: Any, tmp_path: Path
) -> None:
    report = built.reports["databricks"]
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.goto(report.as_uri())
    assert page.locator("#samples-table thead th.metric-col").count() == 17
    wrap = page.locator(".samples-wrap")
    assert wrap.evaluate("e => e.scrollWidth <= e.clientWidth")
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    page.locator("#samples").scroll_into_view_if_needed()
    page.screenshot(path=str(tmp_path / "databricks.png"))
    page.close()


def test_scores_come_before_the_contexts(built: Built, watched: Watched) -> None:
    watched.open(built.reports["judged"])
    page = watched.page
    page.locator("#samples-table tbody tr").first.click()
    page.wait_for_selector("#drill-body article")
    headings = page.locator("#drill-body h3").all_inner_texts()
    assert headings.index("Scores") < min(
        i for i, h in enumerate(headings) if h.startswith(("Retrieved contexts", "Contexts"))
    )
    assert sum(h == "Contexts shown to the judge" for h in headings) == 1
    watched.clean(built.reports["judged"].as_uri())


def test_penalty_items_that_are_met_are_red(built: Built, watched: Watched) -> None:
    watched.open(built.reports["rubric"])
    page = watched.page
    page.locator("#samples-table tbody tr").first.click()
    page.wait_for_selector("#drill-body table.rubric")
    penalties = page.locator("#drill-body table.rubric tr.penalty")
    credits = page.locator("#drill-body table.rubric tbody tr:not(.penalty)")
    assert penalties.count() == 2 and credits.count() == 10
    red = page.evaluate("getComputedStyle(document.documentElement).getPropertyValue('--bad')")
    for i in range(penalties.count()):
        flag = penalties.nth(i).locator(".flag")
        assert flag.inner_text() == "✗ penalty applies"
        assert flag.evaluate("e => getComputedStyle(e).color") == _rgb(red)
    assert credits.first.locator(".flag").inner_text() == "✓ met"
    watched.clean(built.reports["rubric"].as_uri())


def _rgb(hex_colour: str) -> str:
    value = hex_colour.strip().lstrip("#")
    r, g, b = (int(value[i : i + 2], 16) for i in (0, 2, 4))
    return f"rgb({r}, {g}, {b})"


def test_ahead_is_coloured_only_when_the_interval_excludes_zero(
    built: Built, watched: Watched
) -> None:
    watched.open(built.reports["compare"])
    rows = watched.page.locator("table.compare tbody tr")  # overall and per language
    coloured = 0
    for i in range(rows.count()):
        cell = rows.nth(i).locator("td").nth(10)
        text = cell.inner_text()
        is_coloured = cell.locator(".winner-A, .winner-B").count() > 0
        assert is_coloured == ("CI excludes 0" in text), text
        coloured += is_coloured
    assert 0 < coloured < rows.count()  # both kinds are in this comparison
    watched.clean(built.reports["compare"].as_uri())


def test_the_run_list_sorts_filters_and_shows_states(
    built: Built, watched: Watched, tmp_path: Path
) -> None:
    server = make_server([built.store, built.folder / "synthetic.db"], "127.0.0.1", 0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        page = watched.page
        page.goto(server.url)
        rows = page.locator("#runs-table tbody tr")
        assert rows.count() == 3
        states = [rows.nth(i).get_attribute("data-state") for i in range(3)]
        assert sorted(states) == ["completed", "completed", "incomplete"]
        page.select_option("#r-state", "incomplete")
        assert page.locator("#runs-table tbody tr:not([hidden])").count() == 1
        assert page.inner_text("#r-count") == "1 of 3 runs"
        page.select_option("#r-state", "")
        page.fill("#r-text", "synthetic")
        assert page.locator("#runs-table tbody tr:not([hidden])").count() == 1
        page.fill("#r-text", "")
        errors = page.locator("#runs-table thead th", has_text="errors")
        errors.click()
        values = page.eval_on_selector_all(
            "#runs-table tbody tr", "rows => rows.map(r => parseInt(r.cells[7].dataset.v, 10))"
        )
        assert values == sorted(values) and values[-1] > 0
        page.screenshot(path=str(tmp_path / "runs.png"))
        watched.clean(server.url)
    finally:
        server.shutdown()
        server.server_close()

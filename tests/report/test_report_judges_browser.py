"""The report of a run with several named judges in a real browser (Debian's Chromium
driven by Playwright): the grouped summary and the agreement table render, and the
page logs no error. Skipped, with the reason, without Playwright or Chromium."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from chromium_browser import chromium_binary, launched_chromium
from judges_runs import judges_run
from ragjudge.report import write_run_report
from ragjudge.store._store import Store


def test_the_judges_tables_render_without_errors(tmp_path: Path) -> None:
    chromium = chromium_binary()
    path = tmp_path / "runs.db"
    run_id = judges_run(path)
    with Store(path) as store:
        report = write_run_report(store, run_id, tmp_path / "report.html")
    problems: list[str] = []
    with launched_chromium(chromium) as browser:
        page = browser.new_page(viewport={"width": 1400, "height": 900})
        page.on("pageerror", lambda e: problems.append(str(e)))
        page.on(
            "console",
            lambda m: problems.append(m.text) if m.type in ("error", "warning") else None,
        )
        page.goto(report.as_uri())
        page.wait_for_load_state("load")
        judges: Any = page.eval_on_selector_all(
            "table.summary tbody td.judge", "cells => cells.map(c => c.textContent.trim())"
        )
        assert judges == ["mini", "big", "noisy", "ensemble", "mini", "big"]
        agreement = page.locator("table.judge-agreement")
        assert agreement.is_visible()
        assert agreement.locator("tbody tr").count() == 2
        page.locator("#summary").screenshot(path=str(tmp_path / "judges-summary.png"))
    assert problems == []

"""The report of a run with several named judges in a real browser (Debian's Chromium
driven by Playwright): the grouped summary and the agreement table render, and the
page logs no error. Skipped, with the reason, without Playwright or Chromium."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from judges_runs import judges_run
from ragjudge.report import write_run_report
from ragjudge.store._store import Store


def _chromium() -> str:
    for name in (os.environ.get("RAGJUDGE_CHROMIUM"), "chromium", "chromium-browser"):
        if name and (found := shutil.which(name)):
            return found
    pytest.skip("no Chromium binary (chromium, chromium-browser or RAGJUDGE_CHROMIUM)")


def test_the_judges_tables_render_without_errors(tmp_path: Path) -> None:
    sync_api = pytest.importorskip("playwright.sync_api", reason="Playwright is not installed")
    chromium = _chromium()
    path = tmp_path / "runs.db"
    run_id = judges_run(path)
    with Store(path) as store:
        report = write_run_report(store, run_id, tmp_path / "report.html")
    problems: list[str] = []
    with sync_api.sync_playwright() as playwright:
        args = ["--no-sandbox"] if hasattr(os, "geteuid") and os.geteuid() == 0 else []
        browser = playwright.chromium.launch(executable_path=chromium, args=args)
        try:
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
        finally:
            browser.close()
    assert problems == []

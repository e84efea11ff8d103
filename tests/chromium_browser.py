"""Chromium for the browser tests: Debian's binary driven by Playwright for Python
(Playwright's own browser download does not work here), or a skip that says what is
missing."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest


def chromium_binary() -> str:
    """The Chromium binary (``RAGJUDGE_CHROMIUM``, else ``chromium`` or
    ``chromium-browser`` on the path), once Playwright is installed too; a skip saying
    which is missing otherwise."""
    pytest.importorskip(
        "playwright.sync_api",
        reason="Playwright for Python is not installed (pip install playwright; the dev extra has it)",
    )
    for name in (os.environ.get("RAGJUDGE_CHROMIUM"), "chromium", "chromium-browser"):
        if name and (found := shutil.which(name)):
            return found
    pytest.skip(
        "no Chromium: install Debian's chromium (apt-get install chromium) or set RAGJUDGE_CHROMIUM"
    )


@contextmanager
def launched_chromium(binary: str | None = None) -> Iterator[Any]:
    """A Chromium browser, closed on leaving."""
    from playwright.sync_api import sync_playwright

    executable = binary or chromium_binary()
    with sync_playwright() as playwright:
        # Chromium's own sandbox will not start as root (a CI container's user)
        args = ["--no-sandbox"] if hasattr(os, "geteuid") and os.geteuid() == 0 else []
        browser = playwright.chromium.launch(executable_path=executable, args=args)
        try:
            yield browser
        finally:
            browser.close()

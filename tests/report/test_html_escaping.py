"""Evaluated text cannot change the report: every attack string of the security suite,
put into every text, label and key of a run (responses, requests, references,
rationales, details, judge prompts and replies, contexts, errors, the run's name),
reaches the page and its per-sample fragments as text — no element, attribute or
script of its own — and the text reads as it was written."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from pages import Page, fragments

from ragjudge.report import run_report_html
from ragjudge.report._text import _HIDDEN
from ragjudge.store._store import Store
from report_runs import synthetic_run
from security.attacks import ATTACKS

_COUNTED = ("script", "style", "meta", "link", "base", "form", "iframe", "img", "object", "embed")


def _report(folder: Path, text: str) -> str:
    run_id = synthetic_run(folder / "runs.db", text)
    with Store(folder / "runs.db") as store:
        return run_report_html(store, run_id)


@pytest.fixture(scope="module")
def plain(tmp_path_factory: pytest.TempPathFactory) -> tuple[Page, list[Page]]:
    html = _report(tmp_path_factory.mktemp("plain"), "")
    return Page(html), [Page(f) for f in fragments(html)]


def _structure(page: Page) -> tuple[set[str], Counter[str]]:
    counts = page.count()
    return set(counts), Counter({tag: counts[tag] for tag in _COUNTED})


def _no_active_attributes(page: Page) -> None:
    for tag, name, value in page.attributes():
        assert not name.startswith("on"), (tag, name)
        assert not (value or "").strip().lower().startswith("javascript:"), (tag, name)


@pytest.mark.parametrize("attack", sorted(ATTACKS))
def test_attack_strings_stay_text(
    attack: str, tmp_path: Path, plain: tuple[Page, list[Page]]
) -> None:
    text = ATTACKS[attack]
    html = _report(tmp_path, text)
    page, parts = Page(html), [Page(f) for f in fragments(html)]
    assert _structure(page) == _structure(plain[0])
    assert [_structure(p) for p in parts] == [_structure(p) for p in plain[1]]
    for each in (page, *parts):
        _no_active_attributes(each)
    if _HIDDEN.search(text):
        # drawn as visible markers: the text around them is there, the characters are not
        assert all(p._hidden_marker for p in parts[:2])
        assert not _HIDDEN.search(parts[0].text.replace("\n", "").replace("\t", ""))
    else:
        assert text in parts[0].pre_texts("text") or text in parts[0].text
        assert f"UNION merges rows. {text}".strip() in parts[0].pre_texts("text")

"""The report of a run with a per-sample threshold: the summary's pass rate and a pass
or fail mark on each value of the samples table, read back with the HTML parser."""

from __future__ import annotations

import pytest
from pages import Page, fragments

from ragjudge.report._run import run_report_html
from ragjudge.store import Store
from thresholded_run import PASSED, thresholded_run


@pytest.fixture(scope="module")
def html(tmp_path_factory: pytest.TempPathFactory) -> str:
    path = tmp_path_factory.mktemp("passes") / "runs.db"
    run_id = thresholded_run(path).run_id
    with Store(path) as store:
        return run_report_html(store, run_id)


@pytest.fixture(scope="module")
def page(html: str) -> Page:
    return Page(html)


def test_the_summary_shows_the_pass_rate_with_its_counts(page: Page) -> None:
    [rate] = [
        a
        for tag, a in page.tags
        if tag == "td"
        and "pass-rate" in (a.get("class") or "")
        and a.get("data-passed") is not None
    ]

    assert (rate["data-passed"], rate["data-failed"]) == ("2", "1")
    assert "pass rate" in page.texts and "≥ 0.6" in page.texts
    assert "67% " in page.texts and "2 of 3, [0%, 100%]" in page.texts


def test_each_thresholded_value_carries_its_mark(page: Page) -> None:
    marks = [
        a["data-passed"]
        for tag, a in page.tags
        if tag == "td" and "data-passed" in a and "v" in (a.get("class") or "").split()
    ]

    assert marks == ["1" if PASSED[i] else "0" for i in ("q1", "q2", "q3")]
    assert page.texts.count("✓") == 2 and page.texts.count("✗") == 1


def test_each_samples_details_say_whether_it_passed(html: str) -> None:
    drills = [Page(fragment) for fragment in fragments(html)]

    flags = [
        [a["data-passed"] for tag, a in drill.tags if tag == "span" and "data-passed" in a]
        for drill in drills
    ]
    assert flags == [["1"], ["1"], ["0"]]
    assert "failed (≥ 0.6)" in drills[2].texts

"""The comparison page's pass rates: the shares passing in A and B, B − A, the samples
passing in one run only and McNemar's p-value, as ``compare`` gives them."""

from __future__ import annotations

from pathlib import Path

import pytest
from pages import Page
from scipy.stats import binomtest

import ragjudge as rj
from ragjudge.report import comparison_report_html
from ragjudge.report._text import fmt
from ragjudge.store._store import Store


def _run(store: Path, passing: set[int], metrics: list[str | dict[str, object]]) -> str:
    rows = [
        {
            "request_id": f"q{i}",
            "request": f"question {i}",
            "response": "right" if i in passing else "wrong",
            "expected_response": "right",
        }
        for i in range(4)
    ]
    return rj.evaluate(rows, metrics=metrics, store=store, progress=False).run_id


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("compare-passes") / "r.db"


def test_the_page_shows_the_paired_pass_rates(store: Path) -> None:
    metrics: list[str | dict[str, object]] = [{"metric": "exact_match", "threshold": 1}]
    run_a, run_b = _run(store, {0}, metrics), _run(store, {0, 1, 2}, metrics)
    with Store(store) as opened:
        page = Page(comparison_report_html(opened, run_a, opened, run_b))

    p_value = fmt(binomtest(0, 2).pvalue)
    assert f"exact_match 25% 75% +50% {p_value} 4 0 2" in page.words
    assert "Pass rates" in page.texts


def test_no_pass_rate_section_without_a_threshold(store: Path) -> None:
    run_a, run_b = _run(store, {0}, ["rouge_l"]), _run(store, {1}, ["rouge_l"])
    with Store(store) as opened:
        page = Page(comparison_report_html(opened, run_a, opened, run_b))

    assert "Pass rates" not in page.texts

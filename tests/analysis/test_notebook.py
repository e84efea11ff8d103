"""A result in a notebook: its HTML table (means, intervals, state, errors) and
``result.report()`` writing the run's HTML report."""

from __future__ import annotations

import html
import re
from pathlib import Path
from typing import Any

import pytest

import ragjudge as rj
from ragjudge.analysis._results import EvaluationResult, summarize_run
from ragjudge.store._store import Store

ROWS = [
    {
        "request_id": f"q{i}",
        "request": f"question {i} <b>",
        "response": "UNION removes duplicates.",
        "expected_response": "UNION removes duplicates." if i % 2 else "JOIN pairs rows.",
    }
    for i in range(6)
]


class Page:
    """The words of an HTML fragment, tags dropped."""

    def __init__(self, fragment: str) -> None:
        self.words = " ".join(html.unescape(re.sub(r"<[^>]+>", " ", fragment)).split())


@pytest.fixture(scope="module")
def result(tmp_path_factory: pytest.TempPathFactory) -> EvaluationResult:
    store = tmp_path_factory.mktemp("notebook") / "runs.db"
    return rj.evaluate(ROWS, metrics=["exact_match"], store=store, progress=False)


def test_the_html_table_holds_each_mean_and_interval(result: EvaluationResult) -> None:
    page = Page(result._repr_html_())
    (summary,) = result.summaries
    assert summary.ci is not None
    assert result.run_id in page.words and "completed" in page.words
    cells = page.words.split()
    assert "exact_match" in cells and f"{summary.mean:.4g}" in cells
    assert f"[{summary.ci.low:.4g}," in cells and f"{summary.ci.high:.4g}]" in cells


def broken(sample: rj.Sample, output: Any) -> float:
    """A metric that fails on every sample."""
    raise ValueError(f"cannot score {sample.request_id}")


def test_a_run_whose_scores_failed_shows_failed_and_why(tmp_path: Path) -> None:
    failed = rj.evaluate(ROWS, metrics=[broken], store=tmp_path / "runs.db", progress=False)
    page = Page(failed._repr_html_())
    assert "failed" in page.words.split() and "completed" not in page.words
    assert failed.verdict.reasons and failed.verdict.reasons[0] in page.words


def test_report_writes_the_runs_html_report(result: EvaluationResult, tmp_path: Path) -> None:
    default = result.report()
    assert default == result.store_path.parent / "reports" / f"{result.run_id}.html"
    assert "<h2>Samples</h2>" in default.read_text(encoding="utf-8")
    chosen = result.report(tmp_path / "mine.html")
    assert chosen == tmp_path / "mine.html" and result.report_path == chosen
    assert "question 3 &lt;b&gt;" in chosen.read_text(encoding="utf-8")


def test_a_result_read_back_from_the_store_says_how_to_write_its_report(
    result: EvaluationResult,
) -> None:
    with Store(result.store_path) as store:
        read = summarize_run(store, result.run_id)
    with pytest.raises(RuntimeError, match="write_run_report"):
        read.report()

"""The HTML report of a run with several named judges: the summary grouped by metric
then judge, and the agreement among each metric's judges."""

from __future__ import annotations

import re
from pathlib import Path

from pages import Page

from judges_runs import judges_run
from ragjudge.analysis import summarize_run
from ragjudge.report._compare import comparison_report_html
from ragjudge.report._run import run_report_html
from ragjudge.store._store import Store
from report_runs import synthetic_run


def _rows(html: str, table_class: str) -> list[list[str]]:
    """The text of each body row's cells of the first table with ``table_class``."""
    start = html.index(f'<table class="{table_class}')
    body = html[html.index("<tbody>", start) : html.index("</tbody>", start)]
    return [
        [
            "".join(Page(cell).texts).strip()
            for cell in re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)
        ]
        for row in body.split("<tr")[1:]
    ]


def test_the_summary_groups_scores_by_metric_then_judge(tmp_path: Path) -> None:
    path = tmp_path / "runs.db"
    run_id = judges_run(path)
    with Store(path) as store:
        html = run_report_html(store, run_id)
    rows = [row[:3] for row in _rows(html, "summary")]
    assert rows == [
        ["supported", "mini", "0.625"],
        ["", "big", "0.500"],
        ["", "noisy", "0.625"],
        ["", "ensemble", "0.625"],
        ["accuracy", "mini", "3.429"],
        ["", "big", "3.375"],
    ]
    assert html.count('class="judge-group"') == 2


def test_the_agreement_table_gives_each_metrics_alpha(tmp_path: Path) -> None:
    path = tmp_path / "runs.db"
    run_id = judges_run(path)
    with Store(path) as store:
        html = run_report_html(store, run_id)
        result = summarize_run(store, run_id)
    assert "Agreement among judges" in html
    rows = _rows(html, "plain judge-agreement")
    expected = [g.agreement for g in result.judges]
    assert [row[:3] for row in rows] == [
        ["supported", "mini, big, noisy", "nominal"],
        ["accuracy", "mini, big", "interval"],
    ]
    for row, agreement in zip(rows, expected, strict=True):
        assert agreement is not None and agreement.alpha.alpha.value is not None
        assert row[3] == f"{agreement.alpha.alpha.value:.3f}"
        assert row[5] == str(agreement.alpha.units)
    assert rows[0][6] == "mini–big 0.75; mini–noisy -0.07; big–noisy -0.25"


def test_a_run_without_judges_has_neither_judge_column_nor_agreement(tmp_path: Path) -> None:
    path = tmp_path / "runs.db"
    run_id = synthetic_run(path)
    with Store(path) as store:
        html = run_report_html(store, run_id)
    assert "Agreement among judges" not in html and "<th>judge</th>" not in html


def test_the_comparison_report_has_a_judge_column(tmp_path: Path) -> None:
    path = tmp_path / "runs.db"
    first, second = judges_run(path), judges_run(path)
    with Store(path) as store:
        html = comparison_report_html(store, first, store, second)
    rows = [row[:2] for row in _rows(html, "compare")]
    assert rows[:4] == [
        ["supported", "mini"],
        ["supported", "big"],
        ["supported", "noisy"],
        ["supported", "ensemble"],
    ]
    assert rows[4:] == [["accuracy", "mini"], ["accuracy", "big"]]

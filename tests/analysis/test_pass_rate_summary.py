"""Pass rates where a result is read in Python: ``summary()``'s ``pass_rate`` and
interval columns (overall and per subset) and the notebook table."""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest

import ragjudge as rj
from ragjudge.stats._bootstrap import bootstrap_ci
from thresholded_run import thresholded_run


@pytest.fixture(scope="module")
def result(tmp_path_factory: pytest.TempPathFactory) -> rj.EvaluationResult:
    return thresholded_run(tmp_path_factory.mktemp("passes") / "r.db")


def test_the_summary_has_the_pass_rate_of_scores_with_a_threshold(
    result: rj.EvaluationResult,
) -> None:
    frame = result.summary().set_index("metric")
    expected = bootstrap_ci([1.0, 1.0, 0.0], seed=0)  # q1, q2 pass; q3 fails

    assert frame.loc["token_f1", "pass_rate"] == pytest.approx(2 / 3)
    assert expected is not None
    assert frame.loc["token_f1", "pass_ci_low"] == pytest.approx(expected.low)
    assert frame.loc["token_f1", "pass_ci_high"] == pytest.approx(expected.high)
    assert frame[["pass_rate", "pass_ci_low", "pass_ci_high"]].loc["rouge_l"].isna().all()
    assert frame["pass_rate"].dtype == "float64"


def test_each_subset_has_the_pass_rate_of_its_own_samples(tmp_path: Path) -> None:
    rows = [
        {
            "request_id": f"q{i}",
            "request": f"q{i}",
            "response": "red" if i in (0, 1, 2) else "blue",
            "expected_response": "red",
            "metadata": {"lang": "en" if i < 4 else "ja"},
        }
        for i in range(6)
    ]
    found = rj.evaluate(
        rows,
        metrics=[{"metric": "exact_match", "threshold": 1}],
        store=tmp_path / "r.db",
        progress=False,
    )

    frame = found.summary(by="lang").set_index("lang")

    assert frame.loc["(all)", "pass_rate"] == pytest.approx(3 / 6)
    assert frame.loc["en", "pass_rate"] == pytest.approx(3 / 4)
    assert frame.loc["ja", "pass_rate"] == pytest.approx(0.0)


def test_the_notebook_table_shows_the_pass_rate(result: rj.EvaluationResult) -> None:
    words = " ".join(html.unescape(re.sub(r"<[^>]+>", " ", result._repr_html_())).split())

    assert "pass rate" in words
    assert "67% [" in words and "of 3 (≥ 0.6)" in words


def test_the_notebook_table_has_no_pass_column_without_a_threshold(tmp_path: Path) -> None:
    plain = rj.evaluate(
        [{"request": "q", "response": "a", "expected_response": "a"}],
        metrics=["rouge_l"],
        store=tmp_path / "r.db",
        progress=False,
    )

    assert "<th>pass rate</th>" not in plain._repr_html_()

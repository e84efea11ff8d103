"""The terminal table of paired pass rates under ``compare``: none without a score
that has a pass in both runs, one row per such score otherwise."""

from __future__ import annotations

from dataclasses import replace
from io import StringIO

from rich.console import Console

from ragjudge.analysis._comparison import Comparison, RunRef
from ragjudge.analysis._paired_passes import PairedPassRate
from ragjudge.terminal import render_paired_passes

REF = RunRef(run_id="r", name=None, status="completed", store="s.db")


def _comparison(rates: list[PairedPassRate]) -> Comparison:
    return Comparison(
        run_a=REF,
        run_b=replace(REF, run_id="s"),
        rows=[],
        by=None,
        subsets={},
        only_a=[],
        only_b=[],
        excluded_values={},
        lower_is_better=[],
        confidence=0.95,
        n_resamples=10,
        seed=0,
        pass_rates=rates,
    )


def test_no_table_without_paired_pass_rates() -> None:
    assert render_paired_passes(_comparison([])) is None


def test_one_row_per_score_with_rates_counts_and_p() -> None:
    rate = PairedPassRate("f1", n=4, passed_a=1, passed_b=3, only_a=0, only_b=2, p_value=0.5)
    table = render_paired_passes(_comparison([rate]))
    assert table is not None
    buffer = StringIO()
    Console(file=buffer, width=120).print(table)

    [line] = [row for row in buffer.getvalue().splitlines() if "f1" in row]
    cells = [cell.strip() for cell in line.split("│")[1:9]]
    assert cells == ["f1", "25.0%", "75.0%", "+50.0%", "0.500", "4", "0", "2"]

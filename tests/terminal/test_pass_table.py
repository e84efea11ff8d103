"""The terminal's table of per-sample thresholds: shown under the summary when a score
has a declared threshold, with its condition, counts, pass rate and interval."""

from __future__ import annotations

import io
from pathlib import Path

from rich.console import Console

from ragjudge.analysis._passes import PassRate
from ragjudge.stats._bootstrap import Interval
from ragjudge.terminal._passes import pass_table
from ragjudge.terminal._terminal import print_result
from thresholded_run import thresholded_run


def _printed(renderable: object) -> list[str]:
    console = Console(file=io.StringIO(), record=True, width=120, color_system=None)
    console.print(renderable)
    return [line.rstrip() for line in console.export_text().splitlines()]


def test_the_run_summary_shows_the_pass_rate_of_a_thresholded_score(tmp_path: Path) -> None:
    result = thresholded_run(tmp_path / "runs.db")
    console = Console(file=io.StringIO(), record=True, width=120, color_system=None)

    print_result(result, console)

    lines = [line.rstrip() for line in console.export_text().splitlines()]
    start = lines.index("per-sample thresholds")
    row = next(line for line in lines[start:] if line.startswith("token_f1"))
    assert row.split()[:7] == ["token_f1", "≥", "0.6", "2", "1", "0", "66.7%"]
    assert not any(line.startswith("rouge_l") for line in lines[start:])


def test_the_condition_follows_the_direction() -> None:
    lower = PassRate("latency", 2.0, "lower", 3, 1, 0, Interval(0.5, 1.0))
    yes_no = PassRate("grounded", None, "higher", 1, 1, 0, None)

    assert lower.condition == "≤ 2"
    assert yes_no.condition == "yes"
    lines = _printed(pass_table([lower, yes_no]))
    assert any(line.split()[:2] == ["latency", "≤"] and "[50.0%, 100.0%]" in line for line in lines)
    assert not any(line.startswith("grounded") for line in lines)  # its mean says it


def test_no_table_without_a_declared_threshold() -> None:
    assert pass_table([PassRate("grounded", None, "higher", 1, 1, 0, None)]) is None

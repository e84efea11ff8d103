"""Long metric names stay legible in an 80-column summary: they wrap after ``/`` (then
``_``), never cut with an ellipsis."""

from __future__ import annotations

import io
import re

from rich.console import Console

from ragjudge.stats import Interval, MetricSummary
from ragjudge.terminal import summary_table

NAMES = [
    "response/llm_judged/relevance_to_query/rating",
    "retrieval/llm_judged/context_sufficiency/rating",
    "response/llm_judged/guideline_adherence/tone_and_style/rating",
    "rouge_l",
]


def summaries(trials: int) -> list[MetricSummary]:
    return [
        MetricSummary(
            metric=name,
            mean=0.5,
            ci=Interval(0.4, 0.6),
            n=10,
            errors=0,
            excluded=0,
            mean_all=0.5,
            trials=trials,
            trial_sd=0.1 if trials > 1 else None,
            trial_agreement=0.9 if trials > 1 else None,
            skipped=2,
        )
        for name in NAMES
    ]


def rendered(trials: int, width: int = 80) -> list[str]:
    console = Console(width=width, record=True, file=io.StringIO())
    console.print(summary_table(summaries(trials), title="run x"))
    return console.export_text().splitlines()


def metric_cells(lines: list[str]) -> list[str]:
    """The names in the first column, each put back together from its lines."""
    names: list[str] = []
    for line in lines[3:]:
        cell, _, rest = line.partition("  ")
        if re.search(r"\d", rest):
            names.append(cell.strip())
        elif cell.strip():
            names[-1] += cell.strip()
    return names


def test_long_names_wrap_whole_at_80_columns() -> None:
    for trials in (1, 2):
        lines = rendered(trials)

        assert all(len(line) <= 80 for line in lines)
        assert not any("…" in line for line in lines)
        assert metric_cells(lines) == NAMES


def test_names_break_after_slashes_first() -> None:
    from ragjudge.terminal._names import _lines

    assert list(_lines("response/llm_judged/relevance_to_query/rating", 20)) == [
        "response/llm_judged/",
        "relevance_to_query/",
        "rating",
    ]
    assert list(_lines("abcdefghij_klmnop", 6)) == ["abcdef", "ghij_", "klmnop"]


def test_cjk_names_are_measured_in_display_cells() -> None:
    from rich.cells import cell_len

    from ragjudge.terminal._names import WrappedName, _lines, cut_to_cells

    name = "回答の正確さ/関連性_評価"
    lines = list(_lines(name, 8))
    assert all(cell_len(line) <= 8 for line in lines) and "".join(lines) == name
    console = Console(width=80)
    measured = WrappedName(name).__rich_measure__(console, console.options)
    assert measured.maximum == cell_len(name) == 2 * len(name) - 2
    cut = cut_to_cells("正確性の評価", 7)
    assert cut.endswith("…") and cell_len(cut) <= 7
    assert cut_to_cells("short", 7) == "short"

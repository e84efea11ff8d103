"""The terminal summary of a run with several named judges."""

from __future__ import annotations

import io
from pathlib import Path

from rich.console import Console

from judges_runs import judges_run
from ragjudge.analysis import EvaluationResult, compare_runs, summarize_run
from ragjudge.store._store import Store
from ragjudge.terminal import print_result, render_comparison, summary_table
from report_runs import synthetic_run


def _printed(result: EvaluationResult) -> list[str]:
    console = Console(file=io.StringIO(), record=True, width=140, color_system=None)
    print_result(result, console)
    return [line.rstrip() for line in console.export_text().splitlines()]


def _summary(path: Path, run_id: str) -> EvaluationResult:
    with Store(path) as store:
        return summarize_run(store, run_id)


def test_rows_are_grouped_by_metric_then_judge(tmp_path: Path) -> None:
    path = tmp_path / "runs.db"
    lines = _printed(_summary(path, judges_run(path)))
    header = next(line for line in lines if line.startswith("metric"))
    assert header.split()[:3] == ["metric", "judge", "mean"]
    rows = [line.split()[:3] for line in lines[lines.index(header) + 2 :][:6] if line.strip()]
    assert rows == [
        ["supported", "mini", "0.625"],
        ["big", "0.500", "[0.125,"],
        ["noisy", "0.625", "[0.250,"],
        ["ensemble", "0.625", "[0.250,"],
        ["accuracy", "mini", "3.429"],
    ]


def test_the_agreement_table_gives_alpha_units_and_pairwise_kappa(tmp_path: Path) -> None:
    path = tmp_path / "runs.db"
    result = _summary(path, judges_run(path))
    lines = _printed(result)
    start = lines.index("agreement among judges")
    supported = next(line for line in lines[start:] if line.startswith("supported"))
    alpha = result.judges[0].agreement
    assert alpha is not None and alpha.alpha.alpha.value is not None
    assert f"{alpha.alpha.alpha.value:.3f}" in supported
    assert "nominal" in supported and " 16 " in supported and "mini–big 0.75" in supported
    accuracy = next(line for line in lines[start:] if line.startswith("accuracy"))
    assert accuracy.split()[-2:] == ["0.940]", "14"] and "interval" in accuracy
    assert any("Krippendorff's alpha" in line for line in lines[start:])


def test_a_run_without_judges_has_no_judge_column_nor_agreement(tmp_path: Path) -> None:
    path = tmp_path / "runs.db"
    result = _summary(path, synthetic_run(path))
    lines = _printed(result)
    assert "agreement among judges" not in lines
    console = Console(file=io.StringIO(), record=True, width=140, color_system=None)
    console.print(summary_table(result.summaries, meanings=result.meanings))
    assert console.export_text().splitlines()[0].split()[:2] == ["metric", "mean"]


def test_a_comparison_shows_the_metric_once_and_each_judge(tmp_path: Path) -> None:
    path = tmp_path / "runs.db"
    first, second = judges_run(path), judges_run(path)
    with Store(path) as store:
        comparison = compare_runs(store, first, store, second, metrics=["supported"])
    console = Console(file=io.StringIO(), record=True, width=160, color_system=None)
    console.print(render_comparison(comparison))
    rows = [
        [cell.strip() for cell in line.split("│")[1:3]]
        for line in console.export_text().splitlines()
        if line.startswith("│")
    ]
    assert rows == [
        ["supported", "mini"],
        ["", "big"],
        ["", "noisy"],
        ["", "ensemble"],
    ]

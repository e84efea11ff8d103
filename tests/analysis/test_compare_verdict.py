"""``ragjudge compare`` says "better" or "worse" only when the interval of B − A
excludes 0; a difference inside the noise is "no clear difference"."""

from __future__ import annotations

import io
import json
from pathlib import Path

from rich.console import Console
from typer.testing import CliRunner

from ragjudge.analysis._compare import compare_runs
from ragjudge.cli import app
from ragjudge.schema import Sample, Score
from ragjudge.store._store import Store
from ragjudge.terminal import render_comparison


def run_with(store: Store, values: list[float]) -> str:
    samples = [Sample(request_id=f"s{i}", request="q", response="a") for i in range(len(values))]
    run_id = store.create_run(
        name=None, config={"metrics": ["m"]}, versions={}, samples=samples, trials=1
    )
    for sample, value in zip(samples, values, strict=True):
        store.save_scores(run_id, sample.request_id, 0, [Score(metric="m", value=value)])
    return run_id


def test_one_better_sample_in_a_hundred_is_no_clear_difference(tmp_path: Path) -> None:
    with Store(tmp_path / "r.db") as store:
        a = run_with(store, [0.5] * 100)
        b = run_with(store, [0.5] * 99 + [0.7])
        (row,) = compare_runs(store, a, store, b).rows
        console = Console(file=io.StringIO(), width=200, record=True)
        console.print(render_comparison(compare_runs(store, a, store, b)))

    assert row.paired.ci is not None and row.paired.ci.low == 0.0 and row.paired.ci.high > 0
    assert row.winner == "B" and row.verdict == "no clear difference"
    line = next(x for x in console.export_text().splitlines() if x.startswith("│ m "))
    assert "no clear difference" in line and "better" not in line


def test_clear_differences_are_named_both_ways(tmp_path: Path) -> None:
    with Store(tmp_path / "r.db") as store:
        a = run_with(store, [0.5] * 30)
        better = run_with(store, [0.9] * 30)
        worse = run_with(store, [0.1] * 30)

        assert compare_runs(store, a, store, better).rows[0].verdict == "better"
        assert compare_runs(store, a, store, worse).rows[0].verdict == "worse"
    result = CliRunner().invoke(
        app, ["compare", a, worse, "--store", str(tmp_path / "r.db"), "--json"]
    )
    assert json.loads(result.stdout)["metrics"][0]["verdict"] == "worse"
    table = CliRunner().invoke(app, ["compare", a, worse, "--store", str(tmp_path / "r.db")])
    assert "B worse" in table.stdout

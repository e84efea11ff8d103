"""``ragjudge show`` flags a judge whose anchors moved, naming the anchors, and its
``--json`` carries the anchors; a run without anchors shows nothing new."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from drift_runs import ANCHORS, AS_EXPECTED, BIG_MOVED, stored_run
from ragjudge.cli import app
from ragjudge.store._store import Store

runner = CliRunner()


def test_show_flags_the_judge_whose_anchors_moved_and_names_them(tmp_path: Path) -> None:
    path = tmp_path / "runs.db"
    with Store(path) as store:
        before = stored_run(store, AS_EXPECTED, anchors=ANCHORS)
        now = stored_run(store, BIG_MOVED, anchors=ANCHORS, reference_run=before)
        plain = stored_run(store, AS_EXPECTED)
    shown = runner.invoke(app, ["show", now, "--store", str(path)], env={"COLUMNS": "200"})
    assert shown.exit_code == 0, shown.output
    assert f"anchors vs run {before}" in shown.output
    assert (
        "judge big moved on faithfulness@big: 1/3 anchors as expected, 3/3 in the reference "
        "run; verdict changed on a2, a3"
    ) in shown.output
    assert "judge mini moved" not in shown.output
    assert "anchors naming no score of the run: a9 (faithfulness)" in shown.output
    as_json = runner.invoke(app, ["show", now, "--store", str(path), "--json"])
    anchors = json.loads(as_json.stdout)["anchors"]
    assert anchors["moved"] == ["faithfulness@big"] and anchors["reference_run"] == before
    big = next(s for s in anchors["scores"] if s["judge"] == "big")
    assert big["changed"] == ["a2", "a3"] and big["agreeing"] == 1
    without = runner.invoke(app, ["show", plain, "--store", str(path)])
    assert without.exit_code == 0 and "anchor" not in without.output

"""The HTML report flags a judge whose anchors moved, and has an anchors table only for
a run with anchors."""

from __future__ import annotations

from pathlib import Path

from drift_runs import ANCHORS, AS_EXPECTED, BIG_MOVED, stored_run
from ragjudge.report import write_run_report
from ragjudge.store._store import Store


def test_the_report_flags_the_judge_whose_anchors_moved(tmp_path: Path) -> None:
    path = tmp_path / "runs.db"
    with Store(path) as store:
        before = stored_run(store, AS_EXPECTED, anchors=ANCHORS)
        now = stored_run(store, BIG_MOVED, anchors=ANCHORS, reference_run=before)
        plain = stored_run(store, AS_EXPECTED)
        page = write_run_report(store, now, tmp_path / "now.html").read_text(encoding="utf-8")
        quiet = write_run_report(store, plain, tmp_path / "plain.html").read_text(encoding="utf-8")
    assert (
        f"judge big moved on faithfulness@big: 1/3 anchors as expected, 3/3 in run {before}; "
        "verdict changed on a2, a3</p>"
    ) in page
    assert 'id="anchors"' in page and "judge mini moved" not in page
    assert "anchors-moved" not in quiet and 'id="anchors"' not in quiet

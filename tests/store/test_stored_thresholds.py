"""A stored run keeps its metrics' thresholds: reopened in another process, its meanings,
passes and pass rates read from the store alone, without the metric registry."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

from thresholded_run import thresholded_run

READ_BACK = """
import json, sys
from ragjudge.analysis._results import summarize_run
from ragjudge.store._store import Store

with Store(sys.argv[1]) as store:
    run = store.run(sys.argv[2])
    result = summarize_run(store, run.run_id)
print(json.dumps({
    "threshold": run.meanings["token_f1"].threshold,
    "rouge_l": run.meanings["rouge_l"].threshold,
    "rates": [r.to_dict() for r in result.pass_rates],
    "registry_loaded": "ragjudge.metrics._registry" in sys.modules,
}))
"""


def test_a_reopened_run_knows_its_thresholds_without_the_registry(tmp_path: Path) -> None:
    path = tmp_path / "runs.db"
    run_id = thresholded_run(path).run_id

    done = subprocess.run(
        [sys.executable, "-c", READ_BACK, str(path), run_id],
        capture_output=True,
        text=True,
        check=True,
    )

    read = json.loads(done.stdout)
    assert read["threshold"] == 0.6 and read["rouge_l"] is None
    assert [(r["metric"], r["passed"], r["failed"]) for r in read["rates"]] == [("token_f1", 2, 1)]
    assert read["registry_loaded"] is False


def test_the_threshold_is_written_in_the_runs_record(tmp_path: Path) -> None:
    path = tmp_path / "runs.db"
    run_id = thresholded_run(path).run_id

    with sqlite3.connect(path) as conn:
        [(stored,)] = conn.execute(
            "SELECT meanings_json FROM runs WHERE run_id = ?", (run_id,)
        ).fetchall()

    assert json.loads(stored)["token_f1"]["threshold"] == 0.6

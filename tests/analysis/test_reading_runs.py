"""Reading stored runs — summaries, reports, exports, meta-evaluation, choice counts —
needs nothing of the metrics: every meaning comes from the run record."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import ragjudge as rj

ROWS = [
    {"request_id": "a", "request": "What is a view?", "response": "A stored query.", "expected_response": "A named stored query.", "metadata": {"grade": 1}},
    {"request_id": "b", "request": "What is an index?", "response": "Bananas.", "expected_response": "A lookup structure.", "metadata": {"grade": 0}},
    {"request_id": "c", "request": "What is a join?", "response": "Rows of two tables matched.", "expected_response": "Rows of two tables matched on a key.", "metadata": {"grade": 1}},
]  # fmt: skip

READER = """
import importlib, json, pkgutil, sys

for name in ("ragjudge.analysis", "ragjudge.report", "ragjudge.export", "ragjudge.meta"):
    package = importlib.import_module(name)
    for module in pkgutil.walk_packages(package.__path__, prefix=name + "."):
        importlib.import_module(module.name)

from ragjudge.analysis import choice_counts, summarize_run
from ragjudge.export._files import export_frame
from ragjudge.meta import meta_for_run
from ragjudge.report import run_report_html
from ragjudge.store._store import Store

with Store(sys.argv[1]) as store:
    result = summarize_run(store, sys.argv[2])
    run_report_html(store, sys.argv[2], human=["grade"])
    rows = len(export_frame(store, sys.argv[2]))
    meta_for_run(store, sys.argv[2], ["grade"])
    choice_counts(store, sys.argv[2])
loaded = sorted(m for m in sys.modules if m.startswith("ragjudge.metrics"))
print(json.dumps({"means": {s.metric: s.mean for s in result.summaries}, "rows": rows, "loaded": loaded}))
"""


def test_reading_a_stored_run_loads_no_metric(tmp_path: Path) -> None:
    store = tmp_path / "runs.db"
    result = rj.evaluate(ROWS, metrics=["token_f1", "exact_match"], store=store, progress=False)

    done = subprocess.run(
        [sys.executable, "-c", READER, str(store), result.run_id],
        capture_output=True,
        text=True,
        check=True,
    )
    read = json.loads(done.stdout)
    assert read["means"] == {s.metric: s.mean for s in result.summaries}
    assert read["rows"] == len(ROWS)
    assert read["loaded"] == []

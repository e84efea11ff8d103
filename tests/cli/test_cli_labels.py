"""``ragjudge labels``: import, list, export and agreement on a stored run, and bad
label files refused with exit 2 and nothing stored."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from label_runs import label_run
from ragjudge.cli import app

runner = CliRunner()
WIDE = {"COLUMNS": "200"}

ROWS = [
    {"request_id": f"s{i}", "metric": "correct", "annotator": who, "label": value}
    for who, values in (("ann", [1, 1, 1, 1, 0, 0, 0, 0]), ("bob", [1, 1, 1, 0, 0, 0, 1, 0]))
    for i, value in enumerate(values)
    for value in [bool(value)]
]


def _setup(tmp_path: Path) -> tuple[Path, str, Path]:
    store, run_id = label_run(tmp_path)
    store.close()
    path = tmp_path / "labels.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in ROWS), encoding="utf-8")
    return tmp_path / "runs.db", run_id, path


def _labels(store: Path, run_id: str, *args: str) -> tuple[int, str]:
    done = runner.invoke(app, ["labels", *args, run_id, "--store", str(store)], env=WIDE)
    return done.exit_code, done.output


def test_labels_are_imported_listed_exported_and_agreed_on(tmp_path: Path) -> None:
    store, run_id, path = _setup(tmp_path)
    done = runner.invoke(app, ["labels", "import", run_id, str(path), "--store", str(store)])
    assert done.exit_code == 0, done.output
    assert "stored 16 label(s) from 2 annotator(s)" in done.output
    code, shown = _labels(store, run_id, "list", "--json")
    assert code == 0
    (summary,) = json.loads(shown)
    assert summary["samples"] == 8 and summary["annotators"] == {"ann": 8, "bob": 8}
    assert summary["random"] == 16 and summary["targeted"] == 0
    code, shown = _labels(store, run_id, "agreement", "--resamples", "50")
    assert code == 0, shown
    pair = next(line for line in shown.splitlines() if "ann – bob" in line)
    assert "8" in pair and "0.500" in pair
    assert "The judge against the people" in shown and "combined" in shown
    written = tmp_path / "out.csv"
    code, shown = _labels(store, run_id, "export", "-o", str(written))
    assert code == 0 and "wrote 16 label(s)" in shown
    assert len(written.read_text(encoding="utf-8").splitlines()) == 17


def test_agreement_as_json_holds_each_pair(tmp_path: Path) -> None:
    store, run_id, path = _setup(tmp_path)
    runner.invoke(app, ["labels", "import", run_id, str(path), "--store", str(store)])
    code, shown = _labels(store, run_id, "agreement", "--json", "--resamples", "50")
    assert code == 0
    (found,) = json.loads(shown)
    assert found["metric"] == "correct" and found["pairs"][0]["kappa"] == 0.5


def test_a_bad_label_file_exits_2_naming_the_line_and_stores_nothing(tmp_path: Path) -> None:
    store, run_id, path = _setup(tmp_path)
    rows = [*ROWS[:3], {"request_id": "s1", "metric": "correct", "label": "yes"}]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    done = runner.invoke(app, ["labels", "import", run_id, str(path), "--store", str(store)])
    assert done.exit_code == 2
    assert f"{path}, line 4, field 'annotator': is missing" in done.output
    assert "Traceback" not in done.output
    code, shown = _labels(store, run_id, "list", "--json")
    assert code == 0 and json.loads(shown) == []


def test_meta_reads_the_stored_labels(tmp_path: Path) -> None:
    store, run_id, path = _setup(tmp_path)
    runner.invoke(app, ["labels", "import", run_id, str(path), "--store", str(store)])
    done = runner.invoke(
        app,
        ["meta", run_id, "--labels", "--json", "--resamples", "50", "--store", str(store)],
    )
    assert done.exit_code == 0, done.output
    (block,) = json.loads(done.output)["blocks"]
    assert block["human"] == "labels:correct" and block["n"] == 8
    done = runner.invoke(app, ["meta", run_id, "--store", str(store)])
    assert done.exit_code == 2 and "--labels" in done.output

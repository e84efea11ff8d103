"""The RAGChecker part of docs/validation.md, run on the shared data: the lexical
metrics on all 560 answers, set against the human preferences pair by pair."""

from __future__ import annotations

import json
from pathlib import Path

from test_validation import generated_block
from typer.testing import CliRunner

from conftest import shared_data
from ragjudge.cli import app

REPO = Path(__file__).resolve().parents[2]
CONFIG = REPO / "examples" / "validation" / "ragchecker.yaml"
runner = CliRunner()


def test_lexical_agreement_with_human_preferences(tmp_path: Path) -> None:
    shared_data("ragchecker")
    store = tmp_path / "runs.db"
    run = runner.invoke(app, ["run", str(CONFIG), "--json", "--no-progress", "--store", str(store)])
    assert run.exit_code == 0, run.output
    summary = json.loads(run.stdout)
    assert summary["n_samples"] == 560
    labels = ["correctness_label", "completeness_label", "overall_label"]
    args = ["meta", summary["run_id"], "--pairs", "pair", "--store", str(store)]
    args += [arg for label in labels for arg in ("--human", label)]
    out = tmp_path / "table.md"
    meta = runner.invoke(app, [*args, "--table-out", str(out)])
    assert meta.exit_code == 0, meta.output
    assert out.read_text(encoding="utf-8").strip().splitlines() == generated_block("ragchecker")

    found = runner.invoke(app, [*args, "--json"])
    table = json.loads(found.stdout)
    rows = {(b["human"], r["metric"]): r for b in table["blocks"] for r in b["rows"]}
    assert all(b["n"] == 280 for b in table["blocks"])
    for label in labels:
        exact = rows[(label, "exact_match")]["agreement"]["preference"]
        assert exact["ties"] == exact["n"]  # exact match never fires on long answers
        for metric in ("token_f1", "rouge_l"):
            agreement = rows[(label, metric)]["agreement"]["preference"]
            assert agreement["agreement"]["ci_low"] > agreement["baseline"]["value"]

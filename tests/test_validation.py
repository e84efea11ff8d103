"""The validation of docs/validation.md, run on the shared MTRAG human data: the loader's
counts, the metrics on all 477 answers, and the meta-evaluation table."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from conftest import shared_data
from ragjudge.cli import app
from ragjudge.config import load_config
from ragjudge.loading import load_samples

REPO = Path(__file__).resolve().parents[1]
CONFIG = REPO / "examples" / "validation" / "mtrag-human.yaml"
runner = CliRunner()


@pytest.fixture(autouse=True)
def mtrag_human_data() -> None:
    """The config reads the MTRAG human subset from ``../shared/data``."""
    shared_data("mtrag-human")


def test_loader_counts_on_the_shared_file() -> None:
    cfg = load_config(CONFIG)
    assert cfg.data is not None
    samples = load_samples(cfg.resolve(cfg.data), format=cfg.format)
    assert len(samples) == 477
    assert len({s.metadata["task_id"] for s in samples}) == 159
    assert sorted({s.metadata["model_id"] for s in samples}) == [
        "gpt-4o",
        "llama-3.1-405b-instruct",
        "reference",
    ]
    assert all(s.response and s.references for s in samples)


@pytest.mark.slow
def test_validation_run_and_meta_table(tmp_path: Path) -> None:
    pytest.importorskip("sentence_transformers")
    store = tmp_path / "runs.db"
    run = runner.invoke(app, ["run", str(CONFIG), "--json", "--no-progress", "--store", str(store)])
    assert run.exit_code == 0, run.output
    summary = json.loads(run.stdout)
    means = {m["metric"]: m["mean"] for m in summary["metrics"]}
    assert all(m["n"] == 477 and m["errors"] == 0 for m in summary["metrics"])
    assert means["rouge_l"] == pytest.approx(0.538, abs=0.002)  # the file's RougeL is 0.540
    assert 0.6 < means["bert_score"] < 0.95

    meta = runner.invoke(
        app,
        [
            "meta",
            summary["run_id"],
            "--human",
            "completeness",
            "--human",
            "faithfulness",
            "--store",
            str(store),
            "--json",
        ],
    )
    assert meta.exit_code == 0, meta.output
    table = json.loads(meta.stdout)
    rows = {(b["human"], r["metric"]): r for b in table["blocks"] for r in b["rows"]}
    for human in ("completeness", "faithfulness"):
        for metric in ("word_recall", "rouge_l", "bert_score", "token_f1"):
            row = rows[(human, metric)]
            spearman = row["spearman"]
            assert row["n"] == 477
            assert 0.05 < spearman["estimate"] < 0.6
            assert spearman["ci_low"] < spearman["estimate"] < spearman["ci_high"]
    # faithfulness is the better-predicted label for every baseline, as in the doc
    for metric in ("word_recall", "rouge_l", "bert_score", "token_f1"):
        assert (
            rows[("faithfulness", metric)]["spearman"]["estimate"]
            > rows[("completeness", metric)]["spearman"]["estimate"]
        )

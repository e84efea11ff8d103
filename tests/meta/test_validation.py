"""The validation of docs/validation.md, run on the shared MTRAG human data: the loader's
counts, the metrics on all 477 answers, and the meta-evaluation table — the one the
page shows, as ``meta --table-out`` writes it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from conftest import shared_data
from ragjudge.cli import app
from ragjudge.config import load_config
from ragjudge.loading import load_samples

REPO = Path(__file__).resolve().parents[2]
CONFIG = REPO / "examples" / "validation" / "mtrag-human.yaml"
DOC = REPO / "docs" / "validation.md"
runner = CliRunner()


def generated_block(name: str) -> list[str]:
    """The lines docs/validation.md holds between its ``generated: NAME`` markers."""
    text = DOC.read_text(encoding="utf-8")
    start = text.index(f"<!-- generated: {name} -->") + len(f"<!-- generated: {name} -->")
    end = text.index(f"<!-- end generated: {name} -->")
    return [line for line in text[start:end].strip().splitlines()]


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
    _check_the_pages_table(summary["run_id"], store, tmp_path / "table.md")


def _check_the_pages_table(run_id: str, store: Path, out: Path) -> None:
    """Every row of the page's table that does not involve BERTScore (a neural model whose
    last digits may move with its library) is what ``meta --table-out`` writes."""
    extras = ["auto.RougeL", "auto.Bert-Rec", "auto.rb_llm", "auto.rl_f"]
    meta = runner.invoke(
        app,
        [
            "meta",
            run_id,
            "--human",
            "completeness",
            "--human",
            "faithfulness",
            *[arg for key in extras for arg in ("--extra", key)],
            "--acceptable",
            "3",
            "--threshold",
            "0.5",
            "--store",
            str(store),
            "--table-out",
            str(out),
        ],
    )
    assert meta.exit_code == 0, meta.output
    written = out.read_text(encoding="utf-8").strip().splitlines()
    page = generated_block("mtrag-human")
    assert [line for line in written if "bert_score" not in line] == [
        line for line in page if "bert_score" not in line
    ]
    assert len(written) == len(page)

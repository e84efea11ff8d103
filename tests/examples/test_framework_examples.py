"""The framework examples: a LangChain chain, a LlamaIndex query engine and an MLflow
``predict_fn`` evaluated as they are, each answering every question from the right
note (the LangChain and LlamaIndex ones are skipped where their extra is missing)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ragjudge.cli import app

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "frameworks"

FRAMEWORK_MODULES = {"langchain": "langchain_core", "llamaindex": "llama_index.core"}


@pytest.mark.parametrize("config", ["langchain", "llamaindex", "mlflow"])
def test_the_example_runs_and_retrieves_the_right_notes(config: str, tmp_path: Path) -> None:
    if config in FRAMEWORK_MODULES:
        pytest.importorskip(FRAMEWORK_MODULES[config], reason=f"needs the {config!r} extra")
    store = tmp_path / "runs.db"
    args = ["run", str(EXAMPLE / f"{config}.yaml"), "--store", str(store)]
    result = CliRunner().invoke(app, [*args, "--json", "--no-progress"])
    assert result.exit_code == 0, result.output
    summary = {m["metric"]: m for m in json.loads(result.output)["metrics"]}
    assert {name: (m["mean"], m["n"], m["errors"]) for name, m in summary.items()} == {
        "token_f1": (1.0, 3, 0),
        "rouge_l": (1.0, 3, 0),
        "recall_at_k": (1.0, 3, 0),
        "mrr": (1.0, 3, 0),
    }

"""On the core install, the framework targets a user can reach end with a message that
names what to install (exit 2), never a traceback."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
from smoke_env import ROOT, copy_quickstart, run_ragjudge

from ragjudge._util.extras import extra_installed

pytestmark = pytest.mark.smoke


def test_an_mlflow_model_target_without_the_extra_names_it(tmp_path: Path) -> None:
    if extra_installed("mlflow"):
        pytest.skip("the 'mlflow' extra is installed here (the core environment checks this)")
    folder = copy_quickstart(tmp_path)
    (folder / "model.yaml").write_text(
        "data: evalset.jsonl\ntarget: {kind: mlflow_model, uri: 'models:/rag/1'}\n"
        "metrics: [exact_match]\n",
        encoding="utf-8",
    )
    done = run_ragjudge(["run", "model.yaml"], folder)
    assert (done.code, done.tracebacks) == (2, 0), done.out + done.err
    assert "pip install 'ragjudge[mlflow]'" in done.err


def test_the_langchain_example_without_langchain_names_the_module(tmp_path: Path) -> None:
    if importlib.util.find_spec("langchain_core") is not None:
        pytest.skip("langchain-core is installed here (the core environment checks this)")
    config = ROOT / "examples" / "frameworks" / "langchain.yaml"
    done = run_ragjudge(["run", str(config), "--store", str(tmp_path / "runs.db")], tmp_path)
    assert (done.code, done.tracebacks) == (2, 0), done.out + done.err
    assert "needs the module 'langchain_core" in done.err and "not installed" in done.err

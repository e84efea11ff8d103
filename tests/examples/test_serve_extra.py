"""The example server runs after ``make demo``: its third-party imports come with the
``serve`` extra, which ``make demo`` installs; and its search endpoint serves as the
evaluation retriever where the README shows it, under ``knowledge_base:``."""

from __future__ import annotations

import ast
import asyncio
import importlib.metadata
import json
import re
import subprocess
import sys
import tomllib
from pathlib import Path

from conftest import QUICKSTART, import_quickstart
from ragjudge.config import load_config
from ragjudge.models.scripted import ReplyScript, ScriptedProvider
from ragjudge.run._runner import run_evaluation

REPO = QUICKSTART.parents[1]


def _third_party_imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = {
        a.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names
    }
    names |= {
        n.module.split(".")[0]
        for n in ast.walk(tree)
        if isinstance(n, ast.ImportFrom) and n.module and not n.level
    }
    local = {"rag_app", "rag_app_mqa", "ragjudge", "__future__"}
    return {n for n in names if n not in sys.stdlib_module_names and n not in local}


def _requirement_names(specs: list[str]) -> set[str]:
    return {re.split(r"[<>=\[; ]", spec, maxsplit=1)[0].lower() for spec in specs}


def test_the_serve_extra_brings_every_import_of_the_server() -> None:
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    installed = _requirement_names(project["dependencies"]) | _requirement_names(
        project["optional-dependencies"]["serve"]
    )
    distributions = importlib.metadata.packages_distributions()
    sources = [QUICKSTART / "serve.py", REPO / "src" / "ragjudge" / "testing" / "background.py"]
    imported = set().union(*(_third_party_imports(s) for s in sources))

    assert {"uvicorn", "starlette"} <= imported
    for module in imported:
        assert {d.lower() for d in distributions[module]} & installed, module


def test_make_demo_installs_the_serve_extra() -> None:
    makefile = (REPO / "Makefile").read_text()
    core = makefile.split("$(CORE): pyproject.toml", 1)[1].split("\n\n", 1)[0]

    assert '-e ".[serve]"' in core


def test_the_server_starts_from_the_command_line() -> None:
    result = subprocess.run(
        [sys.executable, str(QUICKSTART / "serve.py"), "--help"],
        capture_output=True,
        text=True,
        timeout=60,
    )

    assert result.returncode == 0, result.stderr
    assert "--port" in result.stdout


def test_the_http_retriever_under_knowledge_base(tmp_path: Path) -> None:
    serve = import_quickstart("serve")
    rows = [
        {
            "request": "What is a deadlock?",
            "response": "A lock cycle.",
            "expected_response": "A cycle of lock waits.",
        }
    ]
    (tmp_path / "set.jsonl").write_text(json.dumps(rows[0]) + "\n")
    with serve.BackgroundServer() as server:
        config = tmp_path / "eval.yaml"
        config.write_text(
            "data: set.jsonl\n"
            "metrics: [{metric: answer_accuracy, contexts: question, k: 2}]\n"
            "knowledge_base:\n"
            f"  retriever: {{kind: http, url: '{server.url}/search'}}\n"
        )
        loaded = load_config(config)
        assert loaded.knowledge_base is None and loaded.retriever is not None
        judge = ScriptedProvider(ReplyScript(default="Fine. [RESULT] 4"))
        result = asyncio.run(run_evaluation(loaded, progress=False, judge_provider=judge))

    frame = result.to_pandas()
    shown = json.loads(frame["judge_contexts"].iloc[0])["answer_accuracy"]
    assert len(shown) == 2 and any("deadlock" in (c["content"] or "").lower() for c in shown)

"""Start-up of the command line: importing it, ``--help``, ``runs`` and ``show`` load
only what they use (each checked in a fresh interpreter), and the packages whose public
names are imported on first use still give every one of them."""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import ragjudge
from report_runs import quickstart_run

# Heavy libraries and layers none of the three commands needs.
NEVER_AT_START = (
    "scipy",
    "openai",
    "httpx2",
    "nltk",
    "jinja2",
    "mlflow",
    "yaml",
    "ragjudge.metrics",
    "ragjudge.models._model",
    "ragjudge.run._runner",
    "ragjudge.config._eval",
)
# ... and what only `show` needs (the summary is computed from numpy columns).
STATISTICS = ("pandas", "numpy", "ragjudge.stats")

_PROBE = """
import atexit, json, sys
atexit.register(lambda: sys.stderr.write("\\nMODULES " + json.dumps(sorted(sys.modules)) + "\\n"))
from ragjudge.__main__ import main
sys.argv = ["ragjudge", *json.loads(sys.argv[1])]
main()
"""


def _fresh(args: list[str]) -> tuple[subprocess.CompletedProcess[str], set[str]]:
    """``ragjudge ARGS`` in a new interpreter (this checkout's sources first on the path),
    and the modules it had loaded when the command ended."""
    source = str(Path(ragjudge.__file__).parent.parent)
    path = os.pathsep.join(p for p in (source, os.environ.get("PYTHONPATH")) if p)
    env = {**os.environ, "PYTHONPATH": path, "COLUMNS": "200"}
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, json.dumps(args)],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    marker = done.stderr.rfind("\nMODULES ")
    assert marker >= 0, done.stderr
    modules = set(json.loads(done.stderr[marker + len("\nMODULES ") :]))
    return done, modules


def _loaded(modules: set[str], names: tuple[str, ...]) -> list[str]:
    return [n for n in names if n in modules]


def test_importing_the_cli_loads_no_heavy_library() -> None:
    source = str(Path(ragjudge.__file__).parent.parent)
    code = "import json, sys, ragjudge.cli; print(json.dumps(sorted(sys.modules)))"
    env = {**os.environ, "PYTHONPATH": source + os.pathsep + os.environ.get("PYTHONPATH", "")}
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120
    )
    assert done.returncode == 0, done.stderr
    modules = set(json.loads(done.stdout))
    assert "ragjudge.cli" in modules
    assert _loaded(modules, (*NEVER_AT_START, *STATISTICS, "pyarrow", "pydantic", "asyncio")) == []


def test_help_exits_0_lists_the_commands_and_loads_no_heavy_library() -> None:
    done, modules = _fresh(["--help"])
    assert done.returncode == 0, done.stderr
    for command in ("run", "runs", "show", "compare", "export", "metrics", "cache", "report"):
        assert f" {command} " in done.stdout, command
    # pydantic left out: the command-line library itself loads it to read options
    assert _loaded(modules, (*NEVER_AT_START, *STATISTICS)) == []


@pytest.fixture(scope="module")
def stored_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    store = tmp_path_factory.mktemp("startup") / "runs.db"
    return store, quickstart_run(store, report=False)


def test_runs_lists_the_run_without_the_statistics_stack(stored_run: tuple[Path, str]) -> None:
    store, run_id = stored_run
    done, modules = _fresh(["runs", "--store", str(store)])
    assert done.returncode == 0, done.stderr
    assert run_id in done.stdout
    assert _loaded(modules, (*NEVER_AT_START, *STATISTICS)) == []


def test_show_prints_the_summary_without_judge_models_scipy_or_pandas(
    stored_run: tuple[Path, str],
) -> None:
    store, run_id = stored_run
    done, modules = _fresh(["show", run_id, "--store", str(store)])
    assert done.returncode == 0, done.stderr
    assert "rouge_l" in done.stdout
    assert _loaded(modules, NEVER_AT_START) == []
    assert "numpy" in modules  # the summary's columns: what show does pay for
    assert "pandas" not in modules  # read in pages, never as a frame


def test_a_run_of_lexical_metrics_on_stored_answers_loads_no_http_client(tmp_path: Path) -> None:
    rows = [{"request": f"q{i}", "response": "a b", "expected_response": "a c"} for i in range(3)]
    (tmp_path / "set.jsonl").write_text("\n".join(json.dumps(row) for row in rows) + "\n")
    config = tmp_path / "eval.yaml"
    config.write_text("data: set.jsonl\nmetrics: [token_f1, rouge_l]\n")
    done, modules = _fresh(["run", str(config), "--no-progress", "--store", str(tmp_path / "r.db")])
    assert done.returncode == 0, done.stderr
    assert "token_f1" in done.stdout
    unused = ("httpx2", "openai", "jinja2", "pandas", "ragjudge.targets.http", "ragjudge.knowledge")
    assert _loaded(modules, unused) == []


@pytest.mark.parametrize("package", ["ragjudge", "ragjudge.models", "ragjudge.terminal"])
def test_every_public_name_of_a_lazy_package_resolves(package: str) -> None:
    module = importlib.import_module(package)
    for name in module.__all__:
        assert getattr(module, name) is not None, name
    with pytest.raises(AttributeError, match="no_such_name"):
        _ = module.no_such_name


def test_a_lazy_name_is_the_defining_module_s_own() -> None:
    from ragjudge.models._model import JudgeModel
    from ragjudge.terminal._terminal import runs_table

    assert ragjudge.models.JudgeModel is JudgeModel
    assert ragjudge.terminal.runs_table is runs_table
    assert ragjudge.evaluate is importlib.import_module("ragjudge.api").evaluate

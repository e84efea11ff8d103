"""The pytest plugin ragjudge registers: its fixtures, used by a test file as a user
writes one, run by pytest in a subprocess (sync and async tests, the store in the test's
temporary folder or where the ini option says)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import tomllib
from importlib.metadata import entry_points
from pathlib import Path

import pytest

import ragjudge

pytestmark = pytest.mark.smoke

ROOT = Path(__file__).resolve().parents[1]
PLUGIN = "ragjudge.pytest._plugin"

USER_TESTS = """
from pathlib import Path

from ragjudge.pytest import assert_metric

ROWS = [
    {"request": "q1", "response": "red blue green", "expected_response": "red blue green"},
    {"request": "q2", "response": "red", "expected_response": "red blue"},
]


def test_sync(ragjudge_evaluate, tmp_path):
    result = ragjudge_evaluate(ROWS, metrics=["token_f1"])
    assert_metric(result, "token_f1", at_least=0.5)
    assert Path(result.store_path) == STORE(tmp_path)


async def test_async(ragjudge_aevaluate, tmp_path):
    result = await ragjudge_aevaluate(ROWS, metrics=["token_f1"])
    assert_metric(result, "token_f1", at_least=0.5)
    assert Path(result.store_path) == STORE(tmp_path)


def test_a_missed_bound_fails(ragjudge_evaluate):
    result = ragjudge_evaluate(ROWS, metrics=["token_f1"])
    assert_metric(result, "token_f1", at_least=0.99)
"""


def plugin_is_registered() -> bool:
    return any(e.value == PLUGIN for e in entry_points(group="pytest11"))


def run_pytest(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    # An editable install made before the entry point was declared does not list it;
    # naming the plugin then loads the same module the entry point names.
    load = [] if plugin_is_registered() else ["-p", PLUGIN]
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *load, *args]
    return subprocess.run(
        command, cwd=folder, env=same_ragjudge(), capture_output=True, text=True, timeout=300
    )


def same_ragjudge() -> dict[str, str]:
    """The environment with this process's ragjudge first on the import path, wherever
    the subprocess runs."""
    source = str(Path(ragjudge.__file__).resolve().parents[1])
    paths = [source, *filter(None, os.environ.get("PYTHONPATH", "").split(os.pathsep))]
    return {**os.environ, "PYTHONPATH": os.pathsep.join(paths)}


def write_user_project(folder: Path, store: str, ini: str = "") -> None:
    (folder / "pytest.ini").write_text(
        f"[pytest]\nasyncio_mode = auto\nasyncio_default_fixture_loop_scope = function\n{ini}",
        encoding="utf-8",
    )
    (folder / "test_quality.py").write_text(USER_TESTS + store, encoding="utf-8")


def test_the_entry_point_names_the_plugin_module() -> None:
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert declared["project"]["entry-points"]["pytest11"] == {"ragjudge": PLUGIN}


def test_the_fixtures_store_in_the_tests_folder_and_a_missed_bound_fails(tmp_path: Path) -> None:
    write_user_project(tmp_path, "\n\ndef STORE(tmp_path):\n    return tmp_path / 'runs.db'\n")
    done = run_pytest(tmp_path)
    assert "1 failed, 2 passed" in done.stdout, done.stdout + done.stderr
    assert "token_f1 mean 0.833 < 0.99" in done.stdout


def test_the_ini_option_names_a_store_kept_between_sessions(tmp_path: Path) -> None:
    store = textwrap.dedent(
        """

        def STORE(tmp_path):
            return Path(__file__).parent / "evals" / "runs.db"
        """
    )
    write_user_project(tmp_path, store, ini="ragjudge_store = evals/runs.db\n")
    done = run_pytest(tmp_path, "-k", "sync or async")
    assert "2 passed" in done.stdout, done.stdout + done.stderr
    assert (tmp_path / "evals" / "runs.db").is_file()

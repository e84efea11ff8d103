"""The ``ragjudge`` command's entry point: modules loaded with the collector paused and
frozen, the command itself run with the collector on."""

from __future__ import annotations

import gc
import subprocess
import sys
import types

import pytest

import ragjudge
import ragjudge.__main__ as entry
import ragjudge._util.gc


def test_the_modules_load_with_the_collector_off_and_the_command_runs_with_it_on(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(ragjudge._util.gc, "_command", False)  # restored after the test
    seen: dict[str, bool] = {}
    cli = types.ModuleType("ragjudge.cli")
    cli.main = lambda: seen.setdefault("running with the collector on", gc.isenabled())  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "ragjudge.cli", cli)
    # this test process keeps its objects collectable: freeze only records the state
    monkeypatch.setattr(
        gc, "freeze", lambda: seen.setdefault("frozen while off", not gc.isenabled())
    )
    entry.main()
    assert seen == {"frozen while off": True, "running with the collector on": True}
    assert gc.isenabled()


def test_python_dash_m_ragjudge_is_the_command() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "ragjudge", "--version"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert ragjudge.__version__ in done.stdout

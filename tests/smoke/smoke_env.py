"""Running ``ragjudge`` and Python the way a newcomer does, in a subprocess of the
interpreter that runs the tests (the core environment's or the full one's), in a
folder of their own."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from importlib.metadata import entry_points
from pathlib import Path

import ragjudge

ROOT = Path(__file__).resolve().parents[2]
QUICKSTART = ROOT / "examples" / "quickstart"
TIMEOUT = 600
PLUGIN = "ragjudge.pytest._plugin"


@dataclass(frozen=True)
class Finished:
    """How a command ended: its exit status and what it printed."""

    code: int
    out: str
    err: str

    @property
    def tracebacks(self) -> int:
        """Python tracebacks in its output: every one is a bug shown to the user."""
        return (self.out + self.err).count("Traceback (most recent call last)")


def same_ragjudge() -> dict[str, str]:
    """The environment with the ragjudge these tests import first on the import path,
    wherever the subprocess runs, and no network for local models."""
    source = str(Path(ragjudge.__file__).resolve().parents[1])
    paths = [source, *filter(None, os.environ.get("PYTHONPATH", "").split(os.pathsep))]
    return {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(paths),
        "HF_HUB_OFFLINE": "1",
        "COLUMNS": "160",
        "NO_COLOR": "1",
    }


def run_python(args: list[str], cwd: Path) -> Finished:
    """``python ARGS`` with this interpreter in ``cwd``."""
    done = subprocess.run(
        [sys.executable, *args],
        cwd=cwd,
        env=same_ragjudge(),
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        stdin=subprocess.DEVNULL,
    )
    return Finished(done.returncode, done.stdout, done.stderr)


def run_ragjudge(args: list[str], cwd: Path) -> Finished:
    """``ragjudge ARGS`` (as ``python -m ragjudge``) in ``cwd``."""
    return run_python(["-m", "ragjudge", *args], cwd)


def pytest_plugin_args() -> list[str]:
    """Nothing when the ragjudge pytest plugin is registered (its entry point); else the
    option that loads the module the entry point names (an editable install made before
    the entry point was declared does not list it)."""
    registered = any(e.value == PLUGIN for e in entry_points(group="pytest11"))
    return [] if registered else ["-p", PLUGIN]


def copy_examples(folder: Path) -> Path:
    """``folder`` holding a fresh copy of the repository's ``examples/`` (without stored
    runs): a project root where the README's paths (``examples/quickstart/…``) hold."""
    shutil.copytree(
        ROOT / "examples",
        folder / "examples",
        ignore=shutil.ignore_patterns(".ragjudge", "__pycache__", "reports"),
    )
    return folder


def copy_quickstart(folder: Path) -> Path:
    """A fresh copy of ``examples/quickstart`` (without stored runs) in ``folder``."""
    target = folder / "quickstart"
    shutil.copytree(QUICKSTART, target, ignore=shutil.ignore_patterns(".ragjudge", "__pycache__"))
    return target

"""A small local Ray cluster for one test module (2 CPUs, no dashboard), shut down
after it; the tests of a module that uses it skip with the reason when ``ray`` is not
installed. Also a target that kills the worker running it, once."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest


def ray_or_skip() -> Any:
    """The ``ray`` module, or skip the calling module saying how to get it."""
    return pytest.importorskip(
        "ray", reason="ray is not installed: pip install 'ragjudge[ray]' (make test does)"
    )


def local_cluster() -> Iterator[str]:
    """Start the cluster; yield its address (for subprocesses); stop it."""
    ray = ray_or_skip()
    # "local": a new cluster even when `ray start` left one running on this machine
    ray.init(
        address="local", num_cpus=2, include_dashboard=False, log_to_driver=False,
        logging_level="ERROR",
    )  # fmt: skip
    try:
        yield ray.get_runtime_context().gcs_address
    finally:
        ray.shutdown()


_KILLER = """
import os, signal
from pathlib import Path

def answer(query):
    mark = Path(__file__).with_name("killed")
    if query == "question {question}" and not mark.exists():
        mark.write_text(str(os.getpid()))
        os.kill(os.getpid(), signal.SIGKILL)
    return "answer " + query.split()[-1]
"""


def write_killer(folder: Path, question: int) -> None:
    """``folder/killer.py`` with a target ``killer:answer`` that kills its own process
    (a Ray worker) the first time it is asked ``question N`` (leaving the file
    ``killed`` with the process id), and answers every other time."""
    (folder / "killer.py").write_text(_KILLER.format(question=question))

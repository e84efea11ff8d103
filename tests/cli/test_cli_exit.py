"""The command line ends its process at once after a command, with the command's exit
status, everything it printed, and the exit handlers run."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from ragjudge import __version__


def python(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )


def ragjudge(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ragjudge", *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        cwd=cwd,
    )


def test_a_command_prints_everything_through_a_pipe() -> None:
    done = ragjudge("metrics", "--json")
    assert done.returncode == 0, done.stderr
    assert len(json.loads(done.stdout)) > 20


def test_the_version_and_the_status_of_a_user_mistake() -> None:
    assert ragjudge("--version").stdout.strip().endswith(__version__)
    missing = ragjudge("run", "no-such-eval.yaml")
    assert missing.returncode == 2
    assert "no-such-eval.yaml" in missing.stderr


def test_exit_handlers_run_and_the_status_is_kept() -> None:
    done = python(
        "import atexit; atexit.register(lambda: print('handler ran', flush=True))\n"
        "from ragjudge.cli._app import leave; leave(SystemExit(3))"
    )
    assert (done.returncode, done.stdout) == (3, "handler ran\n")


def test_a_message_as_the_status_is_printed_and_exits_1() -> None:
    done = python("from ragjudge.cli._app import leave; leave(SystemExit('cannot go on'))")
    assert (done.returncode, done.stderr) == (1, "cannot go on\n")


def test_a_thread_still_running_is_waited_for() -> None:
    done = python(
        "import threading, time\n"
        "from ragjudge.cli._app import leave\n"
        "def late(): time.sleep(0.3); print('thread done', flush=True)\n"
        "threading.Thread(target=late).start()\n"
        "leave(SystemExit(0))"
    )
    assert (done.returncode, done.stdout) == (0, "thread done\n")

"""Start-up of the command line: ``ragjudge --help``, ``ragjudge runs`` and ``ragjudge
show RUN``, each a fresh process.

The store is made first by the real command line from the quickstart example
(``examples/quickstart/eval.yaml``: seven lexical metrics, no judge). Every command is
then run ``--repeat`` times in a child process (``python -m ragjudge ...``, output
discarded), timed from start to exit; ``python -c pass`` is timed the same way as the
floor no command can beat.

Bound (from the issue): ``ragjudge --help`` at most 0.4 s (median). ``runs`` and
``show`` are printed without a bound (``show`` computes the summary, so it loads
pandas and numpy). Exit status 1 when ``--help`` misses the bound. Run with::

    .venv/bin/python benchmarks/startup.py [--repeat N]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import _corpus
import _machine

QUICKSTART = _corpus.ROOT / "examples" / "quickstart" / "eval.yaml"
MAX_HELP_SECONDS = 0.4
CLI = [sys.executable, "-m", "ragjudge"]


def make_store(folder: Path) -> tuple[Path, str]:
    """The quickstart run in a fresh store in ``folder``: (store, run id)."""
    store = folder / "runs.db"
    command = [*CLI, "run", str(QUICKSTART), "--no-progress", "--json", "--store", str(store)]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"the quickstart run failed ({done.returncode}):\n{done.stderr}")
    return store, str(json.loads(done.stdout)["run_id"])


def wall_times(command: list[str], repeat: int) -> list[float]:
    """Seconds from start to exit of ``command``, ``repeat`` times; it must exit 0."""
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        done = subprocess.run(command, capture_output=True, check=False)
        times.append(time.perf_counter() - started)
        if done.returncode != 0:
            raise SystemExit(f"{command} exited {done.returncode}:\n{done.stderr.decode()}")
    return times


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--repeat", type=int, default=15)
    args = parser.parse_args()
    _corpus.byte_compile_sources()
    _machine.print_machine("start")
    with tempfile.TemporaryDirectory(prefix="ragjudge-startup-") as tmp:
        store, run_id = make_store(Path(tmp))
        commands = {
            "python -c pass": [sys.executable, "-c", "pass"],
            "ragjudge --help": [*CLI, "--help"],
            "ragjudge runs": [*CLI, "runs", "--store", str(store)],
            "ragjudge show RUN": [*CLI, "show", run_id, "--store", str(store)],
        }
        medians = {}
        for name, command in commands.items():
            times = wall_times(command, args.repeat)
            medians[name] = statistics.median(times)
            print(
                f"{name}: median {medians[name]:.3f} s, best {min(times):.3f} s, "
                f"worst {max(times):.3f} s ({args.repeat} runs)"
            )
    _machine.print_machine("end")
    line = _corpus.ratio_line(
        "ragjudge --help (median)", medians["ragjudge --help"], MAX_HELP_SECONDS
    )
    print(line)
    return 0 if "FAIL" not in line else 1


if __name__ == "__main__":
    raise SystemExit(main())

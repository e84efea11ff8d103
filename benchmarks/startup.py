"""Start-up of the command line: ``ragjudge --help``, ``ragjudge runs`` and ``ragjudge
show RUN``, each a fresh process.

The store is made first by the real command line from the quickstart example
(``examples/quickstart/eval.yaml``: seven lexical metrics, no judge). Every command is
then run ``--repeat`` times in a child process (``python -m ragjudge ...``, output
discarded), timed from start to exit; ``python -c pass`` is timed the same way as the
floor no command can beat. The commands take turns, one run each per round, so a
change of load during the run touches all of them.

The reference, measured in the same run and started the same way: a bare typer app
with as many commands as ``ragjudge`` (each with a docstring and two options), written
to a temporary file, asked for ``--help``. It imports typer and rich and renders the
same kind of help screen, so it takes what the libraries alone take on this machine —
its processor, the cores other work leaves free, whether their byte code is compiled.
Their ratio is what ragjudge itself adds, and travels between machines where the
seconds do not.

Bound: ``ragjudge --help`` (median) at most 1.5 x the bare typer app (median); the
absolute median is printed beside it. ``runs`` and ``show`` are printed without a
bound (``show`` computes the summary, so it loads pandas and numpy). The project's
byte code is compiled first, as installing does (with ``PYTHONDONTWRITEBYTECODE`` set
and nothing compiled, every start compiles the modules it imports again: about
0.1–0.15 s more for ``--help`` on a 2-core machine). Exit status 1 when ``--help``
misses the bound. Run with::

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
MAX_HELP_RATIO = 1.5
"""``ragjudge --help`` against the bare typer app's ``--help`` (medians)."""
CLI = [sys.executable, "-m", "ragjudge"]
BARE_COMMAND = '''

@app.command("command-{number}")
def command_{number}(
    path: str = typer.Argument(..., help="A path."),
    store: str = typer.Option("runs.db", help="The store."),
) -> None:
    """Command number {number}: what it does, in one line."""
'''


def command_count() -> int:
    """Commands of ``ragjudge`` (this process imports the command line once, untimed)."""
    import typer.main

    from ragjudge.cli._app import app

    return len(getattr(typer.main.get_command(app), "commands", {}))


def write_bare_app(folder: Path, commands: int) -> Path:
    """A typer app with ``commands`` commands and nothing else, as a script."""
    script = folder / "bare_typer_app.py"
    body = "".join(BARE_COMMAND.format(number=number) for number in range(commands))
    script.write_text(
        "import typer\n\napp = typer.Typer(no_args_is_help=True, help='A bare app.')\n"
        + body
        + "\nif __name__ == '__main__':\n    app()\n"
    )
    return script


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
        bare_app = write_bare_app(Path(tmp), command_count())
        commands = {
            "python -c pass": [sys.executable, "-c", "pass"],
            "bare typer app --help (reference)": [sys.executable, str(bare_app), "--help"],
            "ragjudge --help": [*CLI, "--help"],
            "ragjudge runs": [*CLI, "runs", "--store", str(store)],
            "ragjudge show RUN": [*CLI, "show", run_id, "--store", str(store)],
        }
        timings: dict[str, list[float]] = {name: [] for name in commands}
        for _ in range(args.repeat):  # in turns, so a change of load touches every command
            for name, command in commands.items():
                timings[name] += wall_times(command, 1)
        medians = {}
        for name, times in timings.items():
            medians[name] = statistics.median(times)
            print(
                f"{name}: median {medians[name]:.3f} s, best {min(times):.3f} s, "
                f"worst {max(times):.3f} s ({args.repeat} runs)"
            )
    _machine.print_machine("end")
    reference = medians["bare typer app --help (reference)"]
    print(
        f"ragjudge --help median {medians['ragjudge --help']:.3f} s, bare typer app "
        f"{reference:.3f} s"
    )
    line = _corpus.ratio_line(
        "ragjudge --help / bare typer app --help (medians)",
        medians["ragjudge --help"] / reference,
        MAX_HELP_RATIO,
        "x",
    )
    print(line)
    return 0 if "FAIL" not in line else 1


if __name__ == "__main__":
    raise SystemExit(main())

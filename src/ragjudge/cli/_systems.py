"""What ``ragjudge run`` prints after evaluating a wide file once per system: the runs
made, and the command that compares two of them sample by sample."""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from rich.console import Console
from rich.text import Text

if TYPE_CHECKING:
    from ragjudge.analysis import EvaluationResult


def print_system_runs(
    runs: Sequence[tuple[str, EvaluationResult]], store: Path, console: Console
) -> None:
    """One line per system's run (its id and name), then the compare command of the
    first two runs."""
    console.print(Text(f"{len(runs)} runs, one per system:"))
    for system, result in runs:
        console.print(Text(f"  {system}: {result.run_id}"), soft_wrap=True)
    first, second = runs[0][1].run_id, runs[1][1].run_id
    command = shlex.join(["ragjudge", "compare", first, second, "--store", str(store)])
    console.print(Text(f"compare them: {command}"), soft_wrap=True)


def systems_not_started(systems: Sequence[str], started: int) -> str | None:
    """What to say of the systems whose runs had not started when a run of a wide file
    stopped (its resume finishes the run it was in only), or None when none is left."""
    left = systems[started:]
    if not left:
        return None
    return (
        f"systems not started: {', '.join(left)}; after the resume, run them with a "
        "config whose 'systems' lists only them"
    )

"""The machine a benchmark ran on, printed at its start and its end.

Absolute figures (seconds, rows a second) differ between machines by the processor,
the cores left free by other work and whether Python has to compile the project's
byte code first; these lines make a printed figure readable elsewhere:

    machine: AMD EPYC 2445 MHz; 2 cores, 2 usable; CPython 3.11.7; byte code of
    ragjudge 212/212 compiled and fresh, writing allowed; load average 0.02 0.17 0.70

It imports nothing of ragjudge, so the start-up benchmark's figures do not pay for it.
"""

from __future__ import annotations

import importlib.util
import os
import platform
import sys
from pathlib import Path


def load_average() -> str:
    """The machine's 1/5/15-minute load averages, for the printed figures."""
    try:
        parts = Path("/proc/loadavg").read_text().split()[:3]
    except OSError:
        return "unknown"
    return " ".join(parts)


def cpu_model() -> str:
    """The processor's model name and clock (from ``/proc/cpuinfo``), else the
    platform's own name for it."""
    try:
        lines = Path("/proc/cpuinfo").read_text().splitlines()
    except OSError:
        return platform.processor() or "unknown processor"
    fields = dict(line.split(":", 1) for line in lines if ":" in line)
    fields = {key.strip(): value.strip() for key, value in fields.items()}
    model = fields.get("model name") or platform.processor() or "unknown processor"
    megahertz = fields.get("cpu MHz")
    return f"{model} {float(megahertz):.0f} MHz" if megahertz else model


def cores() -> str:
    """Cores of the machine and those this process may run on."""
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None
    return f"{os.cpu_count()} cores, {usable if usable is not None else '?'} usable"


def python_build() -> str:
    """Implementation and version of the running Python."""
    return f"{platform.python_implementation()} {platform.python_version()}"


def _source_files() -> list[Path]:
    spec = importlib.util.find_spec("ragjudge")
    if spec is None or not spec.submodule_search_locations:
        return []
    package = Path(next(iter(spec.submodule_search_locations)))
    return sorted(package.rglob("*.py"))


def _compiled_and_fresh(source: Path) -> bool:
    compiled = Path(importlib.util.cache_from_source(str(source)))
    try:
        return compiled.stat().st_mtime >= source.stat().st_mtime
    except OSError:
        return False


def byte_code_state() -> str:
    """How many of ragjudge's modules have up-to-date byte code, and whether Python
    may write what is missing (else every start compiles it again)."""
    sources = _source_files()
    fresh = sum(_compiled_and_fresh(source) for source in sources)
    writing = (
        "writing off (PYTHONDONTWRITEBYTECODE or -B)"
        if sys.dont_write_bytecode
        else "writing allowed"
    )
    return f"byte code of ragjudge {fresh}/{len(sources)} compiled and fresh, {writing}"


def describe() -> str:
    """One line: processor, cores, Python, byte code and load average."""
    return (
        f"{cpu_model()}; {cores()}; {python_build()}; {byte_code_state()}; "
        f"load average {load_average()}"
    )


def print_machine(when: str) -> None:
    """Print the machine line, ``when`` saying where in the run it is (start, end)."""
    print(f"machine at {when}: {describe()}", flush=True)

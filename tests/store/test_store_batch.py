"""Results are committed in batches: within the batch window, at the batch size, and
at once when a run ends; a killed process loses at most the last window. The window's
timer runs in virtual time (:mod:`virtual_time`), so "within the window" is exact."""

from __future__ import annotations

import asyncio
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

from ragjudge.schema import Output, Score
from ragjudge.store._batch import BATCH_SECONDS, ResultWriter
from ragjudge.store._store import Store
from virtual_time import run_in_virtual_time

TESTS = Path(__file__).resolve().parents[1]


def stored(path: Path) -> int:
    with sqlite3.connect(path, timeout=5) as conn:
        return int(conn.execute("SELECT COUNT(*) FROM scores").fetchone()[0])


def new_store(tmp_path: Path) -> Store:
    store = Store(tmp_path / "runs.db")
    store.create_run(run_id="r", name=None, config={}, versions={}, samples=[], trials=1)
    return store


def scores(n: int = 2) -> list[Score]:
    return [Score(metric=f"m{i}", value=0.5, details={"k": i}) for i in range(n)]


def test_results_are_committed_within_the_window(tmp_path: Path) -> None:
    store = new_store(tmp_path)
    writer = ResultWriter(store, "r", seconds=0.1, rows=1000)

    async def main() -> tuple[int, int]:
        writer.output("a", Output(response="x"))
        writer.scores("a", 0, scores())
        await asyncio.sleep(0.099)  # nothing else happens …
        waiting = stored(store.path), writer.pending
        await asyncio.sleep(0.002)  # … and the window ends: the timer commits them
        return waiting

    assert run_in_virtual_time(main()) == (0, 3)
    assert stored(store.path) == 2 and writer.pending == 0 and writer.commits == 1
    assert store.outputs("r")["a"].response == "x"


async def test_a_full_batch_is_committed_at_once(tmp_path: Path) -> None:
    store = new_store(tmp_path)
    writer = ResultWriter(store, "r", seconds=60, rows=5)
    for sample in "abc":
        writer.scores(sample, 0, scores())
    assert stored(store.path) == 6 and writer.pending == 0
    writer.scores("d", 0, scores())
    writer.flush()
    assert stored(store.path) == 8
    with sqlite3.connect(store.path) as conn:
        details = conn.execute("SELECT details_json FROM scores WHERE request_id = 'd'").fetchall()
    assert sorted(d for (d,) in details) == ['{"k": 0}', '{"k": 1}']


def test_the_default_window_is_half_a_second() -> None:
    assert BATCH_SECONDS == 0.5


WRITER = """
import asyncio, sys
sys.path.insert(0, sys.argv[3])
from virtual_time import run_in_virtual_time
from ragjudge.schema import Score
from ragjudge.store._store import Store
from ragjudge.store._batch import ResultWriter

async def main() -> None:
    store = Store(sys.argv[1])
    store.create_run(run_id="r", name=None, config={}, versions={}, samples=[], trials=1)
    writer = ResultWriter(store, "r", seconds=float(sys.argv[2]), rows=10_000)
    loop = asyncio.get_running_loop()
    for n in range(10_000):
        writer.scores(f"s{n:05d}", 0, [Score(metric="m", value=1.0)])
        print(f"s{n:05d} {loop.time()}", flush=True)  # finished, at this (virtual) time
        await asyncio.sleep(0.01)

run_in_virtual_time(main())
"""


def test_a_killed_process_loses_at_most_the_last_window(tmp_path: Path) -> None:
    window = 0.2
    script = tmp_path / "writer.py"
    script.write_text(textwrap.dedent(WRITER))
    path = tmp_path / "runs.db"
    process = subprocess.Popen(
        [sys.executable, str(script), str(path), str(window), str(TESTS)],
        stdout=subprocess.PIPE,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
        text=True,
    )
    assert process.stdout is not None
    finished: list[tuple[str, float]] = []
    while len(finished) < 150:
        sample, at = process.stdout.readline().split()
        finished.append((sample, float(at)))
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=10)
    for line in process.stdout.read().splitlines():  # printed before the kill
        if len(parts := line.split()) == 2:
            finished.append((parts[0], float(parts[1])))
    with sqlite3.connect(path) as conn:
        kept = {row[0] for row in conn.execute("SELECT request_id FROM scores")}
    # everything that finished a window (and a step, against rounding) before the last
    # line printed before the kill is stored; what is stored is a prefix of what finished
    last = finished[-1][1]
    old_enough = [s for s, at in finished if at < last - window - 0.01]
    assert len(old_enough) > 50
    assert set(old_enough) <= kept
    assert kept == {s for s, _ in finished[: len(kept)]}

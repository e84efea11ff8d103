"""Peak memory and wall time of a local ``ragjudge run`` over a folder of Parquet files,
against the size of the set.

For each size (default 100,000 rows) a folder of Parquet files of lexical rows
(``_corpus.lexical_rows``, 10,000 rows a file, written a file at a time) is scored with
five lexical metrics by the real command line in a child process (the local executor,
``processes: auto``), into a fresh store. Printed per size: the wall time and the peak
resident memory of the command (the largest of its process and the scoring workers it
forked: ``wait4``'s figure), and the rows the store holds. ``--src`` runs another
checkout's code (for example the code before a change) with the same sets. Run with::

    .venv/bin/python benchmarks/local_memory.py [--sizes 100000,1000000] [--src PATH]
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import _corpus
from ray_lexical import METRICS

FILE_ROWS = 10_000


def write_parquet_folder(folder: Path, samples: int) -> None:
    """``samples`` lexical rows as Parquet files of :data:`FILE_ROWS` rows, one file
    made at a time (the rows of each file drawn with its own seed, numbered across
    files)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    folder.mkdir()
    for number, start in enumerate(range(0, samples, FILE_ROWS)):
        count = min(FILE_ROWS, samples - start)
        rows = _corpus.lexical_rows(count, seed=number)
        for offset, row in enumerate(rows):
            row["request_id"] = f"r{start + offset:07d}"
            row["request"] = f"Question {start + offset}"
            references = row["expected_response"]
            row["expected_response"] = references if isinstance(references, list) else [references]
        pq.write_table(pa.Table.from_pylist(rows), folder / f"part-{number:04d}.parquet")


def run_once(config: Path, store: Path, src: str | None) -> tuple[float, float]:
    """One ``ragjudge run``: (wall seconds, the peak RSS in MB)."""
    command = [sys.executable, "-m", "ragjudge", "run", str(config), "--no-progress"]
    command += ["--store", str(store)]
    env = dict(os.environ)
    if src is not None:
        env["PYTHONPATH"] = src
    started = time.perf_counter()
    child = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - started
    assert child.stderr is not None
    errors = child.stderr.read().decode(errors="replace")
    if os.waitstatus_to_exitcode(status) != 0:
        sys.stderr.write(errors)
        raise SystemExit("ragjudge run failed")
    return wall, usage.ru_maxrss / 1024


def stored_scores(store: Path) -> int:
    with sqlite3.connect(store) as conn:
        return int(conn.execute("SELECT COUNT(*) FROM scores").fetchone()[0])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--sizes", default="100000")
    parser.add_argument("--src", default=None, help="the PYTHONPATH of the measured command")
    args = parser.parse_args()
    print(f"{len(METRICS)} lexical metrics on a Parquet folder, local executor")
    print(f"code: {args.src or 'this checkout'}; load average before: {_corpus.load_average()}")
    for samples in (int(s) for s in args.sizes.split(",")):
        with tempfile.TemporaryDirectory(prefix="ragjudge-local-memory-") as tmp:
            folder = Path(tmp)
            write_parquet_folder(folder / "set", samples)
            config = folder / "eval.yaml"
            config.write_text(
                f"name: local-memory-bench\ndata: set\nmetrics: {json.dumps(METRICS)}\n"
            )
            wall, rss = run_once(config, folder / "runs.db", args.src)
            scores = stored_scores(folder / "runs.db")
            print(
                f"{samples:>9,} rows | {wall:7.1f} s | peak RSS {rss:6.0f} MB "
                f"({1024 * 1024 * rss / samples:,.0f} bytes a row) | {scores:,} scores stored"
            )
            if scores != samples * len(METRICS):
                print(f"expected {samples * len(METRICS):,} scores")
                return 1
    print(f"load average after: {_corpus.load_average()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""The cost of the results table: ``ragjudge run`` with five lexical metrics on the
local executor, once without and once with ``results_table`` (Parquet, partitioned by
the rows' ``lang``), then ``show --table`` and ``export --table`` of that run.

The samples are ``_corpus.lexical_rows`` (a Parquet folder of 10,000 rows a file, as
``ray_memory.py`` writes it). Printed: each command's wall time and peak resident memory
(the child's own high-water mark, ``VmHWM``), the table's files and size on disk, and whether the
table holds every stored score once. Wall time on a shared machine is indicative only.
Exit status 1 when the table and the store differ. Run with::

    .venv/bin/python benchmarks/results_table.py [--samples N]
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from ray_lexical import METRICS
from ray_memory import write_parquet_folder


def timed(args: list[str], cwd: Path) -> tuple[float, float, str]:
    """One ``ragjudge`` command: (wall seconds, peak RSS in MB, its standard error).

    The peak is the child's own ``VmHWM``, read while it runs: ``ru_maxrss`` would
    count this process's memory at the fork (the evaluation set it just wrote)."""
    command = [sys.executable, "-m", "ragjudge", *args]
    started = time.perf_counter()
    with tempfile.TemporaryFile() as said:
        child = subprocess.Popen(command, cwd=cwd, stdout=subprocess.DEVNULL, stderr=said)
        peak = 0.0
        while child.poll() is None:
            peak = max(peak, _high_water_mb(child.pid))
            time.sleep(0.05)
        wall = time.perf_counter() - started
        said.seek(0)
        text = said.read().decode(errors="replace")
    if child.returncode != 0:
        sys.stderr.write(text)
        raise SystemExit(f"ragjudge {' '.join(args)} failed")
    return wall, peak, text


def _high_water_mb(pid: int) -> float:
    """The process's peak resident memory so far (0 once it is gone)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return 0.0
    for line in status.splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return 0.0


def write_config(folder: Path, name: str, table: bool) -> Path:
    config = folder / f"{name}.yaml"
    text = f"name: {name}\ndata: set\nmetrics: {json.dumps(METRICS)}\nreport: false\n"
    if table:
        text += "results_table: {path: table, partition_by: [lang]}\n"
    config.write_text(text, encoding="utf-8")
    return config


def same_scores(store: Path, table: Path) -> bool:
    """The table holds each stored score once, with the stored values."""
    import pyarrow.compute as pc
    import pyarrow.dataset as ds

    scores = ds.dataset(table / "scores", format="parquet", partitioning="hive")
    read = scores.to_table(columns=["request_id", "trial", "score", "value"])
    keys = pc.binary_join_element_wise(
        read.column("request_id"),
        pc.cast(read.column("trial"), "string"),
        read.column("score"),
        "|",
    )
    with sqlite3.connect(store) as conn:
        stored, total = conn.execute(
            "SELECT COUNT(*), ROUND(TOTAL(value), 4) FROM scores WHERE run_id = "
            "(SELECT run_id FROM runs WHERE name = 'with-table')"
        ).fetchone()
    unique = len(pc.unique(keys))
    summed = round(pc.sum(read.column("value")).as_py() or 0.0, 4)
    print(f"table rows {read.num_rows}, unique keys {unique}, store rows {stored}")
    return bool(read.num_rows == unique == stored and summed == total)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=100_000)
    parser.add_argument(
        "--with-table-only", action="store_true", help="Leave out the run without the table."
    )
    args = parser.parse_args()
    print(f"{args.samples} samples x {len(METRICS)} lexical metrics, local executor")
    with tempfile.TemporaryDirectory(prefix="ragjudge-results-table-") as tmp:
        folder = Path(tmp)
        write_parquet_folder(folder / "set", args.samples)
        store = folder / "runs.db"
        runs = [("with-table", True)]
        if not args.with_table_only:
            runs.insert(0, ("without-table", False))
        for name, table in runs:
            config = write_config(folder, name, table)
            wall, rss, _ = timed(
                ["run", str(config), "--no-progress", "--store", str(store)], folder
            )
            print(f"run {name}: {wall:.1f} s, peak RSS {rss:.0f} MB")
        files = list((folder / "table").rglob("*.parquet"))
        size = sum(f.stat().st_size for f in files) / 1e6
        print(f"table: {len(files)} files, {size:.1f} MB")
        for label, command in (
            ("show --table", ["show", "latest", "--table", "table"]),
            ("export --table", ["export", "latest", "--table", "table", "-o", "rows.parquet"]),
            (
                "export --table (jsonl)",
                ["export", "latest", "--table", "table", "-o", "rows.jsonl"],
            ),
            ("show (store)", ["show", "latest", "--store", str(store)]),
        ):
            wall, rss, _ = timed(command, folder)
            print(f"{label}: {wall:.1f} s, peak RSS {rss:.0f} MB")
        if not same_scores(store, folder / "table"):
            raise SystemExit("the table and the store differ")


if __name__ == "__main__":
    main()

"""Peak memory of ``ragjudge run`` against the size of a Parquet evaluation set: the
local executor, which holds the set, beside the Ray driver, which streams it.

For each size (default 20,000, 50,000 and 100,000 rows) a folder of Parquet files
(``_corpus.lexical_rows``, 10,000 rows a file) is scored with five lexical metrics by
the real command line in a child process, with the local executor and with
``--executor ray`` (a local cluster of ``--cpus`` CPUs, ``--workers`` workers, batches
of ``--batch-size``), each into a fresh store. Printed per run: the wall time, the
child's peak resident memory (the whole command: loading, the run, the summary at the
end), and on Ray the driver's peak up to the end of the batches (the run's
``ray_execution`` event: before the summary reads the score columns) and the largest
worker's.

"Bounded" shows as the Ray driver's peak during the batches staying (nearly) flat as
the set grows, where the local process grows with it. The stored values of the two
executors are compared per size (count and sum per metric); the exit status is 1 only
when a run fails or they differ. Run with::

    .venv/bin/python benchmarks/ray_memory.py [--sizes 20000,50000,100000] [--cpus N]
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path
from typing import Any

import _corpus
from ray_lexical import METRICS, run_local_and_ray

FILE_ROWS = 10_000


def write_parquet_folder(folder: Path, samples: int) -> None:
    """The lexical rows as Parquet files of :data:`FILE_ROWS` rows in ``folder``."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    folder.mkdir()
    rows = _corpus.lexical_rows(samples, seed=1)
    for number, start in enumerate(range(0, samples, FILE_ROWS)):
        part = [
            {**row, "expected_response": _as_list(row["expected_response"])}
            for row in rows[start : start + FILE_ROWS]
        ]
        pq.write_table(pa.Table.from_pylist(part), folder / f"part-{number:04d}.parquet")


def _as_list(references: str | list[str]) -> list[str]:
    """One column type for Parquet: every reference answer as a list."""
    return references if isinstance(references, list) else [references]


def write_config(folder: Path, ray: dict[str, Any]) -> Path:
    config = folder / "eval.yaml"
    config.write_text(
        f"name: ray-memory-bench\ndata: set\nmetrics: {json.dumps(METRICS)}\n"
        f"ray: {json.dumps(ray)}\n"
    )
    return config


def bound_rows(ray: dict[str, Any]) -> int:
    """Samples in flight at most: workers × batches per worker × batch size."""
    return int(ray["workers"]) * int(ray.get("batches_per_worker", 2)) * int(ray["batch_size"])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--sizes", default="20000,50000,100000")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--cpus", type=int, default=2)
    parser.add_argument("--batch-size", type=int, default=1000)
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    ray = {"num_cpus": args.cpus, "workers": args.workers, "batch_size": args.batch_size}
    print(f"{len(METRICS)} lexical metrics on a Parquet folder; Ray: {ray}")
    print(f"samples in flight on Ray at most: {bound_rows(ray)}")
    print(f"load average before: {_corpus.load_average()}")
    same = True
    for samples in sizes:
        with tempfile.TemporaryDirectory(prefix="ragjudge-ray-memory-") as tmp:
            folder = Path(tmp)
            write_parquet_folder(folder / "set", samples)
            config = write_config(folder, ray)
            runs = run_local_and_ray(config, folder)
            event = runs.event
            print(
                f"{samples:>7} rows | local: {runs.local_wall:6.1f} s, peak RSS {runs.local_rss:5.0f} MB"
                f" | ray: {runs.ray_wall:6.1f} s, driver peak RSS during the batches "
                f"{event['driver_peak_rss_mb']:5.0f} MB, whole command {runs.ray_rss:5.0f} MB, "
                f"largest worker {event['worker_peak_rss_mb']:4.0f} MB"
            )
            same = same and runs.same
    print(f"stored values identical at every size (count and sum per metric): {same}")
    print(f"load average after: {_corpus.load_average()}")
    return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main())

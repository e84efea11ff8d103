"""``ragjudge run`` with five lexical metrics: one local process against a local Ray
cluster on the same machine — wall time, peak memory of the driver and of the
workers, and where the time goes on Ray.

The samples (``_corpus.lexical_rows``: every fifth in Japanese, responses in the data)
are scored with ``exact_match``, ``fuzzy_match``, ``word_recall``, ``token_f1`` and
``rouge_l`` by the real command line in a child process, once with the local executor
and once with ``--executor ray`` (a local cluster of ``--cpus`` CPUs that the command
starts and stops, ``--workers`` workers, batches of ``--batch-size``). Each run has a
fresh store. The wall time counts everything the user waits for, Ray's start-up
included. Peak memory: the local process's maximum resident set; on Ray, the driver's
and the largest worker's, as the run records them (its ``ray_execution`` event), with
the breakdown of the driver's time: dispatching batches (serialising samples),
waiting for results (the workers computing, plus transfer), writing the store; and
the workers' summed busy time.

The stored values of both runs are compared (count and sum per metric). Nothing is
checked against a bound (the issue asks for figures): the exit status is 1 only when
a run fails or the two runs store different values. Run with::

    .venv/bin/python benchmarks/ray_lexical.py [--samples N] [--workers N] [--cpus N]
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
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import _corpus

METRICS = ["exact_match", "fuzzy_match", "word_recall", "token_f1", "rouge_l"]


def write_project(folder: Path, samples: int, ray: dict[str, Any]) -> Path:
    """The evaluation set and its config (with its ``ray:`` section) in ``folder``."""
    rows = _corpus.lexical_rows(samples, seed=1)
    with (folder / "set.jsonl").open("w", encoding="utf-8") as out:
        for row in rows:
            out.write(json.dumps(row, ensure_ascii=False) + "\n")
    config = folder / "eval.yaml"
    config.write_text(
        f"name: ray-lexical-bench\ndata: set.jsonl\nmetrics: {json.dumps(METRICS)}\n"
        f"ray: {json.dumps(ray)}\n"
    )
    return config


def run_once(config: Path, store: Path, executor: str) -> tuple[float, float]:
    """One ``ragjudge run``: (wall seconds, the child's peak RSS in MB)."""
    command = [sys.executable, "-m", "ragjudge", "run", str(config), "--no-progress"]
    command += ["--store", str(store), "--executor", executor]
    started = time.perf_counter()
    child = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - started
    if os.waitstatus_to_exitcode(status) != 0:
        assert child.stderr is not None
        sys.stderr.write(child.stderr.read().decode(errors="replace"))
        raise SystemExit(f"ragjudge run --executor {executor} failed")
    return wall, usage.ru_maxrss / 1024


def stored_values(store: Path) -> dict[str, tuple[int, float]]:
    """Per metric, the count and the sum of the stored values."""
    with sqlite3.connect(store) as conn:
        rows = conn.execute(
            "SELECT metric, COUNT(value), ROUND(SUM(value), 6) FROM scores GROUP BY metric"
        ).fetchall()
    return {metric: (count, total) for metric, count, total in rows}


def ray_event(store: Path) -> dict[str, Any]:
    """The run's ``ray_execution`` event (its timings and memory)."""
    with sqlite3.connect(store) as conn:
        (data,) = conn.execute(
            "SELECT data_json FROM run_events WHERE kind = 'ray_execution'"
        ).fetchone()
    event: dict[str, Any] = json.loads(data)
    return event


@dataclass(frozen=True)
class LocalAndRay:
    """The same config run locally then on Ray, into ``local.db`` and ``ray.db``."""

    local_wall: float
    local_rss: float
    ray_wall: float
    ray_rss: float
    event: dict[str, Any]  # the Ray run's ``ray_execution`` event
    same: bool  # the stored values are identical (count and sum per metric)


def run_local_and_ray(config: Path, folder: Path) -> LocalAndRay:
    """Run ``config`` with each executor (stores in ``folder``) and compare what they stored."""
    local_wall, local_rss = run_once(config, folder / "local.db", "local")
    ray_wall, ray_rss = run_once(config, folder / "ray.db", "ray")
    same = stored_values(folder / "local.db") == stored_values(folder / "ray.db")
    return LocalAndRay(local_wall, local_rss, ray_wall, ray_rss, ray_event(folder / "ray.db"), same)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--samples", type=int, default=100_000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--cpus", type=int, default=2)
    parser.add_argument("--batch-size", type=int, default=1000)
    args = parser.parse_args()
    _corpus.byte_compile_sources()
    ray = {"num_cpus": args.cpus, "workers": args.workers, "batch_size": args.batch_size}
    print(f"{args.samples} samples x {len(METRICS)} lexical metrics; Ray: {ray}")
    print(f"load average before: {_corpus.load_average()}")
    with tempfile.TemporaryDirectory(prefix="ragjudge-ray-lexical-") as tmp:
        folder = Path(tmp)
        config = write_project(folder, args.samples, ray)
        runs = run_local_and_ray(config, folder)
        local_wall, local_rss, ray_wall, event = (
            runs.local_wall,
            runs.local_rss,
            runs.ray_wall,
            runs.event,
        )
        print(
            f"local: {local_wall:.1f} s, {args.samples / local_wall:.0f} rows/s, "
            f"peak RSS {local_rss:.0f} MB"
        )
        print(
            f"ray:   {ray_wall:.1f} s, {args.samples / ray_wall:.0f} rows/s, driver peak RSS "
            f"{event['driver_peak_rss_mb']:.0f} MB, largest worker peak RSS "
            f"{event['worker_peak_rss_mb']:.0f} MB ({event['workers']} workers, "
            f"{event['batches']} batches)"
        )
        loop = event["dispatching_s"] + event["waiting_s"] + event["writing_s"]
        print(
            f"ray driver time: dispatch/serialise {event['dispatching_s']:.1f} s, waiting for "
            f"workers {event['waiting_s']:.1f} s, writing the store {event['writing_s']:.1f} s; "
            f"outside the batch loop (start-up, loading, Ray start/stop, summary) "
            f"{ray_wall - loop:.1f} s"
        )
        busy = event["worker_busy_s"]
        print(
            f"ray workers: {busy:.1f} s busy in total ({busy / max(event['workers'], 1):.1f} s "
            f"each), {1000 * busy / args.samples:.3f} ms per sample"
        )
        print(f"wall ratio ray / local: {ray_wall / local_wall:.2f}")
        same = runs.same
        print(f"stored values identical (count and sum per metric): {same}")
    print(f"load average after: {_corpus.load_average()}")
    return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main())

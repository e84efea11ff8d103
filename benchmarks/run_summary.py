"""The end-of-run summary of a large stored run: its time and the memory it allocates.

A store is filled with ``--samples`` samples (default 100,000) × 5 scores each (values
like the lexical metrics', one error in 500), then ``summarize_run`` — the summary
``ragjudge run``, ``show`` and the Python API print — is timed (best of ``--repeat``)
and run once under ``tracemalloc`` for its peak allocation. The same figures are
printed for the frame-based summary it replaced (``frame_summary``: every score in a
pandas frame), and the two must agree. Exit status 1 when they differ. Run with::

    .venv/bin/python benchmarks/run_summary.py [--samples N] [--repeat N]
"""

from __future__ import annotations

import argparse
import random
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

import _corpus

from ragjudge.analysis._columns import summarize_columns
from ragjudge.analysis._meanings import exclusions, run_meanings
from ragjudge.analysis._results import frame_summary, summarize_run
from ragjudge.schema import Sample, Score
from ragjudge.store._store import Store, score_rows

METRICS = ("exact_match", "fuzzy_match", "word_recall", "token_f1", "rouge_l")


def fill(store: Store, samples: int) -> str:
    """A run of ``samples`` samples with five scores each; its id."""
    rng = random.Random(1)
    rows = [Sample(request_id=f"r{i}", request=f"q{i}") for i in range(samples)]
    run_id = store.create_run(name=None, config={}, versions={}, samples=rows, trials=1)
    for start in range(0, samples, 5_000):
        page = []
        for i in range(start, min(samples, start + 5_000)):
            scores = [
                Score.failed(m, "metric error")
                if rng.random() < 0.002
                else Score(metric=m, value=round(rng.random(), 3))
                for m in METRICS
            ]
            page += score_rows(run_id, f"r{i}", 0, scores)
        store.write_results([], page)
    store.set_status(run_id, "completed")
    return run_id


def measure(label: str, summarize: Callable[[], Any], repeat: int) -> None:
    summarize()  # the store's pages in the OS cache for every repetition
    walls = []
    for _ in range(repeat):
        started = time.perf_counter()
        summarize()
        walls.append(time.perf_counter() - started)
    tracemalloc.start()
    summarize()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    listed = ", ".join(f"{w:.2f}" for w in walls)
    print(f"  {label}: best {min(walls):.2f} s ({listed}), peak allocated {peak / 2**20:.1f} MB")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--samples", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print(f"run summary: {args.samples} samples x {len(METRICS)} scores")
    print(f"load average before: {_corpus.load_average()}")
    with (
        tempfile.TemporaryDirectory(prefix="ragjudge-summary-") as tmp,
        Store(Path(tmp) / "runs.db") as store,
    ):
        run_id = fill(store, args.samples)
        exclude = exclusions(run_meanings(store.run(run_id)))
        measure(
            "summarize_run (score columns in pages)",
            lambda: summarize_run(store, run_id),
            args.repeat,
        )
        measure(
            "frame_summary (every score in a frame)",
            lambda: frame_summary(store, run_id, exclude=exclude, seed=0),
            args.repeat,
        )
        same = summarize_columns(store, run_id, exclude=exclude, seed=0) == frame_summary(
            store, run_id, exclude=exclude, seed=0
        )
    print(f"load average after: {_corpus.load_average()}")
    print(f"the two summaries agree: {same}")
    return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main())

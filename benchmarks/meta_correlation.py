"""Correlations with bootstrap intervals at the sizes of public human-labelled sets.

``correlations`` (Pearson, Spearman and Kendall, each with a paired bootstrap
interval — what ``ragjudge meta`` computes per metric and label) is timed on
synthetic pairs shaped like meta-evaluation data: a judge score with ties (one
decimal) against a 1–5 human label. The sizes are those of labelled sets met in
practice (1,490 and 9,925 rows) and 100,000. Printed per size: rows, resamples,
wall seconds and CPU seconds of this process. Kendall's interval used to cost
resamples × n² (every pair's signs); it is now n log n per resample, and the target
is 100,000 rows within ``--budget`` CPU seconds (exit status 1 above it). Run with::

    .venv/bin/python benchmarks/meta_correlation.py [--sizes 1490 9925 100000]
        [--resamples 2000] [--budget 600]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from ragjudge.stats import correlations


def pairs(n: int) -> tuple[np.ndarray, np.ndarray]:
    """A judge score (one decimal, ties) and a 1–5 human label that agree loosely."""
    rng = np.random.default_rng(n)
    human = rng.integers(1, 6, size=n).astype(np.float64)
    judge = np.clip(np.round(human / 5 + rng.normal(0, 0.25, size=n), 1), 0, 1)
    return judge, human


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1490, 9925, 100_000])
    parser.add_argument("--resamples", type=int, default=2000)
    parser.add_argument(
        "--budget", type=float, default=600.0, help="CPU seconds at the largest size"
    )
    args = parser.parse_args()
    print(f"{'rows':>9} {'resamples':>9} {'seconds':>9} {'CPU s':>9}  kendall [CI]")
    cpu = 0.0
    for n in args.sizes:
        judge, human = pairs(n)
        wall, cpu = time.perf_counter(), time.process_time()
        found = correlations(judge, human, n_resamples=args.resamples)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        kendall = found["kendall"]
        ci = f"[{kendall.ci.low:.3f}, {kendall.ci.high:.3f}]" if kendall.ci else "-"
        print(f"{n:>9,} {args.resamples:>9,} {wall:>9.1f} {cpu:>9.1f}  {kendall.estimate:.3f} {ci}")
    ok = cpu <= args.budget
    print(
        f"target: {max(args.sizes):,} rows within {args.budget:g} CPU s: {'met' if ok else 'MISSED'}"
    )
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())

"""How many permits a second one permit keeper hands to a Ray cluster's workers.

``--workers`` worker actors (no CPU reserved) each run ``--tasks`` attempts at once,
taking ``--permits`` permits in all from one :class:`~ragjudge.run.ray._permits.PermitKeeper`
under a limit far above what they can take (10,000,000 RPM, 128 at once) and holding
each for no time: the figure is the keeper's own ceiling. ``--single`` takes each permit
the way workers did before blocks (three calls to the keeper per attempt: acquire,
settle, release) for a before/after comparison. Prints permits a second (bound ≥
``--bound``, default 2,000) on a local two-CPU cluster; exit status 1 when missed::

    .venv/bin/python benchmarks/permit_throughput.py [--workers 8] [--single]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import time
from typing import Any

os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")

import _corpus
import ray

from ragjudge.models import RateLimits
from ragjudge.run.ray._permits import PermitKeeper, RemotePermits

LIMITS = RateLimits(max_concurrency=128, rpm=10_000_000)


class Taker:
    """A worker taking permits as fast as it can."""

    def __init__(self, keeper: Any) -> None:
        self.keeper = keeper
        self.permits = RemotePermits(keeper)

    async def ready(self) -> None:
        await self.keeper.stats.remote()

    async def take(self, count: int, tasks: int, single: bool) -> int:
        left = count

        async def attempts() -> None:
            nonlocal left
            while left > 0:
                left -= 1
                if single:
                    permit, _ = await self.keeper.acquire.remote(10)
                    self.keeper.settle.remote(permit, 10)
                    self.keeper.release.remote(permit)
                else:
                    async with self.permits.slot(10) as slot:
                        self.permits.settle(slot, 10)

        await asyncio.gather(*(attempts() for _ in range(tasks)))
        self.permits.stats()  # the last use reaches the keeper
        return count


def permits_per_second(args: argparse.Namespace) -> float:
    remote: Any = ray.remote
    keeper = remote(num_cpus=0, max_concurrency=10_000)(PermitKeeper).remote(LIMITS, 600.0)
    takers = [
        remote(num_cpus=0, max_concurrency=1000)(Taker).remote(keeper) for _ in range(args.workers)
    ]
    ray.get([t.ready.remote() for t in takers])
    each = args.permits // args.workers
    began = time.perf_counter()
    taken = sum(ray.get([t.take.remote(each, args.tasks, args.single) for t in takers]))
    wall = time.perf_counter() - began
    granted = ray.get(keeper.stats.remote())["granted"]
    print(f"permits taken {taken}, granted by the keeper {granted}, in {wall:.2f} s")
    return taken / wall


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--workers", type=int, default=8)
    parser.add_argument("--tasks", type=int, default=16)
    parser.add_argument("--permits", type=int, default=40_000)
    parser.add_argument("--single", action="store_true")
    parser.add_argument("--bound", type=float, default=2000.0)
    args = parser.parse_args()
    print(f"load average before: {_corpus.load_average()}")
    ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        rate = permits_per_second(args)
    finally:
        ray.shutdown()
    how = "one at a time (acquire, settle, release)" if args.single else "in blocks"
    ok = rate >= args.bound
    print(
        f"permits {how}, {args.workers} workers: {rate:,.0f}/s "
        f"(bound ≥ {args.bound:,.0f}/s) {'ok' if ok else 'MISSED'}"
    )
    print(f"load average after: {_corpus.load_average()}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

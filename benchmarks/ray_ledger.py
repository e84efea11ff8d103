"""How many judge calls a second the call ledger of a run on Ray stores.

Every judge call a Ray worker makes is stored twice through the run's one ledger actor
(``ragjudge.run.ray._ledger``): in flight as its request goes out, completed as its
reply returns. This sends ``--calls`` such pairs from one process, all at once, to a
ledger on a local one-CPU Ray cluster writing a temporary store, and prints the calls
stored per second (bound ≥ ``--bound``, default 100: above what a 6,000 RPM judge
endpoint makes). Exit status 1 when the bound is missed. Run with::

    .venv/bin/python benchmarks/ray_ledger.py [--calls N] [--bound CALLS_PER_S]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")

import ray

from ragjudge.config import EvalConfig
from ragjudge.models import JudgeCallRecord
from ragjudge.run.ray._ledger import LedgerRecorder, start_ledger
from ragjudge.store._store import Store

RECORD = JudgeCallRecord(
    provider="openai",
    model="judge",
    messages=[{"role": "user", "content": "Is the answer right? " * 40}],
    config={},
)


async def calls_per_second(store: Path, calls: int) -> float:
    """Begin and end ``calls`` calls through a ledger at once; calls stored a second."""
    Store(store, write=True).close()
    config = EvalConfig.model_validate({"data": "set.jsonl", "metrics": ["rouge_l"]})
    recorder = LedgerRecorder(start_ledger(str(store), "bench", config, None))
    await recorder.begin(RECORD)  # the actor is up

    async def one() -> None:
        call_id = await recorder.begin(RECORD)
        await recorder.end(call_id, RECORD.model_copy(update={"text": "Yes. [RESULT] 5"}))

    started = time.perf_counter()
    await asyncio.gather(*(one() for _ in range(calls)))
    return calls / (time.perf_counter() - started)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=1000)
    parser.add_argument("--bound", type=float, default=100.0)
    args = parser.parse_args()
    ray.init(address="local", num_cpus=1, include_dashboard=False, log_to_driver=False)
    try:
        with tempfile.TemporaryDirectory() as folder:
            rate = asyncio.run(calls_per_second(Path(folder) / "runs.db", args.calls))
    finally:
        ray.shutdown()
    ok = rate >= args.bound
    print(
        f"calls stored through the ledger: {rate:,.0f}/s (bound ≥ {args.bound:,.0f}/s)"
        f" {'ok' if ok else 'MISSED'}"
    )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

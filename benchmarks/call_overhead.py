"""What the judge layer adds to each live call, over a bare HTTP client sending the same.

``--calls`` distinct chat requests (prompts of 1–2k characters) go to the local test
server, started as a process of its own that answers at once, twice:

1. **bare**: an ``httpx2.AsyncClient`` posting the request bodies the OpenAI-compatible
   provider would post and reading the JSON replies;
2. **the layer**: ``JudgeModel`` as a run builds it (``run/_judging.py``): the
   OpenAI-compatible provider, a reply-cache file (every call a miss, then stored),
   the limiter, retries, accounting and the store's recorder writing every call to a
   temporary store before its request goes out and completing it after.

Both keep ``--concurrency`` calls in flight (16; 1 sends them one at a time). Printed:
wall and CPU (this process's time) per call of each, the overhead per call (layer −
bare), the machine (CPU model, cores, Python) and the load average before and after.
Each figure is the best of ``--repeat`` runs (the median is shown beside it).

Bound: the layer adds at most 0.5 ms of wall time per call. Exit status 1 when missed.
Run with::

    .venv/bin/python benchmarks/call_overhead.py [--calls N] [--concurrency N] [--repeat N]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import _corpus
import _machine
import httpx2

from ragjudge.config import JudgeConfig
from ragjudge.models import GenerateConfig
from ragjudge.run._judging import build_judge
from ragjudge.store._store import Store

MAX_OVERHEAD_MS = 0.5
MODEL = "overhead-bench"
_FILLER = (
    "The passage says the bridge opened in 1932 after six years of work; the answer "
    "claims it opened in 1930. Judge whether every claim of the answer is supported. "
)


@dataclass(frozen=True)
class Timing:
    """One pass over the calls: wall and CPU seconds."""

    wall: float
    cpu: float


def prompts(calls: int, seed: int) -> list[list[dict[str, str]]]:
    """``calls`` distinct chat prompts of about 1–2k characters (``seed`` keeps
    passes from hitting each other's cache entries)."""
    return [
        [{"role": "user", "content": f"Pass {seed}, question {i}. " + _FILLER * (7 + i % 8)}]
        for i in range(calls)
    ]


async def bounded(concurrency: int, jobs: Sequence[Callable[[], Awaitable[object]]]) -> Timing:
    """Run ``jobs`` keeping ``concurrency`` of them in flight; the time they took."""
    gate = asyncio.Semaphore(concurrency)

    async def one(job: Callable[[], Awaitable[object]]) -> None:
        async with gate:
            await job()

    wall, cpu = time.perf_counter(), time.process_time()
    await asyncio.gather(*(one(job) for job in jobs))
    return Timing(time.perf_counter() - wall, time.process_time() - cpu)


async def bare_pass(base_url: str, calls: int, concurrency: int, seed: int) -> Timing:
    """The bare client's pass: the provider's request bodies, posted and read."""
    limits = httpx2.Limits(max_connections=256, max_keepalive_connections=64)
    headers = {"Authorization": "Bearer local"}
    async with httpx2.AsyncClient(headers=headers, limits=limits, timeout=60.0) as client:

        async def post(messages: list[dict[str, str]]) -> object:
            body = {"model": MODEL, "messages": messages, "temperature": 0.0}
            reply = await client.post(f"{base_url}/chat/completions", json=body)
            reply.raise_for_status()
            return reply.json()["choices"][0]["message"]["content"]

        jobs = [lambda m=m: post(m) for m in prompts(calls, seed)]
        return await bounded(concurrency, jobs)


async def layer_pass(
    base_url: str, calls: int, concurrency: int, seed: int, folder: Path
) -> Timing:
    """The judge layer's pass, built as a run builds its judge, recording to a store."""
    store = Store(folder / f"runs-{seed}.db", write=True)
    judge_config = JudgeConfig(
        model=f"openai/{MODEL}", base_url=base_url, max_concurrency=concurrency
    )
    judge = build_judge(judge_config, store, f"run-{seed}", cache_path=folder / f"cache-{seed}.db")
    assert judge is not None
    config = GenerateConfig(temperature=0.0)
    jobs = [lambda m=m: judge.generate(m, config, purpose="bench") for m in prompts(calls, seed)]
    timing = await bounded(concurrency, jobs)
    await judge.aclose()
    stored = len(store.judge_calls(f"run-{seed}"))
    store.close()
    if stored != calls:
        raise SystemExit(f"the store holds {stored} calls of {calls}")
    return timing


def start_server() -> tuple[subprocess.Popen[str], str]:
    """The test server in a process of its own, answering at once; its base URL."""
    command = [sys.executable, "-m", "ragjudge.testing.server", "--port", "0"]
    child = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    assert child.stdout is not None
    line = child.stdout.readline()
    if " at " not in line:
        child.kill()
        raise SystemExit(f"the test server did not start: {line!r}")
    return child, line.split(" at ", 1)[1].split()[0]


def summary(name: str, timings: list[Timing], calls: int) -> tuple[float, float]:
    """Print the best and median per-call wall and CPU of ``timings``; return the best."""
    wall = min(t.wall for t in timings) / calls * 1000
    cpu = min(t.cpu for t in timings) / calls * 1000
    median_wall = statistics.median(t.wall for t in timings) / calls * 1000
    median_cpu = statistics.median(t.cpu for t in timings) / calls * 1000
    print(
        f"{name}: {wall:.3f} ms wall, {cpu:.3f} ms CPU per call"
        f" (median {median_wall:.3f} / {median_cpu:.3f})"
    )
    return wall, cpu


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    _machine.print_machine("start")
    print(f"{args.calls} calls, {args.concurrency} in flight, best of {args.repeat}")
    server, base_url = start_server()
    bare: list[Timing] = []
    layer: list[Timing] = []
    try:
        with tempfile.TemporaryDirectory(prefix="ragjudge-overhead-") as tmp:
            for seed in range(args.repeat):  # interleaved, so drift in load hits both
                bare.append(asyncio.run(bare_pass(base_url, args.calls, args.concurrency, seed)))
                layer.append(
                    asyncio.run(layer_pass(base_url, args.calls, args.concurrency, seed, Path(tmp)))
                )
    finally:
        server.terminate()
        server.wait()
    bare_wall, bare_cpu = summary("bare httpx2 client", bare, args.calls)
    layer_wall, layer_cpu = summary("through the judge layer", layer, args.calls)
    print(f"the layer adds {layer_cpu - bare_cpu:.3f} ms CPU per call")
    _machine.print_machine("end")
    line = _corpus.ratio_line(
        "the layer's wall overhead per call", layer_wall - bare_wall, MAX_OVERHEAD_MS, "ms"
    )
    print(line)
    return 1 if "FAIL" in line else 0


if __name__ == "__main__":
    raise SystemExit(main())

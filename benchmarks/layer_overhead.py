"""The judge-model layer's own cost per call, and a fully cached re-run.

``JudgeModel`` puts a cache, the limiter, retries, re-asks, recording and accounting in
front of every provider call. Two figures, each the best of ``--repeat`` runs:

1. **Per call**: ``--calls`` distinct prompts, one after another, through the scripted
   model (no latency) with an in-memory response cache, so every call is a miss that
   is then stored; beside it the bare scripted provider answering the same prompts,
   the floor the layer adds to.
2. **Cached re-run**: ``--cached-calls`` prompts (Japanese) answered once into a cache
   file, then asked again, all at once, of a fresh model on that file; every call must
   be a cache hit with no request to the provider. Its reference, measured in the same
   run on the same file: the bare work of those hits with the standard library alone —
   for each prompt its key (canonical JSON of the prompt, SHA-256), the row read from
   the cache's SQLite file and its JSON decoded, one after another.

The reference runs on the same processor, with the same free cores and the same SQLite
build, so the ratio of the re-run to it is what the layer adds and means the same on
another machine, where the seconds (0.21 s here, 0.51–0.70 s on a second 2-core
machine) do not. The absolute figures are printed too.

Bounds: at most 1 ms per call through the layer (against the bare provider, printed
beside it), and the cached re-run at most 20 x the bare reads. Exit status 1 when one
is missed. Run with::

    .venv/bin/python benchmarks/layer_overhead.py [--calls N] [--cached-calls N] [--repeat N]
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import sqlite3
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

import _corpus
import _machine

from ragjudge.models import GenerateConfig, JudgeModel, ResponseCache
from ragjudge.models.scripted import ReplyScript, ScriptedProvider

MAX_PER_CALL_SECONDS = 0.001
MAX_CACHED_RERUN_RATIO = 20.0
"""The cached re-run against the bare reads of the same rows (see the docstring)."""
REPLY = "[RESULT] 4"


def prompt(i: int, japanese: bool = False) -> list[dict[str, str]]:
    text = f"Question {i}: 日本語の質問ですか？" if japanese else f"Question {i}"
    return [{"role": "user", "content": text}]


def best_of(repeat: int, run: Callable[[], Awaitable[float]]) -> float:
    """The shortest of ``repeat`` runs of ``run`` (each returns its own seconds)."""
    return min(asyncio.run(run()) for _ in range(repeat))


async def through_the_layer(calls: int) -> float:
    judge = JudgeModel(
        ScriptedProvider(ReplyScript(default=REPLY)), cache=ResponseCache(":memory:")
    )
    started = time.perf_counter()
    for i in range(calls):
        await judge.generate(prompt(i))
    elapsed = time.perf_counter() - started
    await judge.aclose()
    return elapsed


async def bare_provider(calls: int) -> float:
    provider = ScriptedProvider(ReplyScript(default=REPLY))
    config = GenerateConfig()
    started = time.perf_counter()
    for i in range(calls):
        await provider.complete(prompt(i), config)
    return time.perf_counter() - started


def bare_cache_reads(prompts: list[list[dict[str, str]]], path: Path) -> float:
    """Seconds to key every prompt, read its row from the cache file and decode it, with
    the standard library alone (each row found by one of the stored keys)."""
    with sqlite3.connect(path) as conn:
        keys = [row[0] for row in conn.execute("SELECT key FROM responses")]
        started = time.perf_counter()
        for prompt_messages, key in zip(prompts, keys, strict=False):
            text = json.dumps(prompt_messages, sort_keys=True, separators=(",", ":"))
            hashlib.sha256(text.encode("utf-8")).hexdigest()
            row = conn.execute("SELECT value FROM responses WHERE key = ?", (key,)).fetchone()
            json.loads(row[0])
        return time.perf_counter() - started


async def cached_rerun(calls: int, folder: Path) -> tuple[float, float]:
    """(seconds of the re-run through the layer, seconds of the bare reads)."""
    path = folder / f"cache-{time.monotonic_ns()}.db"
    prompts = [prompt(i, japanese=True) for i in range(calls)]
    first = JudgeModel(ScriptedProvider(ReplyScript(default=REPLY)), cache=ResponseCache(path))
    await asyncio.gather(*(first.generate(p) for p in prompts))
    await first.aclose()
    provider = ScriptedProvider(ReplyScript(default="never"))
    rerun = JudgeModel(provider, cache=ResponseCache(path))
    started = time.perf_counter()
    results = await asyncio.gather(*(rerun.generate(p) for p in prompts))
    elapsed = time.perf_counter() - started
    await rerun.aclose()
    if provider.calls or not all(r.cached and r.text == REPLY for r in results):
        raise SystemExit("the re-run asked the provider: not every call was a cache hit")
    return elapsed, bare_cache_reads(prompts, path)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--calls", type=int, default=500)
    parser.add_argument("--cached-calls", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    _machine.print_machine("start")
    layer = best_of(args.repeat, lambda: through_the_layer(args.calls)) / args.calls
    bare = best_of(args.repeat, lambda: bare_provider(args.calls)) / args.calls
    with tempfile.TemporaryDirectory(prefix="ragjudge-layer-") as tmp:
        pairs = [
            asyncio.run(cached_rerun(args.cached_calls, Path(tmp))) for _ in range(args.repeat)
        ]
    rerun, bare_reads = min(pair[0] for pair in pairs), min(pair[1] for pair in pairs)
    print(f"bare scripted provider: {bare * 1000:.3f} ms per call ({args.calls} calls)")
    print(f"the layer adds {(layer - bare) * 1000:.3f} ms per call")
    print(
        f"cached re-run of {args.cached_calls} calls {rerun:.3f} s; the bare reads of the"
        f" same rows {bare_reads:.3f} s (best of {args.repeat} each)"
    )
    _machine.print_machine("end")
    lines = [
        _corpus.ratio_line(
            "per call through the layer", layer * 1000, MAX_PER_CALL_SECONDS * 1000, "ms"
        ),
        _corpus.ratio_line(
            f"cached re-run of {args.cached_calls} calls / bare reads",
            rerun / bare_reads,
            MAX_CACHED_RERUN_RATIO,
            "x",
        ),
    ]
    for line in lines:
        print(line)
    return 1 if any("FAIL" in line for line in lines) else 0


if __name__ == "__main__":
    raise SystemExit(main())

"""One judge budget for a Ray cluster: several workers against one rate-limited server.

``--calls`` samples, one judge call each (``answer_accuracy`` without contexts), run with
``executor: ray`` on a local cluster (``--cpus`` CPUs, ``--workers`` workers, batches of
20, ``concurrency: 8`` per worker, judge ``max_concurrency: 32``, no pre-flight
question, no cache) against the local OpenAI-compatible test server, which answers
after 0.2–0.4 s and enforces ``--rpm`` requests per minute (429 with ``Retry-After``
above it). Every worker takes its permits from the one permit keeper.

``--period minute`` (default): the server counts the limit per sliding minute and the
judge is told ``rpm`` (a workload beyond a window's budget goes out window by window).
Sustained throughput: the requests accepted per full minute since the first request,
averaged over the full minutes of the run. ``--period second``: the server counts
``rpm / 60`` requests in any second (the strictest form a provider uses) and the judge
is told ``burst: rpm / 60``; throughput: accepted requests per minute between the first
and the last request.

Figures: sustained throughput against the limit (bound ≥ 0.9 × the limit), 429s
provoked (the server's RPM refusals as a share of the requests; bound ≤ 2 %), samples
lost (scores missing from the store; bound 0), and the wall time. Exit status 1 when
a bound is missed. Run with::

    .venv/bin/python benchmarks/ray_limiter.py [--calls N] [--rpm N] [--workers N]
        [--period minute|second]
"""

from __future__ import annotations

import argparse
import asyncio
import sqlite3
import tempfile
import time
from pathlib import Path
from typing import Any

import _corpus

from ragjudge.config import EvalConfig
from ragjudge.run._runner import run_evaluation
from ragjudge.testing.server import FaultPlan, OpenAITestServer, ReplyScript

MIN_THROUGHPUT_RATIO = 0.9
MAX_429_SHARE = 0.02


def rows(count: int) -> list[dict[str, Any]]:
    """Distinct samples, so no two prompts are one call."""
    return [
        {
            "request_id": f"q{i:05d}",
            "request": f"question {i}",
            "response": f"answer {i}",
            "expected_response": f"reference {i}",
        }
        for i in range(count)
    ]


async def run(args: argparse.Namespace, server: OpenAITestServer, folder: Path) -> float:
    """The evaluation on Ray; its wall time."""
    config = EvalConfig.model_validate(
        {
            "metrics": [{"metric": "answer_accuracy", "contexts": "none"}],
            "judge": {
                "model": "openai/judge-x",
                "base_url": server.base_url,
                "rpm": args.rpm,
                "burst": max(1, args.rpm // 60) if args.period == "second" else None,
                "max_concurrency": 32,
                "preflight": False,
            },
            "cache": False,
            "concurrency": 8,
            "store": str(folder / "runs.db"),
            "executor": "ray",
            "ray": {"num_cpus": args.cpus, "workers": args.workers, "batch_size": 20},
            "base_dir": str(folder),
        }
    )
    began = time.perf_counter()
    await run_evaluation(config, data=rows(args.calls), progress=False)
    return time.perf_counter() - began


def per_full_minute(times: list[float], refused: int) -> float:
    """Requests per full minute since the first, averaged over the run's full minutes
    (refused ones taken off evenly); every request's count when the run is shorter."""
    minutes = int((times[-1] - times[0]) // 60)
    if minutes == 0:
        return float(len(times) - refused)
    within = sum(1 for t in times if t < times[0] + 60 * minutes)
    return (within - refused * within / len(times)) / minutes


def scored(store: Path) -> int:
    with sqlite3.connect(store) as conn:
        return int(conn.execute("SELECT COUNT(value) FROM scores").fetchone()[0])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--calls", type=int, default=1300)
    parser.add_argument("--period", choices=["minute", "second"], default="minute")
    parser.add_argument("--rpm", type=int, default=600)
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--cpus", type=int, default=2)
    args = parser.parse_args()
    print(
        f"{args.calls} judge calls, {args.workers} Ray workers on {args.cpus} CPUs, server "
        f"limit {args.rpm} RPM counted per {args.period}"
    )
    print(f"load average before: {_corpus.load_average()}")
    server = OpenAITestServer(
        replies=ReplyScript(default="Feedback: fine. [RESULT] 4"),
        faults=FaultPlan(
            latency=(0.2, 0.4),
            rpm_limit=args.rpm,
            limit_period=1.0 if args.period == "second" else 60.0,
        ),
    )
    with tempfile.TemporaryDirectory(prefix="ragjudge-ray-limiter-") as tmp, server:
        folder = Path(tmp)
        wall = asyncio.run(run(args, server, folder))
        stats = server.stats
        times = sorted(stats.request_times)
        refused = stats.rate_limited_by_rpm
        accepted = stats.requests - refused
        span = times[-1] - times[0]
        if args.period == "minute":
            throughput = per_full_minute(times, refused)
        else:
            throughput = (accepted - 1) / span * 60 if span > 0 else float("inf")
        lost = args.calls - scored(folder / "runs.db")
    share = refused / max(stats.requests, 1)
    print(f"wall {wall:.1f} s (requests span {span:.1f} s); requests {stats.requests}")
    print(
        _corpus.ratio_line(
            "sustained throughput (RPM)",
            throughput,
            MIN_THROUGHPUT_RATIO * args.rpm,
            "RPM",
            higher=True,
        )
        + f"  [{throughput / args.rpm:.3f} x the limit]"
    )
    print(f"429s provoked: {refused} of {stats.requests} requests ({100 * share:.2f} %), bound 2 %")
    print(f"samples lost: {lost}")
    print(f"load average after: {_corpus.load_average()}")
    ok = throughput >= MIN_THROUGHPUT_RATIO * args.rpm and share <= MAX_429_SHARE and lost == 0
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())

"""The test server of ``paced_runs.py`` in a process of its own, so that its answers do
not wait for the run's Python code (they would share one interpreter lock in one
process). ``python -m ragjudge.testing.server`` cannot take the RAG suite's reply
function nor report its counters, hence this small wrapper.

Started with ``--serve``, it prints the server's base URL on one line, then answers
each line ``stats`` on its standard input with the server's counters as one JSON line,
and stops at the end of its input. Without ``--serve`` it only says what it is (so
``make bench``, which runs every script here, passes it by).
"""

from __future__ import annotations

import argparse
import json
import sys

import _paced

from ragjudge.models.scripted import ReplyScript
from ragjudge.testing.server import FaultPlan, OpenAITestServer


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--serve", action="store_true", help="start the server")
    parser.add_argument("--workload", choices=sorted(_paced.REPLIES), default="one-metric")
    parser.add_argument("--latency", type=float, default=0.0)
    parser.add_argument("--rpm", type=int, default=None)
    parser.add_argument("--error-rate", type=float, default=0.0)
    parser.add_argument("--seed", type=int, default=0)
    return parser.parse_args(argv)


def counters(server: OpenAITestServer) -> dict[str, object]:
    """The counters the benchmark reads, as JSON-ready values."""
    stats = server.stats
    return {
        "requests": stats.requests,
        "rate_limited_by_rpm": stats.rate_limited_by_rpm,
        "status_counts": {str(k): v for k, v in sorted(stats.status_counts.items())},
        "max_in_flight": stats.max_in_flight,
    }


def serve(args: argparse.Namespace) -> None:
    """Serve until standard input ends, answering ``stats`` lines."""
    plan = FaultPlan(
        latency=(args.latency, args.latency),
        rpm_limit=args.rpm,
        error_500_rate=args.error_rate,
        seed=args.seed,
    )
    with OpenAITestServer(
        replies=ReplyScript(function=_paced.REPLIES[args.workload]), faults=plan
    ) as server:
        print(server.base_url, flush=True)
        for line in sys.stdin:
            if line.strip() == "stats":
                print(json.dumps(counters(server)), flush=True)


def main() -> int:
    args = parse_args()
    if not args.serve:
        print("the test server of paced_runs.py (started by it with --serve)")
        return 0
    serve(args)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

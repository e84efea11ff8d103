"""Fault storm: a judged run against a judge endpoint that misbehaves in every way at
once, and the check that nothing is lost, nothing is silently wrong, every error is
explained and every paid request is on record.

``answer_accuracy`` (no contexts) scores ``--samples`` answers through ``ragjudge``'s
runner against the local OpenAI-compatible test server, which answers after
0.05–0.2 s and fails on purpose: HTTP 500 on 10 % of requests, bursts of three 429s
every 50 requests, 5 % hangs (longer than the judge's timeout), 5 % malformed bodies,
and, for 5 % of the samples, a judge reply that never parses. The scripted judge's
verdict for each question is known, so every stored value can be checked.

Printed, each with its bound: lost samples (no score at all), silently wrong values
(a stored value that is not the judge's verdict), unexplained errors (an error whose
cause cannot be told), errors that are not the expected unparsable replies, and paid
requests (what the server received) against recorded attempts (what the run's
``judge_calls`` table holds). Exit status 1 when a bound is missed. Run with
``make bench`` or::

    .venv/bin/python benchmarks/fault_storm.py [--samples N]
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import re
import sqlite3
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from ragjudge.analysis._outcome import error_cause
from ragjudge.config import EvalConfig
from ragjudge.models.scripted import prompt_text
from ragjudge.run._runner import run_evaluation
from ragjudge.testing.server import FaultPlan, OpenAITestServer, ReplyScript

QUESTION = re.compile(r"<<<BEGIN QUESTION>>>\nquestion (\d+)\n<<<END QUESTION>>>")
UNPARSABLE_EVERY = 20  # 5 % of the samples


def verdict_of(number: int) -> int:
    """The score the scripted judge gives question ``number``."""
    return int(hashlib.sha256(str(number).encode()).hexdigest(), 16) % 6


def judge_reply(messages: list[dict[str, object]]) -> str:
    found = QUESTION.search(prompt_text(messages))
    if found is None:  # the pre-flight question
        return "OK"
    number = int(found.group(1))
    if number % UNPARSABLE_EVERY == 0:
        return "I would rather not give a number for this one."
    return f"Feedback: judged question {number}. [RESULT] {verdict_of(number)}"


def rows(n: int) -> list[dict[str, object]]:
    return [
        {
            "request_id": f"q{i:04d}",
            "request": f"question {i}",
            "response": f"answer {i}",
            "expected_response": f"reference {i}",
        }
        for i in range(n)
    ]


def storm() -> FaultPlan:
    return FaultPlan(
        latency=(0.05, 0.2),
        error_500_rate=0.10,
        burst_429_every=50,
        burst_429_length=3,
        timeout_rate=0.05,
        hang_seconds=3.0,
        malformed_rate=0.05,
        seed=7,
    )


async def run(samples: int, folder: Path, server: OpenAITestServer) -> str:
    data = folder / "set.jsonl"
    data.write_text("\n".join(json.dumps(r) for r in rows(samples)) + "\n")
    config = EvalConfig.model_validate(
        {
            "data": str(data),
            "metrics": [{"metric": "answer_accuracy", "contexts": "none"}],
            "judge": {
                "model": "openai/storm-judge",
                "base_url": server.base_url,
                "timeout": 1.0,
                "max_retries": 6,
                "backoff_base": 0.05,
                "backoff_max": 0.5,
                "max_retry_after": 5,
            },
            "concurrency": 8,
            "max_error_rate": 1.0,
            "base_dir": str(folder),
        }
    )
    result = await run_evaluation(config, progress=False)
    return result.run_id


def figures(
    store: Path, run_id: str, samples: int, server: OpenAITestServer
) -> list[tuple[str, int, str, bool]]:
    with sqlite3.connect(store) as conn:
        scores = conn.execute(
            "SELECT request_id, value, error FROM scores WHERE run_id = ?", (run_id,)
        ).fetchall()
        (recorded,) = conn.execute(
            "SELECT SUM(attempts) FROM judge_calls WHERE run_id = ? AND cached = 0", (run_id,)
        ).fetchone()
    scored = {rid for rid, _, _ in scores}
    wrong = [
        rid for rid, value, _ in scores if value is not None and value != verdict_of(int(rid[1:]))
    ]
    errors = [(rid, error) for rid, value, error in scores if value is None]
    causes = Counter(error_cause(e) for _, e in errors)
    unexpected = [rid for rid, _ in errors if int(rid[1:]) % UNPARSABLE_EVERY != 0]
    expected_errors = len([i for i in range(samples) if i % UNPARSABLE_EVERY == 0])
    print(f"errors by cause: {dict(causes)}")
    print(
        f"server: {server.stats.requests} requests, status counts {dict(server.stats.status_counts)}"
    )
    return [
        ("lost samples", samples - len(scored), "= 0", samples == len(scored)),
        ("silently wrong values", len(wrong), "= 0", not wrong),
        ("unexplained errors", causes.get("other", 0), "= 0", "other" not in causes),
        (
            "errors other than the unparsable replies",
            len(unexpected),
            "= 0",
            not unexpected and len(errors) == expected_errors,
        ),
        (
            "paid requests (server)",
            server.stats.requests,
            f"= recorded ({recorded})",
            server.stats.requests == recorded,
        ),
    ]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=200)
    args = parser.parse_args()
    server = OpenAITestServer(replies=ReplyScript(function=judge_reply), faults=storm())
    server.start()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            folder = Path(tmp)
            started = time.perf_counter()
            run_id = asyncio.run(run(args.samples, folder, server))
            wall = time.perf_counter() - started
            rows_ = figures(folder / ".ragjudge" / "runs.db", run_id, args.samples, server)
    finally:
        server.stop()
    print(f"fault storm: {args.samples} samples, answer_accuracy, {wall:.1f} s")
    print(f"{'figure':45} {'value':>8}  bound")
    for name, value, bound, ok in rows_:
        print(f"{name:45} {value:>8}  {bound:20} {'PASS' if ok else 'FAIL'}")
    return 0 if all(ok for *_, ok in rows_) else 1


if __name__ == "__main__":
    sys.exit(main())

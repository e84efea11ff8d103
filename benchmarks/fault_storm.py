"""Fault storm: judged runs against a judge endpoint that misbehaves in every way at
once, and the check that nothing is lost, nothing is silently wrong, every error is
explained and every paid request is on record.

Two runs go through ``ragjudge``'s runner against the local OpenAI-compatible test
server, which answers after 0.05–0.2 s and fails on purpose: HTTP 500 on 10 % of
requests, bursts of three 429s every 50 requests, 5 % hangs (longer than the judge's
timeout) and 5 % malformed bodies — chat and embedding requests alike.

1. ``answer_accuracy`` (no contexts) scores ``--samples`` answers; for 5 % of them the
   judge's reply never parses.
2. The RAG suite — ``faithfulness``, ``answer_relevancy`` with embeddings from the
   endpoint, ``context_precision``, ``context_recall`` — scores ``--rag-samples`` rows
   (statements, verdicts, usefulness, generated questions, then embeddings).

The scripted judge's reply for each sample is known, so every stored value can be
checked. Printed per run, each with its bound: lost results (no score at all), silently
wrong values (a stored value that is not what the judge's replies make it), unexplained
errors (an error whose cause cannot be told), errors that are not the expected
unparsable replies, and paid requests (what the server received) against recorded
attempts (what the run's ``judge_calls`` table holds), chat and embedding requests
apart. Exit status 1 when a bound is missed. Run with ``make bench`` or::

    .venv/bin/python benchmarks/fault_storm.py [--samples N] [--rag-samples N]
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
from collections.abc import Callable
from pathlib import Path

import _rag_judge as rag_judge

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


Figure = tuple[str, int, str, bool]
JUDGE = {
    "model": "openai/storm-judge",
    "timeout": 1.0,
    "max_retries": 6,
    "backoff_base": 0.05,
    "backoff_max": 0.5,
    "max_retry_after": 5,
}


async def run(
    folder: Path, server: OpenAITestServer, data: list[dict[str, object]], metrics: list[object]
) -> str:
    path = folder / "set.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in data) + "\n")
    config = EvalConfig.model_validate(
        {
            "data": str(path),
            "metrics": metrics,
            "judge": {**JUDGE, "base_url": server.base_url},
            "concurrency": 8,
            "max_error_rate": 1.0,
            "base_dir": str(folder),
        }
    )
    result = await run_evaluation(config, progress=False)
    return result.run_id


def paid_and_recorded(
    conn: sqlite3.Connection, run_id: str, server: OpenAITestServer
) -> list[Figure]:
    """Requests the server received against the attempts the run recorded, chat and
    embedding requests apart."""
    recorded = dict(
        conn.execute(
            "SELECT purpose = 'embeddings', SUM(attempts) FROM judge_calls"
            " WHERE run_id = ? AND cached = 0 GROUP BY 1",
            (run_id,),
        ).fetchall()
    )
    embeddings = sum("input" in body for body in server.requests_log)
    paid = {0: server.stats.requests - embeddings, 1: embeddings}
    return [
        (f"paid {kind} requests (server)", paid[key], f"= recorded ({recorded.get(key, 0)})",
         paid[key] == recorded.get(key, 0))
        for key, kind in ((0, "chat"), (1, "embedding"))
    ]  # fmt: skip


def error_figures(
    errors: list[tuple[str, str]], expected: set[str], causes: Counter[str]
) -> list[Figure]:
    unexpected = [key for key, _ in errors if key not in expected]
    found = {key for key, _ in errors}
    return [
        ("unexplained errors", causes.get("other", 0), "= 0", "other" not in causes),
        (
            "errors other than the unparsable replies",
            len(unexpected),
            "= 0",
            not unexpected and found == expected,
        ),
    ]


def accuracy_figures(
    store: Path, run_id: str, samples: int, server: OpenAITestServer
) -> list[Figure]:
    with sqlite3.connect(store) as conn:
        scores = conn.execute(
            "SELECT request_id, value, error FROM scores WHERE run_id = ?", (run_id,)
        ).fetchall()
        paid = paid_and_recorded(conn, run_id, server)
    scored = {rid for rid, _, _ in scores}
    wrong = [
        rid for rid, value, _ in scores if value is not None and value != verdict_of(int(rid[1:]))
    ]
    errors = [(rid, error) for rid, value, error in scores if value is None]
    causes = Counter(error_cause(e) for _, e in errors)
    unparsable = {f"q{i:04d}" for i in range(samples) if i % UNPARSABLE_EVERY == 0}
    print(f"errors by cause: {dict(causes)}")
    print(
        f"server: {server.stats.requests} requests, status counts {dict(server.stats.status_counts)}"
    )
    return [
        ("lost samples", samples - len(scored), "= 0", samples == len(scored)),
        ("silently wrong values", len(wrong), "= 0", not wrong),
        *error_figures(errors, unparsable, causes),
        *paid,
    ]


def rag_figures(store: Path, run_id: str, samples: int, server: OpenAITestServer) -> list[Figure]:
    with sqlite3.connect(store) as conn:
        scores = conn.execute(
            "SELECT request_id, metric, value, error FROM scores WHERE run_id = ?", (run_id,)
        ).fetchall()
        paid = paid_and_recorded(conn, run_id, server)
    dim = server.embedding_dim
    scored = {(rid, metric) for rid, metric, _, _ in scores}
    wrong = [
        (rid, metric)
        for rid, metric, value, _ in scores
        if value is not None and abs(value - rag_judge.expected(int(rid[1:]), dim)[metric]) > 1e-6
    ]
    errors = [(f"{rid} {metric}", error) for rid, metric, value, error in scores if value is None]
    causes = Counter(error_cause(e) for _, e in errors)
    results = samples * len(rag_judge.NAMES)
    print(f"errors by cause: {dict(causes)}")
    print(
        f"server: {server.stats.requests} requests ({server.stats.embeddings} embeddings "
        f"answered), status counts {dict(server.stats.status_counts)}"
    )
    return [
        ("lost results (sample × metric)", results - len(scored), "= 0", results == len(scored)),
        ("silently wrong values", len(wrong), "= 0", not wrong),
        *error_figures(errors, set(), causes),
        *paid,
    ]


def storm_run(
    reply: Callable[[list[dict[str, object]]], str],
    data: list[dict[str, object]],
    metrics: list[object],
    check: Callable[[Path, str, int, OpenAITestServer], list[Figure]],
) -> tuple[list[Figure], float]:
    """One run against a fresh storm server; its figures and wall time."""
    server = OpenAITestServer(replies=ReplyScript(function=reply), faults=storm())
    server.start()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            folder = Path(tmp)
            started = time.perf_counter()
            run_id = asyncio.run(run(folder, server, data, metrics))
            wall = time.perf_counter() - started
            found = check(folder / ".ragjudge" / "runs.db", run_id, len(data), server)
    finally:
        server.stop()
    return found, wall


def show(title: str, figures_: list[Figure]) -> None:
    print(title)
    print(f"{'figure':45} {'value':>8}  bound")
    for name, value, bound, ok in figures_:
        print(f"{name:45} {value:>8}  {bound:20} {'PASS' if ok else 'FAIL'}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=200)
    parser.add_argument("--rag-samples", type=int, default=100)
    args = parser.parse_args()
    accuracy, wall = storm_run(
        judge_reply,
        rows(args.samples),
        [{"metric": "answer_accuracy", "contexts": "none"}],
        accuracy_figures,
    )
    show(f"fault storm: {args.samples} samples, answer_accuracy, {wall:.1f} s", accuracy)
    rag, wall = storm_run(
        rag_judge.judge_reply, rag_judge.rows(args.rag_samples), rag_judge.METRICS, rag_figures
    )
    show(
        f"fault storm: {args.rag_samples} samples, the RAG suite "
        f"({', '.join(rag_judge.NAMES)}; embeddings from the endpoint), {wall:.1f} s",
        rag,
    )
    return 0 if all(ok for *_, ok in accuracy + rag) else 1


if __name__ == "__main__":
    sys.exit(main())

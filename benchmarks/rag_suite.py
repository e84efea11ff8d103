"""The four-metric RAG suite of seed 004 — faithfulness, context precision, context
recall, answer relevancy — on ``--samples`` samples against the local OpenAI-compatible
test server (judge and embeddings), through the runner.

Prints the judge calls per sample per metric (the target: at most 5 per sample, where
DeepEval's defaults spend 11 and RAGAS 0.4.3 spends 8; the embedding requests of answer
relevancy are printed on a line of their own and do not count), the wall time with a
server that answers at once, and the wall time under a 60 RPM limit against the
**window floor**.

The server counts requests in a sliding 60 s window: it admits at most L = 60 in any
60 s. With R requests admitted (its ``stats.requests`` minus its refusals, chat and
embedding requests alike), the shortest run its rule allows sends L at once, the next L
as soon as the first leave the window, and so on::

    window floor = (ceil(R / L) - 1) x 60 s + the latency of the last dependent calls

(the last wave's chains of one sample: statements, then their verdicts; questions, then
their embeddings). The server here answers at once, so that latency is ~0. The judge is
set to ``rpm: 60`` with ``burst: window``, which lets a whole window's budget out at
once, as the floor does; the judge's default pacing is smooth (a second's share of the
rpm at once) and is measured against its own floor, even pacing, ``(R - 1) x 60 / L``
seconds, with ``--smooth``. Bound: wall <= 1.15 x the floor. Exit status 1 when a target
is missed. Run with ``make bench`` or::

    .venv/bin/python benchmarks/rag_suite.py [--samples N] [--skip-limited] [--smooth]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import re
import sqlite3
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import _machine

from ragjudge.config import EvalConfig
from ragjudge.models.scripted import prompt_text
from ragjudge.run._runner import run_evaluation
from ragjudge.testing.server import FaultPlan, OpenAITestServer, ReplyScript

SUITE = ["faithfulness", "context_precision", "context_recall", "answer_relevancy"]
MAX_CALLS_PER_SAMPLE = 5
MAX_WALL_RATIO = 1.15
LIMIT = 60
"""The limited phase's requests per sliding 60 s window, server and judge alike."""
WINDOW = 60.0
EMBEDDINGS = "embeddings"
"""The purpose of the recorded embedding requests: not judge calls."""


def reply(messages: list[dict[str, object]]) -> str:
    """What a judge answers to each kind of prompt of the suite."""
    prompt = prompt_text(messages)
    if prompt.startswith("You break an answer into statements."):
        return json.dumps({"statements": ["UNION removes duplicate rows.", "It sorts the rows."]})
    if prompt.startswith("You write the questions"):
        return json.dumps({"questions": ["What does UNION do?"] * 3, "noncommittal": 0})
    if "BEGIN STATEMENT" in prompt or "BEGIN SENTENCE" in prompt or "BEGIN CONTEXT" in prompt:
        items = len(re.findall(r"<<<BEGIN (?:STATEMENT|SENTENCE) \d+>>>", prompt))
        if not items:
            items = len(re.findall(r"<<<BEGIN CONTEXT \d+", prompt))
        return json.dumps({"verdicts": [{"reason": "r", "verdict": "yes"}] * items})
    return "OK"


def rows(n: int) -> list[dict[str, object]]:
    return [
        {
            "request_id": f"q{i}",
            "request": f"What does UNION do? ({i})",
            "response": "UNION removes duplicate rows. It sorts the result.",
            "expected_response": "UNION combines results and removes duplicates.",
            "retrieved_context": [
                {"doc_uri": "union.md", "content": "UNION removes duplicate rows."},
                {"doc_uri": "sort.md", "content": "UNION sorts the combined result."},
            ],
        }
        for i in range(n)
    ]


def window_floor(admitted: int, limit: int, chain_latency: float = 0.0) -> float:
    """The shortest wall time a server admitting ``limit`` requests per sliding window
    allows for ``admitted`` requests (see the module docstring)."""
    return (math.ceil(admitted / limit) - 1) * WINDOW + chain_latency if admitted else 0.0


def even_floor(admitted: int, limit: int) -> float:
    """The shortest wall time of a client spacing ``admitted`` requests evenly at
    ``limit`` per window, as the judge's default smooth pacing does."""
    return max(0, admitted - 1) * WINDOW / limit


async def run(
    samples: int, server: OpenAITestServer, folder: Path, rpm: int | None, burst: str | None
) -> tuple[float, str]:
    data = folder / "set.jsonl"
    data.write_text("\n".join(json.dumps(r) for r in rows(samples)) + "\n")
    judge: dict[str, object] = {
        "model": "openai/judge",
        "base_url": server.base_url,
        "preflight": False,
    }
    if rpm is not None:
        judge["rpm"] = rpm
    if burst is not None:
        judge["burst"] = burst
    config = EvalConfig.model_validate(
        {
            "data": str(data),
            "metrics": ["faithfulness", "context_precision", "context_recall",
                        {"metric": "answer_relevancy", "embedding": "openai/embed"}],
            "judge": judge,
            "cache": False,
            "concurrency": 8,
            "base_dir": str(folder),
        }
    )  # fmt: skip
    started = time.perf_counter()
    result = await run_evaluation(config, progress=False)
    return time.perf_counter() - started, result.run_id


def calls_per_metric(store: Path, run_id: str) -> Counter[str]:
    with sqlite3.connect(store) as conn:
        purposes = conn.execute(
            "SELECT purpose FROM judge_calls WHERE run_id = ?", (run_id,)
        ).fetchall()
    return Counter(str(p[0]) for p in purposes)


def print_calls(counts: Counter[str], samples: int) -> bool:
    """The judge calls per sample by purpose against the bound, the embedding requests
    apart; whether the bound holds."""
    judged = {purpose: n for purpose, n in counts.items() if purpose != EMBEDDINGS}
    total = sum(judged.values()) / samples
    print(f"{'judge calls per sample':40}")
    for purpose, count in sorted(judged.items()):
        print(f"  {purpose:38} {count / samples:5.2f}")
    verdict = total <= MAX_CALLS_PER_SAMPLE
    print(
        f"  {'total':38} {total:5.2f}   bound <= {MAX_CALLS_PER_SAMPLE}   "
        f"{'PASS' if verdict else 'FAIL'}"
    )
    print(
        f"{'embedding requests per sample':40} {counts[EMBEDDINGS] / samples:5.2f} (not judge calls)"
    )
    return verdict


def limited_phase(samples: int, burst: str | None) -> tuple[float, int, int]:
    """One run against a fresh server enforcing ``LIMIT`` per sliding window (the first
    phase's requests must not fill its window): (wall, requests, refusals)."""
    limited = OpenAITestServer(
        replies=ReplyScript(function=reply), faults=FaultPlan(rpm_limit=LIMIT)
    )
    limited.start()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            wall, _ = asyncio.run(run(samples, limited, Path(tmp), LIMIT, burst))
        return wall, limited.stats.requests, limited.stats.rate_limited_by_rpm
    finally:
        limited.stop()


def print_limited(name: str, wall: float, requests: int, refused: int, checked: bool) -> bool:
    """The limited phase's wall time against its floor; whether the bound holds."""
    admitted = requests - refused
    floor = window_floor(admitted, LIMIT) if checked else even_floor(admitted, LIMIT)
    ratio = wall / floor if floor else float("nan")
    verdict = ratio <= MAX_WALL_RATIO
    kind = "window floor" if checked else "even-pacing floor"
    print(
        f"wall time at {LIMIT} RPM, {name}: {wall:.1f} s; {kind} {floor:.1f} s "
        f"({admitted} requests admitted, {refused} refused by the limit); ratio {ratio:.3f}   "
        f"bound <= {MAX_WALL_RATIO}   {'PASS' if verdict else 'FAIL'}"
    )
    return verdict


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=20)
    parser.add_argument(
        "--skip-limited", action="store_true", help=f"leave out the {LIMIT} RPM phase"
    )
    parser.add_argument(
        "--smooth", action="store_true", help="also run the limited phase with smooth pacing"
    )
    args = parser.parse_args()
    _machine.print_machine("start")
    server = OpenAITestServer(replies=ReplyScript(function=reply), faults=FaultPlan())
    server.start()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            wall, run_id = asyncio.run(run(args.samples, server, Path(tmp), None, None))
            counts = calls_per_metric(Path(tmp) / ".ragjudge" / "runs.db", run_id)
    finally:
        server.stop()
    print(f"RAG suite ({', '.join(SUITE)}), {args.samples} samples")
    ok = print_calls(counts, args.samples)
    print(f"wall time, server answering at once: {wall:.2f} s")
    if not args.skip_limited:
        ok &= print_limited("burst: window", *limited_phase(args.samples, "window"), True)
        if args.smooth:
            ok &= print_limited("smooth pacing", *limited_phase(args.samples, None), False)
    _machine.print_machine("end")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

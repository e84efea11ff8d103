"""The four-metric RAG suite of seed 004 — faithfulness, context precision, context
recall, answer relevancy — on ``--samples`` samples against the local OpenAI-compatible
test server (judge and embeddings), through the runner.

Prints the judge calls per sample per metric (the target: at most 5 per sample, where
DeepEval's defaults spend 11 and RAGAS 0.4.3 spends 8), the wall time with a server that
answers at once, and the wall time against the lower bound under a 60 RPM limit (the
server enforces it and the judge is set to it; the bound is the time the limit allows
for that many requests). Exit status 1 when a target is missed. Run with ``make bench``
or::

    .venv/bin/python benchmarks/rag_suite.py [--samples N] [--skip-limited]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import sqlite3
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from ragjudge.config import EvalConfig
from ragjudge.models.scripted import prompt_text
from ragjudge.run._runner import run_evaluation
from ragjudge.testing.server import FaultPlan, OpenAITestServer, ReplyScript

SUITE = ["faithfulness", "context_precision", "context_recall", "answer_relevancy"]
MAX_CALLS_PER_SAMPLE = 5
MAX_WALL_RATIO = 1.15


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


async def run(
    samples: int, server: OpenAITestServer, folder: Path, rpm: int | None
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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=20)
    parser.add_argument("--skip-limited", action="store_true", help="leave out the 60 RPM phase")
    args = parser.parse_args()
    ok = True
    server = OpenAITestServer(replies=ReplyScript(function=reply), faults=FaultPlan())
    server.start()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            wall, run_id = asyncio.run(run(args.samples, server, Path(tmp), None))
            counts = calls_per_metric(Path(tmp) / ".ragjudge" / "runs.db", run_id)
        total = sum(counts.values()) / args.samples
        print(f"RAG suite ({', '.join(SUITE)}), {args.samples} samples")
        print(f"{'judge calls per sample':40}")
        for purpose, count in sorted(counts.items()):
            print(f"  {purpose:38} {count / args.samples:5.2f}")
        verdict = total <= MAX_CALLS_PER_SAMPLE
        ok &= verdict
        print(
            f"  {'total':38} {total:5.2f}   bound <= {MAX_CALLS_PER_SAMPLE}   {'PASS' if verdict else 'FAIL'}"
        )
        print(f"wall time, server answering at once: {wall:.2f} s")
        if not args.skip_limited:
            # a fresh server: the first phase's requests must not fill its 60 s window
            limited = OpenAITestServer(
                replies=ReplyScript(function=reply), faults=FaultPlan(rpm_limit=60)
            )
            limited.start()
            try:
                with tempfile.TemporaryDirectory() as tmp:
                    wall, _ = asyncio.run(run(args.samples, limited, Path(tmp), 60))
                requests = limited.stats.requests  # judge calls and embedding batches
                refused = limited.stats.rate_limited_by_rpm
            finally:
                limited.stop()
            floor = max(0, requests - 1) / 60 * 60  # even pacing at 60 per minute
            ratio = wall / floor if floor else float("nan")
            verdict = ratio <= MAX_WALL_RATIO
            ok &= verdict
            print(
                f"wall time at 60 RPM: {wall:.1f} s; lower bound {floor:.1f} s "
                f"({requests} requests, {refused} refused by the limit); ratio {ratio:.3f}   "
                f"bound <= {MAX_WALL_RATIO}   "
                f"{'PASS' if verdict else 'FAIL'}"
            )
    finally:
        server.stop()
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

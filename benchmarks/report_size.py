"""The HTML report of a 1,000-sample judged run: its size and the time to build it.

Builds a run of ``--samples`` samples (every fourth in Japanese; a question, a
response of a few sentences, three retrieved passages and a reference each) through
the runner, judged by an in-process scripted model with answer accuracy,
faithfulness, context precision and relevance to the query (five judge calls per
sample, every prompt and reply stored) plus two lexical metrics; then writes its
report and prints the size, the time it took, and the size of the packed per-sample
details. The targets: at most ``--max-mb`` MB (a few MB) and ``--max-seconds``
seconds. Exit status 1 when one is missed. Run with ``make bench`` or::

    .venv/bin/python benchmarks/report_size.py [--samples N]
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import re
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from ragjudge.config import EvalConfig
from ragjudge.models.scripted import ReplyScript, ScriptedProvider, prompt_text
from ragjudge.report import write_run_report
from ragjudge.run._runner import run_evaluation
from ragjudge.store._store import Store

METRICS: list[Any] = [
    {"metric": "answer_accuracy", "contexts": "retrieved"},
    "faithfulness",
    "context_precision",
    "relevance_to_query",
    "rouge_l",
    "token_f1",
]

_EN = [
    "UNION removes duplicate rows from the combined result, while UNION ALL keeps them.",
    "Because it does not have to find duplicates, UNION ALL is usually faster.",
    "A LEFT OUTER JOIN returns every row of the left table.",
    "Rows without a match get NULL in the columns of the right table.",
    "An index speeds up lookups at the cost of slower writes and more storage.",
    "A deadlock happens when two transactions wait for each other's locks forever.",
]
_JA = [
    "UNIONは結合結果から重複行を取り除き、UNION ALLは重複をそのまま残す。",
    "重複を探す必要がないため、UNION ALLのほうが通常は速い。",
    "LEFT OUTER JOINは左側の表のすべての行を返す。",
    "デッドロックは二つのトランザクションが互いのロックを待ち続ける状態である。",
]


def _sentences(i: int, count: int, japanese: bool) -> str:
    pool = _JA if japanese else _EN
    return " ".join(f"{pool[(i + k) % len(pool)]} ({i}.{k})" for k in range(count))


def rows(n: int) -> list[dict[str, Any]]:
    """``n`` rows with responses, passages and references that differ per sample."""
    found = []
    for i in range(n):
        ja = i % 4 == 3
        found.append(
            {
                "request_id": f"s{i:05d}",
                "request": f"質問{i}: UNIONとUNION ALLの違いは?"
                if ja
                else f"Question {i}: how do UNION and UNION ALL differ?",
                "response": _sentences(i, 3, ja),
                "expected_response": _sentences(i + 1, 2, ja),
                "retrieved_context": [
                    {"doc_uri": f"doc{(i + k) % 97}.md", "content": _sentences(i + k, 5, ja)}
                    for k in range(3)
                ],
                "metadata": {"lang": "ja" if ja else "en", "topic": f"t{i % 7}"},
            }
        )
    return found


def reply(messages: list[dict[str, Any]]) -> str:
    """What the scripted judge answers to each kind of prompt."""
    prompt = prompt_text(messages)
    tag = int(hashlib.sha256(prompt.encode()).hexdigest(), 16) % 5
    if prompt.startswith("You break an answer into statements."):
        return json.dumps({"statements": ["UNION removes duplicates.", "UNION ALL is faster."]})
    if "BEGIN STATEMENT" in prompt or ("BEGIN CONTEXT" in prompt and '"verdicts"' in prompt):
        items = len(re.findall(r"<<<BEGIN STATEMENT \d+>>>", prompt)) or len(
            re.findall(r"<<<BEGIN CONTEXT \d+", prompt)
        )
        verdicts = [
            {"reason": "stated in a passage", "verdict": "yes" if (tag + k) % 3 else "no"}
            for k in range(items)
        ]
        return json.dumps({"verdicts": verdicts})
    if "[RESULT]" in prompt:
        return f"Feedback: the response states most of the reference. [RESULT] {1 + tag}"
    return f"Rationale: the response addresses the request.\nAnswer: {'yes' if tag else 'no'}"


async def build(samples: int, folder: Path) -> tuple[Path, str, int]:
    data = folder / "set.jsonl"
    data.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in rows(samples)) + "\n")
    config = EvalConfig.model_validate(
        {
            "name": f"report benchmark ({samples} samples)",
            "data": str(data),
            "metrics": METRICS,
            "judge": {"model": "scripted", "preflight": False, "prices": {"scripted": [0.15, 0.6]}},
            "cache": False,
            "by": "metadata.lang",
            "concurrency": 16,
            "base_dir": str(folder),
        }
    )
    provider = ScriptedProvider(ReplyScript(function=reply))
    result = await run_evaluation(config, progress=False, judge_provider=provider)
    calls = sum(u["calls"] for u in result.judge_usage)
    return config.store_path, result.run_id, calls


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=1000)
    parser.add_argument("--max-mb", type=float, default=8.0)
    parser.add_argument("--max-seconds", type=float, default=60.0)
    parser.add_argument("--keep", type=Path, help="also copy the report to this file")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        started = time.perf_counter()
        store_path, run_id, calls = asyncio.run(build(args.samples, Path(tmp)))
        print(
            f"run of {args.samples} samples, {calls} judge calls: {time.perf_counter() - started:.1f} s"
        )
        with Store(store_path) as store:
            started = time.perf_counter()
            path = write_run_report(store, run_id, Path(tmp) / "report.html")
            seconds = time.perf_counter() - started
        html = path.read_text(encoding="utf-8")
        if args.keep:
            args.keep.write_text(html, encoding="utf-8")
    packed = re.search(r'id="drill-data">([^<]*)<', html)
    size_mb = len(html.encode("utf-8")) / 1e6
    packed_mb = len(packed.group(1)) / 1e6 if packed else 0.0
    size_ok, time_ok = size_mb <= args.max_mb, seconds <= args.max_seconds
    print(
        f"report size: {size_mb:.2f} MB (per-sample details packed: {packed_mb:.2f} MB)"
        f"   bound <= {args.max_mb:g} MB   {'PASS' if size_ok else 'FAIL'}"
    )
    print(
        f"report build time: {seconds:.1f} s   bound <= {args.max_seconds:g} s   {'PASS' if time_ok else 'FAIL'}"
    )
    return 0 if size_ok and time_ok else 1


if __name__ == "__main__":
    sys.exit(main())

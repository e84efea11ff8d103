"""What generating a test set from the clapnq passages costs, and how long a scripted
generation takes through real HTTP.

Data: the passages of ``../shared/data/clapnq/clapnq_dev_answerable.jsonl`` (each
passage a document, ``title (row id-position)`` its doc_uri), chunked as a run chunks a
knowledge base (800 characters, 100 of overlap).

1. The dry run of ``--n`` samples with ``openai/gpt-4o-mini`` as the generator, priced
   from the published prices: candidates, calls, tokens and dollars at both ends
   (every candidate kept / every kind using all its attempts). Nothing is called.
2. A generation of ``--n`` samples against the local OpenAI-compatible test server
   answering with the scripted generator of the tests (``tests/testset_script.py``;
   the model calls go over HTTP through the judge layer): wall time, calls, kept and
   dropped per check; then the same generation again, which reads every candidate back
   from the store (calls: 0).

Run with::

    .venv/bin/python benchmarks/testset_generation.py [--n 100]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path

from ragjudge.config import JudgeConfig
from ragjudge.knowledge import KnowledgeBase
from ragjudge.testing.server import OpenAITestServer
from ragjudge.testsets._api import agenerate, plan

ROOT = Path(__file__).resolve().parents[1]
CLAPNQ = ROOT.parent / "shared" / "data" / "clapnq" / "clapnq_dev_answerable.jsonl"
sys.path.insert(0, str(ROOT / "tests"))
from testset_script import GeneratorScript, clapnq_knowledge_base  # noqa: E402


def print_plan(kb: KnowledgeBase, n: int) -> None:
    found = asyncio.run(plan(kb, n, judge="openai/gpt-4o-mini")).to_dict()
    print(f"dry run, {n} samples, generator {found['generator']} ({found['price_source']})")
    print(f"  samples wanted per kind: {found['wanted']}")
    for key in ("candidates", "calls", "input_tokens", "output_tokens"):
        print(f"  {key}: {found[key]['low']} to {found[key]['high']}")
    cost = found["cost"]
    if cost["low"] is not None:
        print(f"  cost: ${cost['low']:.4f} to ${cost['high']:.4f}")


def generate_over_http(kb: KnowledgeBase, n: int) -> None:
    script = GeneratorScript()
    with OpenAITestServer(replies=script.script()) as server, tempfile.TemporaryDirectory() as tmp:
        judge = JudgeConfig(model="openai/generator", base_url=server.base_url, preflight=False)
        store = Path(tmp) / "runs.db"
        started = time.perf_counter()
        found = asyncio.run(agenerate(kb, n, judge=judge, store=store, cache=False))
        wall = time.perf_counter() - started
        print(f"generation of {n} samples over HTTP (scripted generator): {wall:.2f} s")
        print(f"  kept per kind: {found.kept_by_kind()}  complete: {found.complete}")
        print(f"  calls: {found.calls}  dropped per check: {dict(found.assembly.dropped)}")
        print(f"  candidates checked: {found.assembly.checked}  spare: {found.assembly.spare}")
        again = asyncio.run(agenerate(kb, n, judge=judge, store=store, cache=False))
        same = [r["request_id"] for r in again.rows] == [r["request_id"] for r in found.rows]
        print(f"  the same generation again: calls {again.calls}, same set: {same}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=100)
    parser.add_argument("--data", type=Path, default=CLAPNQ)
    args = parser.parse_args()
    if not args.data.exists():
        raise SystemExit(f"no clapnq data at {args.data}")
    kb = clapnq_knowledge_base(args.data)
    print(f"knowledge base: {len(kb.documents)} passages, {len(kb.chunks)} chunks")
    print_plan(kb, args.n)
    generate_over_http(kb, args.n)


if __name__ == "__main__":
    main()

"""Peak memory of ``export``, ``report`` and ``compare`` on a large stored run.

Builds two stored runs (one when ``compare`` is not measured) of ``--rows`` samples × five lexical metrics (exact match,
token F1, ROUGE-L, BLEU, chrF) FAST: the samples and their outputs and scores are
written through the store's writer directly, with made-up values — no metric is run,
so this measures reading a run back, not scoring it. Then runs, each in a child
process of its own, ``ragjudge export`` (JSON Lines and Parquet), ``ragjudge report``
and ``ragjudge compare`` on them, and prints each one's peak RSS, wall time and the
size of what it wrote. The goal: at most ``--max-mb`` MB of peak RSS (1 GB) per
command. Exit status 1 when a command fails or misses it. Run with::

    .venv/bin/python benchmarks/large_run_memory.py --rows 100000
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from ragjudge.config import EvalConfig
from ragjudge.schema import Sample, ScoreMeaning
from ragjudge.store._rows import dumps
from ragjudge.store._store import Store

METRICS = ("exact_match", "token_f1", "rouge_l", "bleu", "chrf")
PAGE = 10_000
_WORDS = [
    "index",
    "query",
    "table",
    "storage",
    "replica",
    "latency",
    "cluster",
    "backup",
    "schema",
    "column",
]


def _text(rng: random.Random, words: int) -> str:
    return " ".join(rng.choices(_WORDS, k=words))


def _sample_json(i: int, rng: random.Random) -> tuple[str, str]:
    request_id = f"r{i:07d}"
    sample = {
        "request_id": request_id,
        "request": f"question {i}: {_text(rng, 6)}",
        "response": _text(rng, 12),
        "expected_response": _text(rng, 10),
        "metadata": {"topic": f"t{i % 7}", "day": f"2026-11-{1 + i % 28:02d}"},
    }
    return request_id, Sample.model_validate(sample).model_dump_json()


def build_run(store: Store, rows: int, seed: int, config: dict[str, object]) -> str:
    """A stored, finished run of ``rows`` samples with five lexical scores each."""
    rng = random.Random(seed)
    meanings = {m: ScoreMeaning() for m in METRICS}
    samples = [_sample_json(i, rng) for i in range(rows)]
    pages = (samples[at : at + PAGE] for at in range(0, rows, PAGE))
    run_id = store.create_run(
        name=f"large run {seed}",
        config=config,
        versions={"ragjudge": "bench"},
        samples=[],
        trials=1,
        meanings=meanings,
        pages=pages,
    )
    now = "2026-11-27T00:00:00+00:00"
    for at in range(0, rows, PAGE):
        outputs, scores = [], []
        for request_id, text in samples[at : at + PAGE]:
            response = json.loads(text)["response"]
            output = {"response": response, "latency": 0.01}
            outputs.append((run_id, request_id, dumps(output), None, 0.01, 0, 0, now))
            for metric in METRICS:
                value = round(rng.random(), 4)
                scores.append(
                    (run_id, request_id, 0, metric, value, None, None, "{}", "[]", now, None, None)
                )
        store.write_results(outputs, scores)
    store.set_status(run_id, "completed")
    return run_id


def _config(folder: Path) -> dict[str, object]:
    data = folder / "set.jsonl"
    data.write_text('{"request": "q", "response": "a", "expected_response": "a"}\n')
    config = EvalConfig.model_validate(
        {"data": str(data), "metrics": list(METRICS), "base_dir": str(folder)}
    )
    return config.model_dump(mode="json")


def measure(command: list[str], output: Path | None) -> tuple[float, float, float, int]:
    """Peak RSS (MB), wall seconds and output size (MB) of a child process, and its
    exit status."""
    script = (
        "import resource, subprocess, sys\n"
        "done = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)\n"
        "if done.returncode: print(done.stderr.decode()[-2000:], file=sys.stderr)\n"
        "peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss\n"
        "print(peak, done.returncode)\n"
    )
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", script, *command], capture_output=True, text=True, check=True
    )
    if done.stderr:
        print(done.stderr, file=sys.stderr)
    wall = time.perf_counter() - started
    peak_kb, status = done.stdout.split()
    size = output.stat().st_size / 1e6 if output is not None and output.exists() else 0.0
    return int(peak_kb) / 1024, wall, size, int(status)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--max-mb", type=float, default=1024.0)
    parser.add_argument(
        "--only", nargs="*", help="measure only these commands (e.g. 'export jsonl' report)"
    )
    args = parser.parse_args()
    ok = True
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        store_path = folder / "runs.db"
        started = time.perf_counter()
        with Store(store_path, write=True) as store:
            config = _config(folder)
            first = build_run(store, args.rows, 1, config)
            wanted = not args.only or "compare" in args.only
            second = build_run(store, args.rows, 2, config) if wanted else first
        print(
            f"{1 + wanted} stored run(s) of {args.rows:,} rows × 5 scores: {time.perf_counter() - started:.0f} s"
        )
        cli = [sys.executable, "-m", "ragjudge"]
        store_option = ["--store", str(store_path)]
        commands = {
            "export jsonl": (
                [*cli, "export", first, *store_option, "-o", str(folder / "rows.jsonl")],
                folder / "rows.jsonl",
            ),
            "export parquet": (
                [*cli, "export", first, *store_option, "-o", str(folder / "rows.parquet")],
                folder / "rows.parquet",
            ),
            "report": (
                [*cli, "report", first, *store_option, "-o", str(folder / "run.html")],
                folder / "run.html",
            ),
            "compare": ([*cli, "compare", first, second, *store_option], None),
        }
        for name, (command, output) in commands.items():
            if args.only and name not in args.only:
                continue
            peak, wall, size, status = measure(command, output)
            passed = status == 0 and peak <= args.max_mb
            ok = ok and passed
            print(
                f"{name:15} peak RSS {peak:7.0f} MB   wall {wall:6.1f} s   output {size:7.1f} MB"
                f"   exit {status}   {'PASS' if passed else 'FAIL'} (<= {args.max_mb:g} MB)"
            )
    return 0 if ok else 1


if __name__ == "__main__":
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    sys.exit(main())

"""``ragjudge run`` on 10,000 samples with five lexical metrics: rows per second and the
peak memory of the command.

The samples (every fifth one in Japanese, responses in the data, some with two reference
answers; see ``_corpus.lexical_rows``) are scored with ``exact_match``, ``fuzzy_match``,
``word_recall``, ``token_f1`` and ``rouge_l`` — the five that tokenise — by the real
command line in a child process (``python -m ragjudge.cli run eval.yaml --no-progress``),
each repetition with a fresh store. The wall time counts everything the user waits for:
start-up, loading, scoring, storing and the printed summary. Peak RSS is the child's
maximum resident set size.

Bounds (from the issue): at least 3,000 rows per second, peak RSS at most 400 MB.
Prints every repetition, the best and the median. Exit status 1 when the best
repetition misses a bound. Run with::

    .venv/bin/python benchmarks/lexical_run.py [--samples N] [--repeat N]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import _corpus

METRICS = ["exact_match", "fuzzy_match", "word_recall", "token_f1", "rouge_l"]
MIN_ROWS_PER_SECOND = 3000.0
MAX_RSS_MB = 400.0


def write_project(folder: Path, samples: int) -> Path:
    """The evaluation set and its config in ``folder``; the config's path."""
    rows = _corpus.lexical_rows(samples, seed=1)
    (folder / "set.jsonl").write_text(
        "\n".join(json.dumps(row, ensure_ascii=False) for row in rows) + "\n", encoding="utf-8"
    )
    config = folder / "eval.yaml"
    config.write_text(f"name: lexical-bench\ndata: set.jsonl\nmetrics: {json.dumps(METRICS)}\n")
    return config


def run_once(config: Path, store: Path) -> tuple[float, float, int]:
    """One ``ragjudge run``: (wall seconds, peak RSS in MB, exit status)."""
    command = [sys.executable, "-m", "ragjudge.cli", "run", str(config), "--no-progress"]
    command += ["--store", str(store)]
    started = time.perf_counter()
    child = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - started
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode != 0 and child.stderr is not None:
        sys.stderr.write(child.stderr.read().decode(errors="replace"))
    return wall, usage.ru_maxrss / 1024, child.returncode


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--samples", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print(
        f"ragjudge run: {args.samples} samples x {len(METRICS)} lexical metrics ({', '.join(METRICS)})"
    )
    print(f"load average before: {_corpus.load_average()}")
    walls: list[float] = []
    peaks: list[float] = []
    with tempfile.TemporaryDirectory(prefix="ragjudge-lexical-") as tmp:
        folder = Path(tmp)
        config = write_project(folder, args.samples)
        for repetition in range(args.repeat):
            wall, peak, status = run_once(config, folder / f"runs-{repetition}.db")
            if status != 0:
                print(f"ragjudge run exited {status}")
                return 1
            walls.append(wall)
            peaks.append(peak)
            print(
                f"  run {repetition + 1}: {wall:.2f} s, {args.samples / wall:.0f} rows/s, "
                f"peak RSS {peak:.0f} MB"
            )
    print(f"load average after: {_corpus.load_average()}")
    best, median = min(walls), statistics.median(walls)
    print(f"rows/s best {args.samples / best:.0f}, median {args.samples / median:.0f}")
    rate_line = _corpus.ratio_line(
        "rows per second (best)", args.samples / best, MIN_ROWS_PER_SECOND, "rows/s", higher=True
    )
    rss_line = _corpus.ratio_line("peak RSS (largest)", max(peaks), MAX_RSS_MB, "MB")
    print(rate_line)
    print(rss_line)
    return 0 if "FAIL" not in rate_line + rss_line else 1


if __name__ == "__main__":
    raise SystemExit(main())

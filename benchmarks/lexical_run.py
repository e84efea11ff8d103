"""``ragjudge run`` on 10,000 samples with five lexical metrics: rows per second and the
peak memory of the command.

The samples (every fifth one in Japanese, responses in the data, some with two reference
answers; see ``_corpus.lexical_rows``) are scored with ``exact_match``, ``fuzzy_match``,
``word_recall``, ``token_f1`` and ``rouge_l`` — the five that tokenise — by the real
command line in a child process (``python -m ragjudge run eval.yaml --no-progress``),
each repetition with a fresh store. The wall time counts everything the user waits for:
start-up, loading, scoring, storing and the printed summary. The run scores in worker
processes forked from it (``processes: auto``), so two memory figures are printed: the
command's own peak resident set (its maximum RSS), and, from one more run after the
timed ones, the peak of all its processes together: their proportional set sizes (each
page once, pages shared after the fork split between the processes), sampled every
50 ms (reading them slows the command a little, so that run is not timed). The bound
applies to the latter, whichever is larger.

The reference, measured in the same run on the same rows and started the same way (a
child process right after each timed run, best kept): ``_lexical_reference.py``, which reads
the rows into pandas, tokenises them with MeCab and a word pattern, scores exact match,
containment, token F1 and word recall in plain Python and stores the scores with one
``executemany`` — the libraries alone doing most of the command's work. It runs on the
same processor with the same byte code and load, so the ratio of the two rates keeps
its meaning on another machine where rows per second do not (the command scores in
worker processes and the reference in one, so the ratio also grows with the cores left
free: the machine line prints them).

Bounds: rows per second (best) at least 0.5 x the reference's (best); peak memory at
most 400 MB. The absolute rows per second are printed too. Prints every repetition,
the best and the median. Exit status 1 when the best repetition misses a bound. Run
with::

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
import _machine

METRICS = ["exact_match", "fuzzy_match", "word_recall", "token_f1", "rouge_l"]
MIN_RATE_RATIO = 0.5
"""Rows per second of ``ragjudge run`` against the bare-library reference (bests)."""
REFERENCE = Path(__file__).with_name("_lexical_reference.py")
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


def tree_pss_mb(pid: int) -> float:
    """The proportional set size of ``pid`` and its descendants now, in MB (0 once
    gone): each page counted once, shared pages split between the processes sharing
    them, so the sum is the memory the command occupies."""
    total_kb, pending = 0, [pid]
    while pending:
        current = pending.pop()
        try:
            rollup = Path(f"/proc/{current}/smaps_rollup").read_text()
            children = Path(f"/proc/{current}/task/{current}/children").read_text()
        except OSError:
            continue
        total_kb += next(
            (int(line.split()[1]) for line in rollup.splitlines() if line.startswith("Pss:")),
            0,
        )
        pending += [int(child) for child in children.split()]
    return total_kb / 1024


def run_once(config: Path, store: Path, *, sample: bool = False) -> tuple[float, float, float, int]:
    """One ``ragjudge run``: (wall seconds, the command's peak RSS in MB, the peak of
    all its processes together in MB when ``sample`` (see the module docstring), else
    0, exit status)."""
    command = [sys.executable, "-m", "ragjudge", "run", str(config), "--no-progress"]
    command += ["--store", str(store)]
    started = time.perf_counter()
    child = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    tree_peak = 0.0
    while sample:
        pid, status, usage = os.wait4(child.pid, os.WNOHANG)
        if pid:
            break
        tree_peak = max(tree_peak, tree_pss_mb(child.pid))
        time.sleep(0.05)
    else:
        _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - started
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode != 0 and child.stderr is not None:
        sys.stderr.write(child.stderr.read().decode(errors="replace"))
    own_peak = usage.ru_maxrss / 1024
    return wall, own_peak, max(tree_peak, own_peak) if sample else 0.0, child.returncode


def reference_wall(folder: Path, repetition: int) -> float:
    """Wall seconds of one run of the bare-library reference on the same rows."""
    command = [sys.executable, str(REFERENCE), str(folder / "set.jsonl")]
    command.append(str(folder / f"reference-{repetition}.db"))
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"the reference exited {done.returncode}:\n{done.stderr}")
    return wall


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--samples", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    _corpus.byte_compile_sources()
    print(
        f"ragjudge run: {args.samples} samples x {len(METRICS)} lexical metrics ({', '.join(METRICS)})"
    )
    _machine.print_machine("start")
    walls: list[float] = []
    peaks: list[float] = []
    references: list[float] = []
    with tempfile.TemporaryDirectory(prefix="ragjudge-lexical-") as tmp:
        folder = Path(tmp)
        config = write_project(folder, args.samples)
        for repetition in range(args.repeat):
            wall, peak, _, status = run_once(config, folder / f"runs-{repetition}.db")
            if status != 0:
                print(f"ragjudge run exited {status}")
                return 1
            walls.append(wall)
            peaks.append(peak)
            # right after, so a change of load touches both
            references.append(reference_wall(folder, repetition))
            print(
                f"  run {repetition + 1}: {wall:.2f} s, {args.samples / wall:.0f} rows/s, "
                f"peak RSS {peak:.0f} MB; reference {references[-1]:.2f} s "
                f"({args.samples / references[-1]:.0f} rows/s)"
            )
        _, peak, tree_peak, status = run_once(config, folder / "runs-memory.db", sample=True)
        if status != 0:
            print(f"ragjudge run exited {status}")
            return 1
        print(
            f"  memory run: peak RSS {peak:.0f} MB; all its processes together {tree_peak:.0f} MB"
        )
    _machine.print_machine("end")
    best, median = min(walls), statistics.median(walls)
    reference = args.samples / min(references)
    print(
        f"rows/s best {args.samples / best:.0f}, median {args.samples / median:.0f}; "
        f"reference best {reference:.0f}"
    )
    rate_line = _corpus.ratio_line(
        "rows per second (best) / reference's (best)",
        min(references) / best,
        MIN_RATE_RATIO,
        "x",
        higher=True,
    )
    rss_line = _corpus.ratio_line(
        "peak memory of all the command's processes", max(tree_peak, *peaks), MAX_RSS_MB, "MB"
    )
    print(rate_line)
    print(rss_line)
    return 0 if "FAIL" not in rate_line + rss_line else 1


if __name__ == "__main__":
    raise SystemExit(main())

"""Paired paced runs: does a judged run keep up with the server's own floor at every
rate, without provoking 429s, and is it no slower than a bare client sending the same
calls?

Two workloads through the runner (``run_evaluation``, fresh store and cache, cache on,
the default concurrency and pre-flight question): ``one-metric``, 60 samples of
``answer_accuracy`` without contexts (one judge call each), and ``rag-suite``, the four
RAG metrics (faithfulness, context precision, context recall, answer relevancy with
embeddings from the same server) on 20 samples. Each runs against a fresh local test
server in a process of its own (``_paced_server.py``) that answers after 0.5 s, fails
5 % of requests with HTTP 500 (seeded) and, at a rate, refuses with 429 and
``Retry-After`` the requests above ``rpm`` in any sliding 60 s window; the judge is
told the limit (``rpm`` and ``burst: window``). Rates: none, 60 and 240 RPM.

Measured in the same invocation, one after the other:

* **own work**: the workload against a server answering at once, no faults, no limit
  (best of the repeats) — what the run's own code costs on this machine;
* **bare client**: an unthrottled ``httpx2.AsyncClient`` (32 connections, a semaphore
  of 32, no rate limiting) replaying the calls the ragjudge run recorded in its store
  against a fresh server with the same rules: the calls of one sample and metric in
  their order (statements before faithfulness verdicts, questions before their
  embeddings), all chains at once; a 500 is sent again at once, a 429 after its
  ``Retry-After``. The pre-flight question is not replayed.

The floor of a run is ``own work + server floor``, where the server floor is the larger
of the latency floor — the longest chain of requests one sample sent one after another
(every attempt the store recorded) × 0.5 s — and the window floor: with R requests the
server admitted (requests minus its rate-limit refusals) and limit L,
``(ceil(R / L) - 1) × 60 + 0.5`` s (0 without a limit).

Bounds, each PASS/FAIL, on the best of ``--repeat`` runs: wall / floor ≤ 1.05; no
self-provoked 429s (the server's rpm refusals in any run; injected 500s are not
counted); ragjudge's wall ≤ the bare client's (ratio ≤ 1.00); every sample scored.
Exit status 1 when a bound is missed. The 60 RPM runs wait for the window (a minute or
two each). Run with::

    .venv/bin/python benchmarks/paced_runs.py [--quick] [--repeat N] [--rates none 60 240]
        [--workloads one-metric rag-suite]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import _machine
import _paced

from ragjudge.config import EvalConfig
from ragjudge.run._runner import run_evaluation

ERROR_RATE = 0.05
MAX_WALL_RATIO = 1.05
MAX_BARE_RATIO = 1.00


@dataclass(frozen=True)
class Workload:
    name: str
    samples: int
    rows: Callable[[int], list[dict[str, Any]]]
    metrics: list[Any]


WORKLOADS = {
    "one-metric": Workload(
        "one-metric",
        60,
        _paced.one_metric_rows,
        [{"metric": "answer_accuracy", "contexts": "none"}],
    ),
    "rag-suite": Workload("rag-suite", 20, _paced.suite_rows, _paced.SUITE_METRICS),
}


@dataclass
class Run:
    """One ragjudge run and the bare client's replay of its calls."""

    wall: float
    server_floor: float
    self_429s: int
    requests: int
    scored: int
    bare_wall: float


def config(workload: Workload, folder: Path, base_url: str, rpm: int | None) -> EvalConfig:
    data = folder / "set.jsonl"
    data.write_text("\n".join(json.dumps(r) for r in workload.rows(workload.samples)) + "\n")
    judge: dict[str, Any] = {"model": "openai/judge", "base_url": base_url}
    if rpm is not None:
        judge |= {"rpm": rpm, "burst": "window"}
    return EvalConfig.model_validate(
        {"data": str(data), "metrics": workload.metrics, "judge": judge, "base_dir": str(folder)}
    )


def timed_run(
    workload: Workload, rules: _paced.ServerRules, folder: Path
) -> tuple[float, int, dict[str, Any]]:
    """Run the workload through the runner against a fresh server with ``rules``: the
    wall time, the samples every metric scored and the server's counters."""
    with _paced.ServerProcess(rules) as server:
        settings = config(workload, folder, server.base_url, rules.rpm)
        started = time.perf_counter()
        result = asyncio.run(run_evaluation(settings, progress=False))
        wall = time.perf_counter() - started
        stats = server.stats()
    return wall, min((s.n for s in result.summaries), default=0), stats


def own_work(workload: Workload, repeat: int) -> float:
    """Best wall time against a server answering at once, with no faults and no limit."""
    rules = _paced.ServerRules(workload.name, 0.0, None, 0.0, 0)
    walls = []
    for _ in range(repeat):
        with tempfile.TemporaryDirectory(prefix="ragjudge-paced-") as tmp:
            walls.append(timed_run(workload, rules, Path(tmp))[0])
    return min(walls)


def paced_run(workload: Workload, rate: int | None, seed: int) -> Run:
    """One ragjudge run at ``rate`` and the bare client replaying its calls."""
    rules = _paced.ServerRules(workload.name, _paced.LATENCY, rate, ERROR_RATE, seed)
    with tempfile.TemporaryDirectory(prefix="ragjudge-paced-") as tmp:
        folder = Path(tmp)
        wall, scored, stats = timed_run(workload, rules, folder)
        calls = _paced.sent_calls(folder / ".ragjudge" / "runs.db")
    admitted = stats["requests"] - stats["rate_limited_by_rpm"]
    server_floor = max(_paced.latency_floor(calls), _paced.window_floor(admitted, rate))
    with _paced.ServerProcess(rules) as bare_server:
        bare_wall, _ = asyncio.run(_paced.replay(bare_server.base_url, calls))
    return Run(
        wall=wall,
        server_floor=server_floor,
        self_429s=stats["rate_limited_by_rpm"],
        requests=stats["requests"],
        scored=scored,
        bare_wall=bare_wall,
    )


def verdict(passed: bool) -> str:
    return "PASS" if passed else "FAIL"


def report(workload: Workload, rate: int | None, own: float, runs: list[Run]) -> bool:
    """Print one workload × rate with its bounds; True when all of them hold."""
    best = min(runs, key=lambda r: r.wall)
    median = statistics.median(r.wall for r in runs)
    floor = own + best.server_floor
    bare = min(r.bare_wall for r in runs)
    self_429s = max(r.self_429s for r in runs)
    scored = min(r.scored for r in runs)
    label = f"{rate} RPM" if rate else "no limit"
    print(f"{workload.name}, {label}:")
    for number, run in enumerate(runs, 1):
        print(f"  run {number}: wall {run.wall:.2f} s, server floor {run.server_floor:.2f} s,"
              f" bare client {run.bare_wall:.2f} s, {run.requests} requests,"
              f" self-provoked 429s {run.self_429s}, scored {run.scored}/{workload.samples}")  # fmt: skip
    print(f"  ragjudge wall best {best.wall:.2f} s, median {median:.2f} s; own work {own:.2f} s"
          f" + server floor {best.server_floor:.2f} s = floor {floor:.2f} s")  # fmt: skip
    checks = [
        (f"wall / floor {best.wall / floor:.3f}", f"<= {MAX_WALL_RATIO:.2f}", best.wall <= MAX_WALL_RATIO * floor),
        (f"self-provoked 429s {self_429s}", "= 0", self_429s == 0),
        (f"ragjudge wall / bare client's {bare:.2f} s {best.wall / bare:.3f}", f"<= {MAX_BARE_RATIO:.2f}",
         best.wall <= MAX_BARE_RATIO * bare),
        (f"samples scored {scored}/{workload.samples}", "all", scored == workload.samples),
    ]  # fmt: skip
    for figure, bound, passed in checks:
        print(f"  {figure:58} bound {bound:7} {verdict(passed)}")
    return all(passed for _, _, passed in checks)


def parse_rate(text: str) -> int | None:
    return None if text.lower() == "none" else int(text)


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--rates", nargs="+", type=parse_rate, default=[None, 60, 240],
                        help="server limits in requests per minute ('none': no limit)")  # fmt: skip
    parser.add_argument("--workloads", nargs="+", choices=WORKLOADS, default=list(WORKLOADS))
    parser.add_argument("--repeat", type=int, default=2, help="runs per workload and rate")
    parser.add_argument("--quick", action="store_true", help="rates none and 240, one run each")
    args = parser.parse_args()
    if args.quick:
        args.rates, args.repeat = [None, 240], 1
    return args


def main() -> int:
    args = parse_args()
    _machine.print_machine("start")
    print(f"server: {_paced.LATENCY:g} s latency, {ERROR_RATE:.0%} HTTP 500, rpm per sliding"
          f" {_paced.WINDOW:g} s window; bare client: {_paced.BARE_CONNECTIONS} connections")  # fmt: skip
    passed = True
    for name in args.workloads:
        workload = WORKLOADS[name]
        own_work(workload, 1)  # warm-up: the first run of a process pays for the imports
        own = own_work(workload, args.repeat)
        for rate in args.rates:
            runs = [paced_run(workload, rate, seed) for seed in range(1, args.repeat + 1)]
            passed = report(workload, rate, own, runs) and passed
    _machine.print_machine("end")
    return 0 if passed else 1


if __name__ == "__main__":
    raise SystemExit(main())

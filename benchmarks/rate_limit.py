"""A judged run under a configured rate limit: does the limiter use the provider's
true limit?

60 samples, one judge call each (``answer_accuracy`` without contexts), through the
runner (``concurrency: 8``, judge ``max_concurrency: 8``, ``rpm: 240``, no pre-flight
question) against the local OpenAI-compatible test server, which answers after 0.5 s,
fails 5 % of requests with HTTP 500 and enforces 240 RPM. Scenarios:

* ``minute``: the server counts 240 requests per sliding minute; the judge is told so
  with ``burst: window`` (the whole window's budget may start at once; the default
  pacing is smooth, a second's share of the rpm at once — see ``even``). The whole workload fits one window, so the
  floor is that of the concurrency and the latency: ceil(60 / 8) × 0.5 s = 4.0 s.
  Bounds (from the issue): wall ≤ 1.2 × floor, 0 self-provoked 429s.
* ``second``: the server enforces 240 RPM as 4 requests in any second; the judge is
  told so with ``burst: 4``. Floor: 15 groups of 4, one per second, plus the latency
  (14.5 s). Bound: 0 self-provoked 429s (the wall time is printed with its ratio).
* ``second-unsaid`` (shown, not checked): the same server with the default ``burst``
  (smooth pacing, 4 requests a second), which already keeps to the shorter period.
* ``even`` (shown, not checked): the minute server with ``burst: 1``, every request
  spaced evenly from the first (60 requests at 240 RPM: 14.75 s + the latency).

"Self-provoked 429s" are the server's RPM refusals. The machine (processor, cores, Python, byte code, load) is printed at the start and
the end. Each scenario runs ``--repeat``
times (fresh store and cache) after one untimed warm-up run, so the figures leave out
the imports of a process's first judged run; the best and the median are printed. Exit status 1
when the best repetition misses a checked bound. Run with::

    .venv/bin/python benchmarks/rate_limit.py [--repeat N] [--scenarios minute second]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import statistics
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import _machine

from ragjudge.config import EvalConfig
from ragjudge.run._runner import run_evaluation
from ragjudge.testing.server import FaultPlan, OpenAITestServer, ReplyScript

SAMPLES = 60
CONCURRENCY = 8
LATENCY = 0.5
RPM = 240
MAX_WALL_RATIO = 1.2


@dataclass(frozen=True)
class Scenario:
    """A server and the judge's view of its limit."""

    name: str
    period: float
    """Seconds over which the server enforces its RPM."""
    burst: int | str | None
    checked: bool

    @property
    def floor(self) -> float:
        """The shortest possible wall time for the scenario's server."""
        waves = math.ceil(SAMPLES / CONCURRENCY) * LATENCY
        if self.period >= 60:
            return waves
        per_period = max(1, int(RPM * self.period / 60))
        return max(waves, (math.ceil(SAMPLES / per_period) - 1) * self.period + LATENCY)


SCENARIOS = {
    "minute": Scenario("minute", 60.0, "window", checked=True),
    "second": Scenario("second", 1.0, 4, checked=True),
    "second-unsaid": Scenario("second-unsaid", 1.0, None, checked=False),
    "even": Scenario("even", 60.0, 1, checked=False),
}


@dataclass
class Outcome:
    wall: float
    self_429s: int
    requests: int
    scored: int


def rows() -> list[dict[str, Any]]:
    return [
        {"request_id": f"q{i:03d}", "request": f"question {i}", "response": f"answer {i}",
         "expected_response": f"reference {i}"}
        for i in range(SAMPLES)
    ]  # fmt: skip


async def run_once(scenario: Scenario, folder: Path, seed: int) -> Outcome:
    plan = FaultPlan(
        latency=(LATENCY, LATENCY),
        rpm_limit=RPM,
        limit_period=scenario.period,
        error_500_rate=0.05,
        seed=seed,
    )
    data = folder / "set.jsonl"
    data.write_text("\n".join(json.dumps(r) for r in rows()) + "\n")
    async with OpenAITestServer(
        replies=ReplyScript(default="Feedback: fine. [RESULT] 4"), faults=plan
    ) as server:
        judge: dict[str, Any] = {
            "model": "openai/judge-x",
            "base_url": server.base_url,
            "rpm": RPM,
            "max_concurrency": CONCURRENCY,
            "preflight": False,
        }
        if scenario.burst is not None:
            judge["burst"] = scenario.burst
        config = EvalConfig.model_validate(
            {
                "data": str(data),
                "metrics": [{"metric": "answer_accuracy", "contexts": "none"}],
                "judge": judge,
                "concurrency": CONCURRENCY,
                "base_dir": str(folder),
            }
        )
        started = time.perf_counter()
        result = await run_evaluation(config, progress=False)
        wall = time.perf_counter() - started
        scored = result.summaries[0].n if result.summaries else 0
        return Outcome(wall, server.stats.rate_limited_by_rpm, server.stats.requests, scored)


def report(scenario: Scenario, outcomes: list[Outcome]) -> bool:
    walls = [o.wall for o in outcomes]
    best, median = min(walls), statistics.median(walls)
    self_429s = max(o.self_429s for o in outcomes)
    floor = scenario.floor
    print(
        f"{scenario.name}: burst {scenario.burst or 'default (smooth)'}, server period"
        f" {scenario.period:g} s; floor {floor:.2f} s"
    )
    for number, o in enumerate(outcomes, 1):
        print(
            f"  run {number}: {o.wall:.2f} s ({o.wall / floor:.2f} x floor), {o.requests}"
            f" requests, self-provoked 429s {o.self_429s}, scored {o.scored}/{SAMPLES}"
        )
    print(f"  wall best {best:.2f} s ({best / floor:.2f} x floor), median {median:.2f} s")
    complete = all(o.scored == SAMPLES for o in outcomes)
    if not scenario.checked:
        print("  (shown, not checked)")
        return True
    wall_ok = best <= MAX_WALL_RATIO * floor or scenario.period < 60
    passed = wall_ok and self_429s == 0 and complete
    bound = f"wall <= {MAX_WALL_RATIO:g} x floor, " if scenario.period >= 60 else ""
    print(
        f"  bound: {bound}0 self-provoked 429s, every sample scored -> {'PASS' if passed else 'FAIL'}"
    )
    return passed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--scenarios", nargs="+", default=list(SCENARIOS), choices=SCENARIOS)
    args = parser.parse_args()
    _machine.print_machine("start")
    print(
        f"{SAMPLES} samples, 1 judge call each, rpm {RPM}, latency {LATENCY:g} s, 5% HTTP 500,"
        f" concurrency {CONCURRENCY}"
    )
    with tempfile.TemporaryDirectory(prefix="ragjudge-rate-") as tmp:
        asyncio.run(run_once(SCENARIOS["minute"], Path(tmp), seed=99))  # warm-up
    passed = True
    for name in args.scenarios:
        scenario = SCENARIOS[name]
        outcomes = []
        for repetition in range(args.repeat):
            with tempfile.TemporaryDirectory(prefix="ragjudge-rate-") as tmp:
                outcomes.append(asyncio.run(run_once(scenario, Path(tmp), seed=repetition)))
        passed = report(scenario, outcomes) and passed
    _machine.print_machine("end")
    return 0 if passed else 1


if __name__ == "__main__":
    raise SystemExit(main())

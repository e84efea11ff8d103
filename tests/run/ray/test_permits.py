"""One judge budget for the whole cluster: the permit keeper holds the concurrency cap
and the RPM limit across processes, gives back the permit of a holder that died, and
several workers against a rate-limited server stay under its limit."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from ray_cluster import local_cluster, ray_or_skip

import ragjudge as rj
from ragjudge.models import RateLimits
from ragjudge.models.scripted import ReplyScript
from ragjudge.testing.server import FaultPlan, OpenAITestServer
from served import running

ray = ray_or_skip()
from ragjudge.run.ray._permits import PermitKeeper, RemotePermits  # noqa: E402


@pytest.fixture(scope="module")
def cluster() -> Iterator[str]:
    yield from local_cluster()


def keeper(limits: RateLimits, lease: float = 60.0) -> Any:
    return ray.remote(num_cpus=0, max_concurrency=1000)(PermitKeeper).remote(limits, lease)


async def test_the_concurrency_cap_holds_across_holders(cluster: str) -> None:
    shared = keeper(RateLimits(max_concurrency=2))
    holders = [RemotePermits(shared) for _ in range(6)]  # as if six workers
    inside, most = 0, 0

    async def attempt(permits: RemotePermits) -> None:
        nonlocal inside, most
        async with permits.slot(10):
            inside += 1
            most = max(most, inside)
            await asyncio.sleep(0.05)
            inside -= 1

    await asyncio.gather(*(attempt(holders[i % 6]) for i in range(18)))
    stats = holders[0].stats()
    assert most == 2 and stats.granted == 18 and stats.max_in_flight == 2


async def test_the_rate_limit_paces_every_holder_together(cluster: str) -> None:
    shared = keeper(RateLimits(rpm=600, window=60.0, burst=5, headroom=1.0))
    holders = [RemotePermits(shared) for _ in range(4)]
    starts: list[float] = []

    async def attempt(permits: RemotePermits) -> None:
        async with permits.slot():
            starts.append(time.monotonic())

    began = time.monotonic()
    await asyncio.gather(*(attempt(holders[i % 4]) for i in range(25)))
    # 5 at once, then 10 a second: the 25th starts about 2 s in, not at once
    assert max(starts) - began >= 1.8


async def test_a_permit_whose_holder_died_comes_back_after_its_lease(cluster: str) -> None:
    shared = keeper(RateLimits(max_concurrency=1), lease=0.5)
    await shared.acquire.remote(0)  # never released: its holder "died"
    began = time.monotonic()
    async with RemotePermits(shared).slot():
        waited = time.monotonic() - began
    assert 0.3 <= waited < 5.0


async def test_a_rate_limit_answer_pauses_every_holder(cluster: str) -> None:
    shared = keeper(RateLimits(rpm=600, tolerated_429_share=0.0))
    permits = RemotePermits(shared)
    async with permits.slot() as slot:
        pass
    permits.on_rate_limit(slot, 1.5)
    began = time.monotonic()
    async with RemotePermits(shared).slot():  # another worker
        waited = time.monotonic() - began
    assert waited >= 1.0
    assert permits.stats().pauses == 1


ROWS = [
    {"request_id": f"q{i:03d}", "request": f"question {i}", "response": f"answer {i}",
     "expected_response": f"reference {i}"}
    for i in range(80)
]  # fmt: skip


@pytest.fixture
def limited_server() -> Iterator[OpenAITestServer]:
    """600 RPM enforced per second: 10 requests in any second."""
    yield from running(
        OpenAITestServer(
            replies=ReplyScript(default="Feedback: fine. [RESULT] 4"),
            faults=FaultPlan(latency=(0.05, 0.1), rpm_limit=600, limit_period=1.0),
        )
    )


def test_four_workers_stay_under_the_servers_limit_together(
    cluster: str, tmp_path: Path, limited_server: OpenAITestServer
) -> None:
    judge = {
        "model": "openai/judge-x",
        "base_url": limited_server.base_url,
        # half the server's limit: a request the keeper let out that reaches the server
        # late, bunched with the next second's on a loaded machine, still fits
        "rpm": 300,
        "burst": 5,
        "preflight": False,
    }
    began = time.monotonic()
    result = rj.evaluate(
        ROWS,
        metrics=[{"metric": "answer_accuracy", "contexts": "none"}],
        judge=judge,
        store=tmp_path / "runs.db",
        executor="ray",
        ray={"workers": 4, "batch_size": 5},
        progress=False,
    )
    elapsed = time.monotonic() - began
    stats = limited_server.stats
    refused = stats.rate_limited_by_rpm
    assert result.status == "completed"
    assert result.summary().set_index("metric").loc["answer_accuracy", "n"] == 80  # none lost
    # four workers pacing on their own would open with 4 × 5 = 20 requests in one
    # second against the server's 10 (arithmetic, not run here): 10 refused at least
    assert refused <= 4
    assert elapsed >= 12.0  # 5 at once, then 5 a second for the other 75

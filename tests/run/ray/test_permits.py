"""One judge budget for the whole cluster: the permit keeper holds the concurrency cap
and the RPM limit across processes, gives back the permit of a holder that died, and
several workers against a rate-limited server stay under its limit. The times at which
permits start are read from the permits themselves (the keeper's schedule), not from a
stopwatch."""

from __future__ import annotations

import asyncio
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
from virtual_time import most_in_any_window

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
    for holder in holders:  # each sends the use it has gathered, then reads
        holder.stats()
    stats = holders[0].stats()
    assert most == 2 and stats.granted == 18 and stats.max_in_flight == 2


async def test_the_rate_limit_paces_every_holder_together(cluster: str) -> None:
    shared = keeper(RateLimits(rpm=600, window=60.0, burst=5, headroom=1.0))
    holders = [RemotePermits(shared) for _ in range(4)]
    starts: list[float] = []

    async def attempt(permits: RemotePermits) -> None:
        async with permits.slot() as slot:
            starts.append(slot.started)  # when the keeper let it start, on its clock

    await asyncio.gather(*(attempt(holders[i % 4]) for i in range(25)))
    starts.sort()
    # one budget for the four: 5 at once, then at most 5 in any half second, so the
    # 25th starts at least 2 s after the first
    assert most_in_any_window(starts, 0.5) == 5
    assert starts[-1] - starts[0] >= 2.0


async def test_a_permit_whose_holder_died_comes_back_after_its_lease(cluster: str) -> None:
    shared = keeper(RateLimits(max_concurrency=1), lease=0.5)
    _, died_holding_since = await shared.acquire.remote(0)  # never released: it "died"
    async with asyncio.timeout(120):  # without the lease the place would never come back
        async with RemotePermits(shared).slot() as slot:
            pass
    # on the keeper's clock, the place came back once the lease ran out (a timer may
    # fire a clock tick early)
    assert slot.started - died_holding_since >= 0.5 - 1e-6


async def test_a_rate_limit_answer_pauses_every_holder(cluster: str) -> None:
    shared = keeper(RateLimits(rpm=600, tolerated_429_share=0.0))
    permits = RemotePermits(shared)
    async with permits.slot() as slot:
        pass
    permits.on_rate_limit(slot, 1.5)
    # the report is fire and forget, and an actor with async methods may run calls out of
    # order: the other worker asks once the keeper has taken the pause
    for _ in range(500):
        if permits.stats().pauses == 1:
            break
    async with RemotePermits(shared).slot() as other:  # another worker
        pass
    assert other.started - slot.started >= 1.5  # it started once the pause was over
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
    result = rj.evaluate(
        ROWS,
        metrics=[{"metric": "answer_accuracy", "contexts": "none"}],
        judge=judge,
        store=tmp_path / "runs.db",
        executor="ray",
        ray={"workers": 4, "batch_size": 5},
        progress=False,
    )
    stats = limited_server.stats
    refused = stats.rate_limited_by_rpm
    assert result.status == "completed"
    assert result.summary().set_index("metric").loc["answer_accuracy", "n"] == 80  # none lost
    # four workers pacing on their own would open with 4 × 5 = 20 requests in one
    # second against the server's 10 (arithmetic, not run here): 10 refused at least
    assert refused <= 4


async def test_a_pause_voids_the_starts_another_worker_holds(cluster: str) -> None:
    # evenly paced: each worker holds a few starts planned ahead of time
    shared = keeper(RateLimits(rpm=600, burst=1, tolerated_429_share=0.0))
    refused, other = RemotePermits(shared), RemotePermits(shared)
    async with other.slot():  # its pause watch is on
        pass
    async with refused.slot() as slot:
        pass
    other._waiting = 4  # as if four attempts waited: it takes a block of starts ahead
    await other._refill(0)
    other._waiting = 0
    assert len(other._ready) >= 2
    refused.on_rate_limit(slot, 1.5)
    for _ in range(500):  # the other worker hears of the pause through its watch
        if other._epoch == 1:
            break
        await asyncio.sleep(0.01)
    async with other.slot() as later:
        pass
    assert later.started - slot.started >= 1.5  # not a start planned before the pause


async def test_places_a_worker_no_longer_uses_go_to_another(cluster: str) -> None:
    shared = keeper(RateLimits(max_concurrency=4))
    first, second = RemotePermits(shared), RemotePermits(shared)

    async def busy(permits: RemotePermits, seconds: float) -> None:
        async with permits.slot():
            await asyncio.sleep(seconds)

    await asyncio.gather(*(busy(first, 0.05) for _ in range(4)))  # all four places
    async with asyncio.timeout(60):  # a safety net: the places never coming back hangs
        await asyncio.gather(*(busy(second, 0.05) for _ in range(4)))
    for permits in (first, second):
        permits.stats()
    stats = second.stats()
    assert stats.granted == 8 and stats.max_in_flight == 4

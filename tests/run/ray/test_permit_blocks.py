"""Permits in blocks, without Ray: several holders taking blocks from one limiter never
start more than the window allows nor hold more places than the cap, places given back
are handed out again, a pause voids the starts planned past it, and the places of a
holder that went silent come back after the lease. Time is a manual clock."""

from __future__ import annotations

from ragjudge.models import Limiter, RateLimits
from ragjudge.run.ray._blocks import BlockIssuer, Grant, Usage
from virtual_time import ManualClock, most_in_any_window


def issuer(limits: RateLimits, clock: ManualClock, lease: float = 30.0) -> BlockIssuer:
    return BlockIssuer(Limiter(limits, clock=clock), lease, clock=clock)


def take(blocks: BlockIssuer, holder: str, want: int) -> Grant:
    grant = blocks.issue(holder, want, 0)
    assert grant is not None, f"{holder} got no place"
    return grant


def release_all(blocks: BlockIssuer, holder: str, grant: Grant) -> None:
    blocks.report(holder, Usage(released=[permit for permit, _ in grant.permits]))


def test_blocks_of_several_holders_never_start_more_than_the_window_allows() -> None:
    clock = ManualClock()
    blocks = issuer(RateLimits(max_concurrency=1000, rpm=120, window=60.0, headroom=1.0), clock)
    starts: list[float] = []
    for step in range(400):  # four holders asking for 16 each, every 0.5 s, for 200 s
        holder = f"w{step % 4}"
        grant = take(blocks, holder, 16)
        starts += [start for _, start in grant.permits]
        release_all(blocks, holder, grant)
        clock.advance(0.5)
    starts.sort()
    # the whole window's budget may go out at once, never more in any window
    assert most_in_any_window(starts, 60.0) == 120
    assert len(starts) >= 400  # and every holder kept getting permits


def test_smooth_pacing_spreads_a_block_over_the_window() -> None:
    clock = ManualClock()
    blocks = issuer(RateLimits(max_concurrency=1000, rpm=600, burst=1, headroom=1.0), clock)
    grant = take(blocks, "w0", 64)
    gaps = [b - a for (_, a), (_, b) in zip(grant.permits, grant.permits[1:], strict=False)]
    # 600 RPM evenly: one start every 0.1 s, and a block reaches only ~0.25 s ahead
    assert all(abs(gap - 0.1) < 1e-9 for gap in gaps)
    assert 2 <= len(grant.permits) <= 4


def test_blocks_hold_the_concurrency_cap_across_holders() -> None:
    clock = ManualClock()
    blocks = issuer(RateLimits(max_concurrency=10), clock)
    first = take(blocks, "w0", 8)
    second = take(blocks, "w1", 8)
    assert len(first.permits) == 8 and len(second.permits) == 2
    assert blocks.issue("w2", 8, 0) is None  # every place is out


def test_places_given_back_are_handed_out_again() -> None:
    clock = ManualClock()
    blocks = issuer(RateLimits(max_concurrency=4), clock)
    grant = take(blocks, "w0", 4)
    assert blocks.issue("w1", 1, 0) is None
    used, unused = grant.permits[0][0], [permit for permit, _ in grant.permits[1:]]
    freed = blocks.report("w0", Usage(released=[used], unused=unused))
    assert freed == 4 and blocks.held("w0") == 0
    assert len(take(blocks, "w1", 4).permits) == 4
    # a permit reported twice frees its place once
    assert blocks.report("w0", Usage(released=[used])) == 0


def test_a_silent_holders_places_come_back_after_the_lease() -> None:
    clock = ManualClock()
    blocks = issuer(RateLimits(max_concurrency=3), clock, lease=30.0)
    take(blocks, "dead", 3)
    clock.advance(10.0)
    blocks.touch("alive")
    assert blocks.reclaim_silent() == 0 and blocks.issue("alive", 1, 0) is None
    clock.advance(25.0)  # 35 s without a word from "dead"
    assert blocks.reclaim_silent() == 3
    assert len(take(blocks, "alive", 3).permits) == 3


def test_a_pause_moves_the_next_blocks_past_it_and_ends_the_epoch() -> None:
    clock = ManualClock()
    limits = RateLimits(max_concurrency=100, rpm=600, tolerated_429_share=0.0)
    blocks = issuer(limits, clock)
    before = take(blocks, "w0", 4)
    release_all(blocks, "w0", before)
    slot = blocks.limiter.reserve(0)
    blocks.limiter.on_rate_limit(slot, 2.0)  # a 429 asking for 2 s
    after = take(blocks, "w1", 4)
    assert after.epoch == before.epoch + 1
    assert min(start for _, start in after.permits) >= clock() + 2.0


def test_tokens_settled_free_the_token_budget() -> None:
    clock = ManualClock()
    blocks = issuer(RateLimits(max_concurrency=100, rpm=10_000, tpm=1_000), clock)
    grant = blocks.issue("w0", 2, 500)  # reserves the whole token budget
    assert grant is not None and all(start == 0.0 for _, start in grant.permits)
    (first, _), (second, _) = grant.permits
    blocks.report("w0", Usage(settled=[(first, 10), (second, 10)], released=[first, second]))
    again = blocks.issue("w0", 1, 500)
    assert again is not None and again.permits[0][1] == 0.0  # starts now, not a window later

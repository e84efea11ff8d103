"""The attempts of one call: a failed request's error reaches the caller once, and a
request outlives its cancelled caller."""

from __future__ import annotations

import asyncio
import gc
from typing import Any

import pytest

from ragjudge.models._limits import Limiter
from ragjudge.models._retries import attempt_until_settled
from ragjudge.models._settings import ModelSettings
from ragjudge.models._types import ModelError

SETTINGS = ModelSettings(max_retries=0, timeout=5.0)


def _no_retry(error: ModelError, attempt: int) -> float | None:
    return None


async def _attempts(call: Any, keep: Any = None) -> Any:
    return await attempt_until_settled(
        call,
        10,
        limiter=Limiter(),
        settings=SETTINGS,
        retry_delay=_no_retry,
        spec="test/model",
        keep=keep,
    )


async def test_a_failed_request_is_an_outcome_and_never_reported_unretrieved() -> None:
    reports: list[dict[str, Any]] = []
    asyncio.get_running_loop().set_exception_handler(lambda _loop, ctx: reports.append(ctx))

    async def refused() -> str:
        raise ModelError("refused", kind="client")

    outcome = await _attempts(refused)
    assert outcome.result is None and outcome.error.kind == "client"
    del outcome  # its error's traceback holds the request
    await asyncio.sleep(0)
    gc.collect()
    assert reports == []


async def test_a_request_outlives_its_cancelled_caller_and_is_kept() -> None:
    gate = asyncio.Event()
    kept: list[asyncio.Future[str]] = []

    async def slow() -> str:
        await gate.wait()
        return "late reply"

    caller = asyncio.ensure_future(_attempts(slow, keep=kept.append))
    await asyncio.sleep(0.01)
    caller.cancel()
    with pytest.raises(asyncio.CancelledError):
        await caller
    gate.set()
    assert len(kept) == 1
    assert await kept[0] == "late reply"

"""Batched judges of both batch APIs against the test server, for the batch tests."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from model_helpers import MemoryRecorder, result_score, user

from ragjudge.models import JudgeModel, ModelSettings, OpenAIProvider
from ragjudge.models._anthropic import AnthropicProvider
from ragjudge.models._batch_anthropic import AnthropicBatches
from ragjudge.models._batch_openai import OpenAIBatches
from ragjudge.models._batching import (
    BatchingProvider,
    BatchLedger,
    BatchService,
    BatchSettings,
    MemoryLedger,
)
from ragjudge.models.scripted import ReplyScript
from ragjudge.testing.server import OpenAITestServer

FAST = ModelSettings(
    max_retries=2, backoff_base=0.01, backoff_max=0.02, timeout=60.0, in_flight_grace=0.0
)
"""As a batched judge runs: a batch left behind is not waited for (a resumed run
finds it)."""
QUICK = BatchSettings(batch_size=100, batch_wait=0.3, poll_interval=0.02, poll_max=0.05)
"""Calls started together go in one batch, however busy the machine."""
PROMPTS = [f"Grade answer {i}" for i in range(6)]
FLAVOURS = ["openai", "anthropic"]


def replies() -> ReplyScript:
    return ReplyScript(
        rules=[(r"answer [024]", "Fine. [RESULT] 5"), (r"answer 5", "no verdict")],
        default="Weak. [RESULT] 2",
    )


def batched(
    server: OpenAITestServer, flavour: str, ledger: BatchLedger | None = None
) -> tuple[JudgeModel, BatchingProvider, MemoryRecorder]:
    """A judge whose calls go through ``flavour``'s batch API on ``server``."""
    inner: OpenAIProvider | AnthropicProvider
    service: BatchService
    if flavour == "anthropic":
        inner = AnthropicProvider("claude-test", base_url=server.root_url, api_key="test-key")
        service = AnthropicBatches(inner, find_pause=0.02)
    else:
        inner = OpenAIProvider("test-model", base_url=server.base_url, timeout=30.0)
        service = OpenAIBatches(inner)
    provider = BatchingProvider(inner, service, ledger=ledger or MemoryLedger(), settings=QUICK)
    recorder = MemoryRecorder()
    return JudgeModel(provider, settings=FAST, recorder=recorder), provider, recorder


async def grade_all(model: JudgeModel, prompts: Sequence[str]) -> list[int | None]:
    """Each prompt's grade (None where the reply had none)."""
    try:
        parsed = await asyncio.gather(
            *(model.generate_parsed(user(p), result_score) for p in prompts)
        )
    finally:
        await model.aclose()
    return [p.value[0] if p.value is not None else None for p in parsed]


def created(server: OpenAITestServer, flavour: str) -> int:
    """Batches the server created for ``flavour``."""
    return server.anthropic.created if flavour == "anthropic" else server.batches.created


def answered(server: OpenAITestServer, flavour: str) -> int:
    """Requests the server answered (billed) in ``flavour``'s batches."""
    desk = server.anthropic if flavour == "anthropic" else server.batches
    return desk.lines_answered

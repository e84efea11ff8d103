"""Judge calls through Anthropic's Message Batches (``models/_batch_anthropic.py``)
against the test server: replies, partial failures, resume from the store."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest
from batch_helpers import PROMPTS, batched, grade_all, replies
from model_helpers import user

from ragjudge.models import JudgeCallError, JudgeModel
from ragjudge.models._anthropic import AnthropicProvider
from ragjudge.models._types import GenerateConfig
from ragjudge.store._store import Store
from ragjudge.testing.server import OpenAITestServer
from served import running
from virtual_time import ManualClock


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


@pytest.fixture
def server(clock: ManualClock) -> Iterator[OpenAITestServer]:
    yield from running(OpenAITestServer(replies=replies(), clock=clock))


def test_batched_calls_get_the_scripted_replies_with_their_tokens(
    server: OpenAITestServer,
) -> None:
    model, provider, recorder = batched(server, "anthropic")

    assert asyncio.run(grade_all(model, PROMPTS[:4])) == [5, 2, 5, 2]
    assert provider.submitted == 1 and server.anthropic.created == 1
    assert server.anthropic.lines_answered == 4
    assert all(r.usage.input_tokens > 0 and r.usage.output_tokens > 0 for r in recorder.records)


def test_the_system_message_travels_as_the_system_parameter() -> None:
    provider = AnthropicProvider("claude-test", api_key="k")
    messages = [{"role": "system", "content": "Be strict."}, *user("Grade it")]
    params = provider.message_params(messages, GenerateConfig(temperature=0.0, max_tokens=9))
    assert params == {
        "model": "claude-test",
        "max_tokens": 9,
        "system": "Be strict.",
        "messages": user("Grade it"),
        "temperature": 0.0,
    }


def test_an_errored_request_is_the_calls_error_and_is_not_sent_again(
    server: OpenAITestServer,
) -> None:
    server.anthropic.fail_request = lambda params: (
        "prompt is too long" if "answer 1" in str(params["messages"]) else None
    )
    model, provider, recorder = batched(server, "anthropic")

    async def grade() -> list[object]:
        try:
            return await asyncio.gather(
                *(model.generate(user(p)) for p in PROMPTS[:2]), return_exceptions=True
            )
        finally:
            await model.aclose()

    first, second = asyncio.run(grade())
    assert not isinstance(first, BaseException)
    assert isinstance(second, JudgeCallError) and "prompt is too long" in str(second)
    assert provider.submitted == 1 and server.anthropic.created == 1
    errors = [r.error for r in recorder.records if r.error]
    assert len(errors) == 1 and "prompt is too long" in errors[0]


def test_an_expired_request_is_asked_again_in_a_new_batch(server: OpenAITestServer) -> None:
    expired: list[str] = []

    def expire_once(params: dict[str, object]) -> bool:
        text = str(params["messages"])
        if "answer 1" in text and not expired:
            expired.append(text)
            return True
        return False

    server.anthropic.expire_request = expire_once
    model, provider, _ = batched(server, "anthropic")

    assert asyncio.run(grade_all(model, PROMPTS[:2])) == [5, 2]
    assert provider.submitted == 2 and server.anthropic.created == 2
    assert server.anthropic.requests_created == 3  # the expired call is sent once more


def test_a_resumed_run_waits_for_the_batch_in_the_store(
    server: OpenAITestServer, clock: ManualClock, tmp_path: Path
) -> None:
    server.anthropic.batch_seconds = 3600.0
    store = Store(tmp_path / "runs.db")
    first, _, _ = batched(server, "anthropic", store.batch_ledger("run-1"))
    stop_once_created(first, server)
    store.close()
    assert server.anthropic.created == 1 and server.anthropic.lines_answered == 0

    clock.now = 3600.0
    with Store(tmp_path / "runs.db") as reopened:
        second, provider, records = batched(server, "anthropic", reopened.batch_ledger("run-1"))
        assert asyncio.run(grade_all(second, PROMPTS[:3])) == [5, 2, 5]
        assert list(reopened.run_batches("run-1").values()) == [3]
    assert provider.submitted == 0 and server.anthropic.created == 1
    assert server.anthropic.lines_answered == len(records.records) == 3


def stop_once_created(model: JudgeModel, server: OpenAITestServer) -> None:
    """Grade three prompts and stop the process's work once their batch exists."""

    async def stop() -> None:
        task = asyncio.create_task(grade_all(model, PROMPTS[:3]))
        while server.anthropic.created < 1:
            await asyncio.sleep(0.01)
        await asyncio.sleep(0.1)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(stop())


def test_a_direct_message_is_answered_with_its_tokens(server: OpenAITestServer) -> None:
    provider = AnthropicProvider("claude-test", base_url=server.root_url, api_key="test-key")

    async def ask() -> str:
        try:
            reply = await provider.complete(user("Grade answer 2"), GenerateConfig(max_tokens=8))
        finally:
            await provider.aclose()
        assert reply.usage.input_tokens > 0
        return reply.text

    assert asyncio.run(ask()) == "Fine. [RESULT] 5"
    assert server.anthropic.messages == 1


def test_a_request_without_a_key_names_the_variable() -> None:
    provider = AnthropicProvider("claude-test", api_key=None, base_url="http://127.0.0.1:9")
    provider._api_key = None
    with pytest.raises(Exception, match="ANTHROPIC_API_KEY"):
        asyncio.run(provider.complete(user("hi"), GenerateConfig()))

"""The local OpenAI-compatible test server, exercised over real HTTP. Rate limits are
tested on a clock the test moves, and waits for the server's side wait for what it
counts — never for an amount of time."""

from __future__ import annotations

import asyncio
import json
import math
import signal
import subprocess
import sys
import threading
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager
from typing import Any

import httpx2
import pytest
from pydantic import ValidationError

from ragjudge.models.scripted import ReplyScript, hash_embedding
from ragjudge.testing import FaultPlan, OpenAITestServer
from virtual_time import ManualClock

CHAT = "/chat/completions"


def chat_body(content: str = "Hello", **extra: Any) -> dict[str, Any]:
    return {"model": "judge-x", "messages": [{"role": "user", "content": content}], **extra}


@pytest.fixture
def server() -> Iterator[OpenAITestServer]:
    with OpenAITestServer(
        replies=ReplyScript(rules=[(r"capital of France", "Paris")], sequence=["one", "two"])
    ) as running:
        yield running


@pytest.fixture
async def client(server: OpenAITestServer) -> Any:
    async with httpx2.AsyncClient(base_url=server.base_url, timeout=30.0) as http:
        yield http


@asynccontextmanager
async def at_a_standstill(
    plan: FaultPlan,
) -> AsyncIterator[tuple[OpenAITestServer, httpx2.AsyncClient, ManualClock]]:
    """A server whose rate windows count in a clock that moves only when the test moves
    it, and a client of it: a limit's answers do not depend on how fast requests come."""
    clock = ManualClock()
    replies = ReplyScript(sequence=["one", "two"])
    async with (
        OpenAITestServer(replies=replies, faults=plan, clock=clock) as server,
        httpx2.AsyncClient(base_url=server.base_url, timeout=30.0) as client,
    ):
        yield server, client, clock


async def arrived(server: OpenAITestServer, happened: Callable[[], bool]) -> None:
    """Wait until the server has seen what ``happened`` checks (it counts a request when
    its thread gets to it); the limit only keeps a broken server from hanging the test."""
    async with asyncio.timeout(60):
        while not happened():
            await asyncio.sleep(0.01)


async def test_chat_completion_has_the_openai_shape(
    server: OpenAITestServer, client: httpx2.AsyncClient
) -> None:
    response = await client.post(CHAT, json=chat_body("What is the capital of France?"))

    assert response.status_code == 200
    body = response.json()
    assert body["id"].startswith("chatcmpl-")
    assert body["object"] == "chat.completion"
    assert isinstance(body["created"], int)
    assert body["model"] == "judge-x"
    assert body["choices"][0]["message"] == {"role": "assistant", "content": "Paris"}
    assert body["choices"][0]["finish_reason"] == "stop"
    usage = body["usage"]
    assert usage["prompt_tokens"] == math.ceil(len("What is the capital of France?") / 4)
    assert usage["completion_tokens"] == 2
    assert usage["total_tokens"] == usage["prompt_tokens"] + usage["completion_tokens"]
    assert server.stats.completions == 1
    assert server.stats.status_counts == {200: 1}


async def test_n_choices_draw_successive_replies(client: httpx2.AsyncClient) -> None:
    response = await client.post(CHAT, json=chat_body("anything", n=3))

    contents = [choice["message"]["content"] for choice in response.json()["choices"]]
    assert contents == ["one", "two", "OK"]
    assert [choice["index"] for choice in response.json()["choices"]] == [0, 1, 2]


async def test_requests_log_keeps_the_bodies(
    server: OpenAITestServer, client: httpx2.AsyncClient
) -> None:
    await client.post(CHAT, json=chat_body("質問です", temperature=0))
    await client.post("/embeddings", json={"model": "e", "input": "text"})

    assert server.requests_log[0]["messages"][0]["content"] == "質問です"
    assert server.requests_log[0]["temperature"] == 0
    assert server.requests_log[1]["input"] == "text"
    assert server.stats.requests == 2


async def test_embeddings_are_deterministic_unit_vectors(
    server: OpenAITestServer, client: httpx2.AsyncClient
) -> None:
    texts = ["東京は日本の首都です。", "Paris is in France."]
    first = (await client.post("/embeddings", json={"model": "e", "input": texts})).json()
    again = (await client.post("/embeddings", json={"model": "e", "input": texts[0]})).json()

    vectors = [item["embedding"] for item in first["data"]]
    assert [item["index"] for item in first["data"]] == [0, 1]
    assert all(len(vector) == 16 for vector in vectors)
    assert all(math.isclose(math.fsum(v * v for v in vector), 1.0) for vector in vectors)
    assert vectors[0] == again["data"][0]["embedding"] == hash_embedding(texts[0], 16)
    assert vectors[0] != vectors[1]
    assert first["usage"]["prompt_tokens"] == first["usage"]["total_tokens"] > 0
    assert server.stats.embeddings == 2


async def test_embeddings_honour_dimensions(client: httpx2.AsyncClient) -> None:
    body = (await client.post("/embeddings", json={"input": "x", "dimensions": 5})).json()

    assert len(body["data"][0]["embedding"]) == 5


async def test_models_lists_the_test_model(client: httpx2.AsyncClient) -> None:
    body = (await client.get("/models")).json()

    assert body["object"] == "list"
    assert body["data"][0]["id"] == "test-model"


@pytest.mark.parametrize(
    "payload",
    [b"not json", b"[1, 2]", b'{"messages": []}', b'{"messages": [{"role": "user"}], "n": 0}'],
)
async def test_invalid_chat_bodies_get_400(
    server: OpenAITestServer, client: httpx2.AsyncClient, payload: bytes
) -> None:
    response = await client.post(CHAT, content=payload)

    assert response.status_code == 400
    assert "message" in response.json()["error"]
    assert server.stats.requests == 0


async def test_unknown_route_gets_404(client: httpx2.AsyncClient) -> None:
    assert (await client.post("/completions", json={})).status_code == 404


async def test_injected_429_carries_retry_after(
    server: OpenAITestServer, client: httpx2.AsyncClient
) -> None:
    server.fail_next("429", retry_after=2)
    server.fail_next("429", retry_after=0.25)

    first = await client.post(CHAT, json=chat_body())
    second = await client.post(CHAT, json=chat_body())
    third = await client.post(CHAT, json=chat_body())

    assert first.status_code == 429
    assert first.headers["retry-after"] == "2"
    assert first.headers["retry-after-ms"] == "2000"
    assert first.json()["error"]["type"] == "rate_limit_exceeded"
    assert second.headers["retry-after"] == "0.25"
    assert third.status_code == 200
    assert server.stats.status_counts == {429: 2, 200: 1}


async def test_injected_500(server: OpenAITestServer, client: httpx2.AsyncClient) -> None:
    server.fail_next("500", count=2)

    statuses = [(await client.post(CHAT, json=chat_body())).status_code for _ in range(3)]

    assert statuses == [500, 500, 200]
    assert "retry-after" not in (await _fail_once(server, client, "500")).headers


async def _fail_once(
    server: OpenAITestServer, client: httpx2.AsyncClient, kind: str
) -> httpx2.Response:
    server.fail_next(kind)
    return await client.post(CHAT, json=chat_body())


async def test_timeout_hangs_past_the_client_timeout(server: OpenAITestServer) -> None:
    server.set_faults(FaultPlan(hang_seconds=3600))  # released when the server stops
    server.fail_next("timeout")

    waiting_for_the_reply = httpx2.Timeout(30.0, read=0.2)
    async with httpx2.AsyncClient(base_url=server.base_url, timeout=waiting_for_the_reply) as http:
        with pytest.raises(httpx2.ReadTimeout):
            await http.post(CHAT, json=chat_body())

    await arrived(server, lambda: server.stats.timeouts == 1)


async def test_timeout_ends_by_dropping_the_connection(
    server: OpenAITestServer, client: httpx2.AsyncClient
) -> None:
    server.set_faults(FaultPlan(hang_seconds=0.1))
    server.fail_next("timeout")

    with pytest.raises(httpx2.RemoteProtocolError):
        await client.post(CHAT, json=chat_body())

    assert (await client.post(CHAT, json=chat_body())).status_code == 200
    assert 500 not in server.stats.status_counts


async def test_truncated_body_is_cut_mid_json(
    server: OpenAITestServer, client: httpx2.AsyncClient
) -> None:
    response = await _fail_once(server, client, "truncated")

    assert response.status_code == 200
    assert response.text.startswith('{"id": "chatcmpl-')
    with pytest.raises(json.JSONDecodeError):
        json.loads(response.text)
    assert server.stats.truncated == 1
    assert server.stats.completions == 0


async def test_malformed_body_is_not_json(
    server: OpenAITestServer, client: httpx2.AsyncClient
) -> None:
    response = await _fail_once(server, client, "malformed")

    assert response.status_code == 200
    with pytest.raises(json.JSONDecodeError):
        response.json()
    assert server.stats.malformed == 1


def test_fail_next_rejects_unknown_kinds(server: OpenAITestServer) -> None:
    with pytest.raises(ValueError, match="kind"):
        server.fail_next("404")


async def test_rpm_limit_refuses_and_does_not_count_refusals() -> None:
    async with at_a_standstill(FaultPlan(rpm_limit=3)) as (server, client, _):
        statuses = [(await client.post(CHAT, json=chat_body())).status_code for _ in range(3)]
        refused = await client.post(CHAT, json=chat_body())
        refused_again = await client.post("/embeddings", json={"input": "x"})

    assert statuses == [200, 200, 200]
    assert refused.status_code == refused_again.status_code == 429
    assert refused.headers["retry-after"] == "60"  # the whole window: no time has passed
    assert server.stats.rate_limited_by_rpm == 2
    assert server.stats.completions == 3
    assert server.stats.requests == 5


async def test_per_second_mode_enforces_the_limit_share_of_every_second() -> None:
    plan = FaultPlan(rpm_limit=240, limit_period=1.0)  # 4 in any second
    async with at_a_standstill(plan) as (server, client, clock):
        statuses = [(await client.post(CHAT, json=chat_body())).status_code for _ in range(5)]
        clock.advance(0.25)
        refused = await client.post(CHAT, json=chat_body())
        clock.advance(0.75)  # the first four leave the window
        after_a_second = await client.post(CHAT, json=chat_body())

    assert statuses == [200, 200, 200, 200, 429]
    assert refused.status_code == 429
    assert refused.headers["retry-after"] == "0.75"  # the exact wait, in fractions
    assert after_a_second.status_code == 200
    assert server.stats.rate_limited_by_rpm == 2


def test_per_minute_limits_are_the_default_and_the_period_is_checked() -> None:
    assert FaultPlan(rpm_limit=240).limit_period == 60.0
    for bad in (0.0, -1.0, 61.0):
        with pytest.raises(ValidationError):
            FaultPlan(rpm_limit=240, limit_period=bad)


async def test_tpm_limit_counts_estimated_tokens() -> None:
    prompt = "x" * 40  # 10 tokens; the reply "one" adds 1
    async with at_a_standstill(FaultPlan(tpm_limit=20)) as (server, client, _):
        first = await client.post(CHAT, json=chat_body(prompt))
        second = await client.post(CHAT, json=chat_body(prompt))
        too_large = await client.post(CHAT, json=chat_body("x" * 100))

    assert first.status_code == 200
    assert second.status_code == 429
    assert second.headers["retry-after"] == "60"
    assert too_large.status_code == 400
    assert server.stats.rate_limited_by_tpm == 1


async def test_429_bursts_start_every_nth_request(
    server: OpenAITestServer, client: httpx2.AsyncClient
) -> None:
    server.set_faults(FaultPlan(burst_429_every=3, burst_429_length=2))

    responses = [await client.post(CHAT, json=chat_body()) for _ in range(7)]

    assert [r.status_code for r in responses] == [200, 200, 429, 429, 200, 429, 429]
    assert responses[2].headers["retry-after"] == "1"
    assert server.stats.burst_429s == 4


async def _statuses_with_seed(seed: int, count: int) -> list[int]:
    plan = FaultPlan(error_500_rate=0.5, seed=seed)
    async with (
        OpenAITestServer(faults=plan) as running,
        httpx2.AsyncClient(base_url=running.base_url) as http,
    ):
        return [(await http.post(CHAT, json=chat_body())).status_code for _ in range(count)]


async def test_random_faults_repeat_with_the_same_seed() -> None:
    first = await _statuses_with_seed(7, 20)
    second = await _statuses_with_seed(7, 20)

    assert first == second
    assert set(first) == {200, 500}


async def test_set_faults_changes_behaviour_at_run_time(
    server: OpenAITestServer, client: httpx2.AsyncClient
) -> None:
    server.set_faults(FaultPlan(error_500_rate=1.0))
    broken = await client.post(CHAT, json=chat_body())
    server.set_faults(FaultPlan())
    healthy = await client.post(CHAT, json=chat_body())

    assert (broken.status_code, healthy.status_code) == (500, 200)


async def test_sustains_fifty_concurrent_slow_requests(
    server: OpenAITestServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Each request is held where its latency would be awaited, until all fifty are in.
    release = threading.Event()

    async def held() -> None:
        while not release.is_set():
            await asyncio.sleep(0.01)

    monkeypatch.setattr(server._injector, "sleep_latency", held)
    async with httpx2.AsyncClient(base_url=server.base_url, timeout=60.0) as http:
        requests = [
            asyncio.ensure_future(http.post(CHAT, json=chat_body(f"q{i}"))) for i in range(50)
        ]
        await arrived(server, lambda: server.stats.in_flight == 50)
        release.set()
        responses = await asyncio.gather(*requests)

    assert all(response.status_code == 200 for response in responses)
    assert server.stats.max_in_flight == 50
    assert server.stats.in_flight == 0


@pytest.mark.parametrize(
    "plan",
    [
        {"latency": (1.0, 0.5)},
        {"error_500_rate": 0.6, "malformed_rate": 0.6},
        {"rpm_limit": 0},
        {"unknown": 1},
    ],
)
def test_fault_plan_rejects_inconsistent_settings(plan: dict[str, Any]) -> None:
    with pytest.raises(ValidationError):
        FaultPlan(**plan)


def test_base_url_needs_a_running_server() -> None:
    idle = OpenAITestServer()
    with pytest.raises(RuntimeError):
        _ = idle.base_url
    with idle:
        assert idle.base_url.startswith("http://127.0.0.1:")
        assert idle.base_url.endswith("/v1")
    with pytest.raises(RuntimeError):
        _ = idle.base_url


def test_command_line_serves_until_interrupted() -> None:
    command = [sys.executable, "-W", "error::RuntimeWarning", "-m", "ragjudge.testing.server"]
    process = subprocess.Popen(
        [*command, "--port", "0", "--reply", "pong", "--rpm", "600"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        banner = process.stdout.readline()
        base_url = banner.split(" at ")[1].split()[0]
        response = httpx2.post(f"{base_url}{CHAT}", json=chat_body(), timeout=5)
        assert response.json()["choices"][0]["message"]["content"] == "pong"
    finally:
        process.send_signal(signal.SIGINT)
        process.wait(timeout=10)
    assert process.returncode == 0

"""The OpenAI-compatible provider, alone and inside JudgeModel, over real HTTP against
the local test server: every fault the server injects ends in a good result after
retries or an explicit, recorded ModelError after a bounded number of attempts.

Only the tests of timeouts set a short one, against a server that never answers; the
others allow 30 s, so an answer that a busy machine delays is never taken for a
timeout."""

from __future__ import annotations

import asyncio
import email.utils
import socket
import threading
from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx2
import pytest
from model_helpers import MemoryRecorder, result_score, user

from ragjudge.models import (
    GenerateConfig,
    JudgeCallError,
    JudgeCallRecord,
    JudgeModel,
    ModelError,
    ModelSettings,
    OpenAIProvider,
    ResponseCache,
    get_model,
)
from ragjudge.models._lean_http import LeanClient
from ragjudge.models._openai import LOCAL_API_KEY, parse_retry_after
from ragjudge.models.scripted import ReplyScript
from ragjudge.testing.server import FaultPlan, OpenAITestServer, ServerStats
from served import PathRecorder, running

FAST = ModelSettings(max_retries=3, backoff_base=0.01, backoff_max=0.05, timeout=30.0)
NEVER = FaultPlan(timeout_rate=1.0, hang_seconds=3600)
"""Every request hangs until the server stops."""


def default_replies() -> ReplyScript:
    return ReplyScript(rules=[(r"capital of France", "Paris")], default="[RESULT] 4")


@pytest.fixture(scope="module")
def shared_server() -> Iterator[OpenAITestServer]:
    yield from running(OpenAITestServer(replies=default_replies()))


@pytest.fixture(scope="module")
def hanging_server() -> Iterator[OpenAITestServer]:
    """A server that answers no request (each hangs until it stops)."""
    yield from running(OpenAITestServer(faults=NEVER))


@pytest.fixture
def server(shared_server: OpenAITestServer) -> OpenAITestServer:
    """The module's server with fresh counters and replies (starting one per test is slow)."""
    shared_server.replies = default_replies()
    shared_server.stats = ServerStats()
    shared_server.requests_log.clear()
    return shared_server


def closed_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


def judge_for(server: OpenAITestServer, settings: ModelSettings = FAST) -> JudgeModel:
    return get_model(
        "openai/test-model",
        base_url=server.base_url,
        settings=settings,
        recorder=MemoryRecorder(),
    )


def records_of(judge: JudgeModel) -> list[JudgeCallRecord]:
    assert isinstance(judge.recorder, MemoryRecorder)
    return judge.recorder.records


# -- the provider alone ----------------------------------------------------------


async def test_completion_returns_text_usage_and_model(server: OpenAITestServer) -> None:
    provider = OpenAIProvider("test-model", base_url=server.base_url)
    generation = await provider.complete(user("What is the capital of France?"), GenerateConfig())
    assert generation.text == "Paris"
    assert generation.model == "test-model"
    assert generation.usage.input_tokens > 0
    assert generation.usage.output_tokens == 2  # "Paris" is 5 characters
    assert generation.latency > 0
    await provider.aclose()


async def test_only_set_config_fields_are_sent(server: OpenAITestServer) -> None:
    provider = OpenAIProvider("test-model", base_url=server.base_url)
    schema = {"type": "json_schema", "json_schema": {"name": "v", "schema": {"type": "object"}}}
    config = GenerateConfig(temperature=0.0, stop=("END",), response_format=schema, seed=7)
    await provider.complete(user("hi"), config)
    await provider.complete(user("hi"), GenerateConfig())
    detailed, plain = server.requests_log
    assert detailed["temperature"] == 0.0
    assert detailed["stop"] == ["END"]
    assert detailed["seed"] == 7
    assert detailed["response_format"] == schema
    assert "max_tokens" not in detailed and "top_p" not in detailed
    assert set(plain) == {"model", "messages"}
    await provider.aclose()


async def test_embeddings(server: OpenAITestServer) -> None:
    provider = OpenAIProvider("embed-model", base_url=server.base_url)
    result = await provider.embed(["東京は日本の首都です。", "Paris is in France."])
    assert len(result.vectors) == 2
    assert all(len(v) == 16 for v in result.vectors)
    assert result.vectors[0] != result.vectors[1]
    assert result.usage.input_tokens > 0
    await provider.aclose()


@pytest.mark.parametrize(
    ("fault", "kind"),
    [
        ("429", "rate_limit"),
        ("500", "server"),
        ("truncated", "bad_response"),
        ("malformed", "bad_response"),
    ],
)
async def test_faults_map_to_error_kinds(server: OpenAITestServer, fault: str, kind: str) -> None:
    provider = OpenAIProvider("test-model", base_url=server.base_url)
    server.fail_next(fault, retry_after=2.5 if fault == "429" else None)
    with pytest.raises(ModelError) as caught:
        await provider.complete(user("hi"), GenerateConfig())
    assert caught.value.kind == kind
    assert caught.value.retryable
    if fault == "429":
        assert caught.value.status == 429
        assert caught.value.retry_after == pytest.approx(2.5)
    await provider.aclose()


async def test_hung_request_is_a_timeout(hanging_server: OpenAITestServer) -> None:
    provider = OpenAIProvider("test-model", base_url=hanging_server.base_url, timeout=0.2)
    with pytest.raises(ModelError) as caught:
        await provider.complete(user("hi"), GenerateConfig())
    assert caught.value.kind == "timeout"
    await provider.aclose()


async def test_closed_port_is_a_connection_error() -> None:
    provider = OpenAIProvider("m", base_url=f"http://127.0.0.1:{closed_port()}/v1")
    with pytest.raises(ModelError) as caught:
        await provider.complete(user("hi"), GenerateConfig())
    assert caught.value.kind == "connection"
    assert caught.value.retryable


async def test_bad_request_is_a_client_error(server: OpenAITestServer) -> None:
    provider = OpenAIProvider("test-model", base_url=server.base_url)
    with pytest.raises(ModelError) as caught:
        await provider.complete(user("hi"), GenerateConfig(n=1000))
    assert caught.value.kind == "client"
    assert caught.value.status == 400
    assert not caught.value.retryable
    assert "'n' must be" in str(caught.value)
    await provider.aclose()


def test_base_url_and_key_from_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", "http://localhost:11434/v1/")
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    provider = OpenAIProvider("llama3")
    assert provider.base_url == "http://localhost:11434/v1"
    assert provider._api_key == LOCAL_API_KEY and provider.has_credentials
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    assert OpenAIProvider("llama3")._api_key == "sk-test"
    assert OpenAIProvider("llama3", api_key="sk-arg")._api_key == "sk-arg"


async def test_openai_without_key_fails_before_any_request(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    provider = OpenAIProvider("gpt-4o-mini")
    assert not provider.has_credentials
    with pytest.raises(ModelError, match="OPENAI_API_KEY") as caught:
        await provider.complete(user("hi"), GenerateConfig())
    assert caught.value.kind == "client"


def test_openai_host_gets_max_completion_tokens() -> None:
    remote = OpenAIProvider("gpt-4o-mini", base_url="https://api.openai.com/v1", api_key="k")
    local = OpenAIProvider("llama3", base_url="http://127.0.0.1:1/v1")
    config = GenerateConfig(max_tokens=50)
    assert remote._chat_payload(user("x"), config)["max_completion_tokens"] == 50
    assert "max_tokens" not in remote._chat_payload(user("x"), config)
    assert local._chat_payload(user("x"), config)["max_tokens"] == 50


def test_parse_retry_after_forms() -> None:
    assert parse_retry_after({"retry-after": "3"}) == 3.0
    assert parse_retry_after({"retry-after": "0.5"}) == 0.5
    assert parse_retry_after({"retry-after-ms": "250", "retry-after": "9"}) == 0.25
    assert parse_retry_after({}) is None
    assert parse_retry_after({"retry-after": "soon"}) is None
    now = 1_700_000_000.0  # an HTTP date has whole seconds: the wait is exact
    date = email.utils.formatdate(now + 30, usegmt=True)
    assert parse_retry_after({"retry-after": date}, now=now) == 30.0
    past = email.utils.formatdate(now - 30, usegmt=True)
    assert parse_retry_after({"retry-after": past}, now=now) == 0.0


# -- inside JudgeModel: retries, bounds and records ----------------------------------


@pytest.mark.parametrize("fault", ["429", "500", "truncated", "malformed"])
async def test_fault_then_success_after_retries(server: OpenAITestServer, fault: str) -> None:
    judge = judge_for(server)
    server.fail_next(fault, count=2, retry_after=0.05 if fault == "429" else None)
    generation = await judge.generate(user("Score this."), purpose="accuracy")
    assert generation.text == "[RESULT] 4"
    assert generation.attempts == 3
    [record] = records_of(judge)
    assert record.error is None and record.attempts == 3
    assert record.text == "[RESULT] 4" and record.purpose == "accuracy"
    assert generation.call_id == 1
    totals = judge.usage.total()
    assert totals.retries == 2 and totals.attempts == 3
    assert totals.rate_limited == (2 if fault == "429" else 0)
    assert len(server.requests_log) == 3
    await judge.aclose()


@pytest.mark.parametrize("fault", ["429", "500", "truncated", "malformed"])
async def test_persistent_fault_gives_up_after_bounded_attempts(
    server: OpenAITestServer, fault: str
) -> None:
    judge = judge_for(server, FAST.model_copy(update={"max_retries": 2}))
    # Exactly as many faults as attempts allowed: a fourth attempt would succeed.
    server.fail_next(fault, count=3, retry_after=0.05 if fault == "429" else None)
    with pytest.raises(JudgeCallError) as caught:
        await judge.generate(user("Score this."))
    error = caught.value
    assert isinstance(error, ModelError)
    assert error.attempts == 3
    assert len(server.requests_log) == 3
    [record] = records_of(judge)
    assert record.error is not None and record.text is None
    assert record.attempts == 3
    assert error.call_id == 1
    assert judge.usage.total().failed_calls == 1
    await judge.aclose()


async def test_a_server_that_never_answers_gives_up_after_bounded_attempts(
    hanging_server: OpenAITestServer,
) -> None:
    judge = judge_for(hanging_server, FAST.model_copy(update={"max_retries": 2, "timeout": 0.25}))
    with pytest.raises(JudgeCallError) as caught:
        await judge.generate(user("Score this."))
    assert caught.value.kind == "timeout"
    assert caught.value.attempts == 3
    [record] = records_of(judge)
    assert record.error is not None and "no answer within 0.25 s" in record.error
    assert record.attempts == 3 and record.text is None
    assert judge.usage.total().failed_calls == 1
    await judge.aclose()


async def test_connection_refused_gives_up_after_bounded_attempts() -> None:
    judge = get_model(
        "openai/m",
        base_url=f"http://127.0.0.1:{closed_port()}/v1",
        settings=FAST.model_copy(update={"max_retries": 2}),
        recorder=MemoryRecorder(),
    )
    with pytest.raises(JudgeCallError) as caught:
        await judge.generate(user("hi"))
    assert caught.value.kind == "connection"
    assert caught.value.attempts == 3
    [record] = records_of(judge)
    assert record.error is not None and "cannot reach" in record.error


async def test_client_error_is_not_retried(server: OpenAITestServer) -> None:
    judge = judge_for(server)
    with pytest.raises(JudgeCallError) as caught:
        await judge.generate(user("hi"), GenerateConfig(n=1000))
    assert caught.value.kind == "client"
    assert caught.value.attempts == 1
    assert server.stats.status_counts == {400: 1}


async def test_retry_after_is_honoured(
    server: OpenAITestServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    judge = judge_for(server)
    waits: list[float | None] = []
    backoff = judge._retry_delay

    def noted(error: ModelError, attempt: int) -> float | None:
        waits.append(backoff(error, attempt))
        return waits[-1]

    monkeypatch.setattr(judge, "_retry_delay", noted)
    server.fail_next("429", retry_after=0.4)
    generation = await judge.generate(user("hi"))
    # the header's 0.4 s, read over HTTP, is the wait (the backoff alone is ≤ 0.01 s)
    assert waits == [pytest.approx(0.4)]
    assert generation.attempts == 2
    assert judge.limiter_stats().pauses == 1


async def test_unparsable_output_over_http_is_reasked_then_an_error(
    server: OpenAITestServer,
) -> None:
    server.replies = ReplyScript(default="I think it is quite good.")
    judge = judge_for(server, FAST.model_copy(update={"reask_limit": 1}))
    parsed = await judge.generate_parsed(user("Grade it."), result_score)
    assert parsed.value is None
    assert parsed.error is not None and parsed.error.startswith("parse error:")
    second_prompt = server.requests_log[1]["messages"]
    assert second_prompt[-2] == {"role": "assistant", "content": "I think it is quite good."}
    assert "could not be read" in second_prompt[-1]["content"]
    assert len(server.requests_log) == 2


def test_same_provider_in_several_event_loops(server: OpenAITestServer) -> None:
    judge = judge_for(server)
    results: list[str] = []

    def in_thread() -> None:
        results.append(asyncio.run(judge.generate(user("capital of France, thread"))).text)

    first = asyncio.run(judge.generate(user("capital of France, first")))
    thread = threading.Thread(target=in_thread)
    thread.start()
    thread.join(timeout=10)
    second = asyncio.run(judge.generate(user("capital of France, second")))
    assert [first.text, *results, second.text] == ["Paris", "Paris", "Paris"]


# -- endpoints in cache keys, and no secret in what is reported -------------------

PLANTED_KEY = "sk-provider-planted-5c1e9a"


async def test_same_model_on_another_server_is_asked_not_served_from_the_cache(
    server: OpenAITestServer,
) -> None:
    cache = ResponseCache(":memory:")
    first = get_model("openai/test-model", base_url=server.base_url, settings=FAST, cache=cache)
    assert (await first.generate(user("Grade it."))).text == "[RESULT] 4"
    other = OpenAITestServer(replies=ReplyScript(default="[RESULT] 1"))
    with other:
        second = get_model("openai/test-model", base_url=other.base_url, settings=FAST, cache=cache)
        generation = await second.generate(user("Grade it."))
        assert generation.text == "[RESULT] 1" and not generation.cached
        assert len(other.requests_log) == 1
        assert (await second.generate(user("Grade it."))).cached
        await second.aclose()
    await first.aclose()


def test_endpoint_is_the_base_url_without_credentials() -> None:
    provider = OpenAIProvider(
        "m", base_url=f"https://user:{PLANTED_KEY}@judge.example/v1?api-version=2&key=k123/"
    )
    assert provider.endpoint == "https://***@judge.example/v1?api-version=2&key=***"
    assert PLANTED_KEY not in repr(provider) and "k123" not in repr(provider)


class _Leaky:
    """An endpoint that quotes the credentials it received in its error messages, and
    one that redirects to another origin."""

    def __init__(self) -> None:
        from starlette.applications import Starlette
        from starlette.routing import Route

        self.received: list[dict[str, str]] = []
        self.app = Starlette(
            routes=[
                Route("/leak/v1/chat/completions", self.leak, methods=["POST"]),
                Route("/moved/v1/chat/completions", self.moved, methods=["POST"]),
                Route("/collect", self.collect, methods=["GET", "POST"]),
            ]
        )
        self.collector_url = ""

    async def leak(self, request: Any) -> Any:
        from starlette.responses import JSONResponse

        said = request.headers.get("authorization")
        return JSONResponse({"error": {"message": f"Incorrect API key provided: {said}"}}, 401)

    async def moved(self, request: Any) -> Any:
        from starlette.responses import RedirectResponse

        return RedirectResponse(self.collector_url, status_code=307)

    async def collect(self, request: Any) -> Any:
        from starlette.responses import JSONResponse

        self.received.append(dict(request.headers))
        return JSONResponse({"choices": [{"message": {"content": "collected"}}]})


@pytest.fixture(scope="module")
def leaky() -> Iterator[tuple[_Leaky, str, str]]:
    from ragjudge.testing import BackgroundASGIServer

    app = _Leaky()
    with BackgroundASGIServer(app.app) as here, BackgroundASGIServer(app.app) as elsewhere:
        app.collector_url = f"{elsewhere.url}/collect"
        yield app, here.url, elsewhere.url


async def test_errors_never_hold_the_key_even_when_the_server_echoes_it(
    leaky: tuple[_Leaky, str, str],
) -> None:
    _, url, _ = leaky
    provider = OpenAIProvider("m", base_url=f"{url}/leak/v1", api_key=PLANTED_KEY)
    with pytest.raises(ModelError) as caught:
        await provider.complete(user("hi"), GenerateConfig())
    assert caught.value.status == 401 and "Incorrect API key provided" in str(caught.value)
    assert PLANTED_KEY not in str(caught.value)
    assert caught.value.__cause__ is None
    await provider.aclose()
    unreachable = OpenAIProvider(
        "m", base_url=f"http://user:{PLANTED_KEY}@127.0.0.1:{closed_port()}/v1", api_key="k"
    )
    with pytest.raises(ModelError) as refused:
        await unreachable.complete(user("hi"), GenerateConfig())
    assert refused.value.kind == "connection" and "***@127.0.0.1" in str(refused.value)
    assert PLANTED_KEY not in str(refused.value)


async def test_a_redirect_to_another_origin_is_not_followed(
    leaky: tuple[_Leaky, str, str],
) -> None:
    app, url, _ = leaky
    app.received.clear()
    provider = OpenAIProvider("m", base_url=f"{url}/moved/v1", api_key=PLANTED_KEY)
    with pytest.raises(ModelError) as caught:
        await provider.complete(user("hi"), GenerateConfig())
    assert caught.value.status == 307 and not caught.value.retryable
    assert app.received == []
    await provider.aclose()


# base-url-query: a base URL with a query string got the path appended after the query
async def test_a_base_url_with_a_query_keeps_it_after_the_path() -> None:
    from ragjudge.models._embeddings import get_embedder
    from ragjudge.testing import BackgroundASGIServer

    recorder = PathRecorder()
    with BackgroundASGIServer(recorder.app) as served:
        base_url = f"{served.url}/openai/v1?api-version=2024-10-21"
        provider = OpenAIProvider("m", base_url=base_url)
        generation = await provider.complete(user("hi"), GenerateConfig())
        await provider.embed(["a", "b"])
        embedder = get_embedder("openai/e", base_url=base_url)
        assert (await embedder.embed(["c"])).shape == (1, 2)
        await provider.aclose()
    assert generation.text == "SQL is a language."
    assert recorder.requests == [
        ("/openai/v1/chat/completions", "api-version=2024-10-21"),
        ("/openai/v1/embeddings", "api-version=2024-10-21"),
        ("/openai/v1/embeddings", "api-version=2024-10-21"),
    ]
    unreachable = OpenAIProvider("m", base_url=f"http://127.0.0.1:{closed_port()}/v1?api-version=1")
    with pytest.raises(ModelError) as refused:
        await unreachable.complete(user("hi"), GenerateConfig())
    assert "/v1/chat/completions?api-version=1" in str(refused.value)


# secrets-basic-echo: an echoed "Authorization: Basic" credential kept its base64 token
async def test_an_echoed_basic_credential_is_masked_whole(leaky: tuple[_Leaky, str, str]) -> None:
    # user-info in the base URL goes out as "Authorization: Basic base64(user:key)"
    import base64

    _, url, _ = leaky
    authority = url.removeprefix("http://")
    provider = OpenAIProvider("m", base_url=f"http://u:{PLANTED_KEY}@{authority}/leak/v1")
    with pytest.raises(ModelError) as caught:
        await provider.complete(user("hi"), GenerateConfig())
    await provider.aclose()
    token = base64.b64encode(f"u:{PLANTED_KEY}".encode()).decode()
    assert "Incorrect API key provided: Basic ***" in str(caught.value)
    assert token not in str(caught.value) and token.rstrip("=") not in str(caught.value)


# -- replies beyond max_reply_bytes ----------------------------------------------------


# judge-reply-uncapped: judge replies of any size were read, parsed and stored whole
async def test_a_reply_larger_than_the_cap_is_a_recorded_error_and_not_asked_again(
    server: OpenAITestServer,
) -> None:
    server.replies = ReplyScript(default="Feedback: " + "word " * 2000 + "[RESULT] 4")
    settings = FAST.model_copy(update={"max_reply_bytes": 4000})
    judge = judge_for(server, settings)

    with pytest.raises(JudgeCallError) as caught:
        await judge.generate(user("Score this."))

    assert caught.value.kind == "too_large" and caught.value.attempts == 1
    [record] = records_of(judge)
    assert record.text is None
    assert record.error is not None and "larger than 4000 bytes (max_reply_bytes)" in record.error
    assert server.stats.completions == 1
    await judge.aclose()


class EndlessReply:
    """A chat reply whose body never ends, served in process; counts what it gave."""

    def __init__(self) -> None:
        self.given = 0

    async def body(self) -> AsyncIterator[bytes]:
        yield b'{"choices": [{"message": {"role": "assistant", "content": "'
        while True:
            self.given += 65536
            yield b"w" * 65536


# judge-reply-uncapped: a judge reply that never ended was buffered until the timeout
async def test_a_reply_that_never_ends_is_stopped_at_the_cap(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    reply = EndlessReply()
    provider = OpenAIProvider("m", base_url="http://judge.invalid/v1", max_reply_bytes=1_000_000)
    transport = httpx2.MockTransport(lambda request: httpx2.Response(200, content=reply.body()))
    client = httpx2.AsyncClient(base_url=provider.base_url + "/", transport=transport)
    monkeypatch.setattr(provider, "_new_client", lambda: LeanClient(client, transport))

    with pytest.raises(ModelError) as caught:
        await provider.complete(user("hi"), GenerateConfig())

    assert caught.value.kind == "too_large" and not caught.value.retryable
    assert "larger than 1000000 bytes (max_reply_bytes)" in str(caught.value)
    assert 1_000_000 <= reply.given <= 1_000_000 + 65536  # nothing read beyond the cap
    await provider.aclose()


async def test_an_embeddings_reply_may_hold_a_full_vector_per_text_beyond_the_cap(
    server: OpenAITestServer,
) -> None:
    provider = OpenAIProvider("test-model", base_url=server.base_url, max_reply_bytes=100)

    embedded = await provider.embed(["first text", "second text"])

    assert len(embedded.vectors) == 2
    await provider.aclose()


def test_token_log_probabilities_are_read_and_a_malformed_form_is_left_out() -> None:
    from ragjudge.models._openai import _token_logprobs

    entry = {"token": " 4", "logprob": -0.5, "top_logprobs": [{"token": " 3", "logprob": -1.2}]}
    [token] = _token_logprobs({"choices": [{"logprobs": {"content": [entry]}}]}) or ()
    assert (token.token, token.logprob) == (" 4", -0.5)
    assert [(t.token, t.logprob) for t in token.top] == [(" 3", -1.2)]
    assert _token_logprobs({"choices": [{"logprobs": {"content": [{"token": " 4"}]}}]}) is None
    assert _token_logprobs({"choices": [{"logprobs": None}]}) is None


def test_only_a_plain_http_endpoint_without_a_proxy_skips_the_certificate_store(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from ragjudge.models._openai import never_tls

    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.delenv("all_proxy", raising=False)
    assert never_tls("http://127.0.0.1:8000/v1")
    assert not never_tls("https://api.openai.com/v1")
    monkeypatch.setenv("http_proxy", "https://proxy.example:3128")
    assert not never_tls("http://127.0.0.1:8000/v1")  # TLS to the proxy is verified

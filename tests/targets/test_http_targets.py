"""HTTP targets and the HTTP retriever, over real HTTP on 127.0.0.1: the quickstart RAG
system served by ``examples/quickstart/serve.py``, and a faulty server (slow, failing,
flaky, busy, malformed) in front of it."""

from __future__ import annotations

import asyncio
import functools
import json
import socket
import threading
import tracemalloc
import zlib
from collections import Counter
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, RedirectResponse, Response
from starlette.routing import Route

import ragjudge
from conftest import import_quickstart
from ragjudge.schema import Sample
from ragjudge.store._store import Store
from ragjudge.targets._targets import DEFAULT_MAX_REPLY_BYTES, ReplyLimits, TargetError
from ragjudge.targets.http import (
    BodyTemplate,
    HttpCallError,
    HttpClient,
    HttpRetriever,
    JsonApiTarget,
    OpenAIChatTarget,
    ResponseFormatError,
    http_retriever_from_config,
    http_target_from_config,
    resolve_path,
)
from served import PathRecorder

QUICKSTART = Path(__file__).resolve().parents[2] / "examples" / "quickstart"
HUNG_SECONDS = 600.0
"""How long a ``slow`` request hangs at most: until the module's server stops."""


def sample(request: Any, request_id: str = "s1", **fields: Any) -> Sample:
    return Sample.model_validate({"request_id": request_id, "request": request, **fields})


def doc_uris(output: Any) -> list[str]:
    return [c.doc_uri for c in output.retrieved_context or []]


@pytest.fixture(autouse=True)
async def close_http_clients(monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[None]:
    """Close every client the test opened, in its loop, so no connection leaks."""
    created: list[HttpClient] = []
    original = HttpClient.__init__

    def recording(self: HttpClient, **kw: Any) -> None:
        original(self, **kw)
        created.append(self)

    monkeypatch.setattr(HttpClient, "__init__", recording)
    yield
    for client in created:
        await client.aclose()


@pytest.fixture(scope="module")
def serve() -> ModuleType:
    return import_quickstart("serve")


@pytest.fixture(scope="module")
def rag(serve: ModuleType) -> Iterator[Any]:
    with serve.BackgroundServer() as server:
        yield server


class FaultyApp:
    """The quickstart chat endpoint behind faults chosen by the latest user message's
    first word; ``hits`` counts requests per message."""

    def __init__(self, serve: ModuleType) -> None:
        self.serve = serve
        self.hits: Counter[str] = Counter()
        self.released = threading.Event()
        """Set when the tests are over: a ``slow`` request then gets its answer."""
        self.app = Starlette(
            routes=[
                Route("/v1/chat/completions", self.chat, methods=["POST"]),
                Route("/json/echo", self.json_echo, methods=["GET", "POST"]),
                Route("/json/big", self.json_big, methods=["POST"]),
                Route("/json/bomb", self.json_bomb, methods=["POST"]),
                Route("/json/redirect", self.json_redirect, methods=["GET", "POST"]),
                Route("/json/headers", self.json_headers, methods=["GET", "POST"]),
                Route("/json/leak", self.json_leak, methods=["GET", "POST"]),
            ]
        )

    async def chat(self, request: Request) -> Response:
        body = await request.json()
        query = body["messages"][-1]["content"]
        self.hits[query] += 1
        first = self.hits[query] == 1
        kind = query.split()[0]
        if kind == "slow":
            await self.hang()
        if kind == "fail":
            return JSONResponse({"error": {"message": "boom: the model crashed"}}, 500)
        if kind == "flaky" and first:
            return JSONResponse({"error": "temporarily down"}, 503)
        if kind == "busy" and first:
            return JSONResponse({"error": "slow down"}, 429, headers={"Retry-After": "0.3"})
        if kind == "reject":
            return JSONResponse({"error": "bad field"}, 400)
        if kind == "malformed":
            return PlainTextResponse("<html><body>502 Bad Gateway</body></html>")
        if kind == "empty":
            return JSONResponse({"id": "x", "choices": []})
        if kind in ("echo", "nested"):
            return JSONResponse(self._echo(request, body, nested=kind == "nested"))
        # The request body was read above; starlette caches it for the real handler.
        response: Response = await self.serve.chat_completions(request)
        return response

    async def hang(self) -> None:
        """Keep a request unanswered until the tests are over, so only the client's
        timeout can end it."""
        for _ in range(int(HUNG_SECONDS / 0.01)):
            if self.released.is_set():
                return
            await asyncio.sleep(0.01)

    @staticmethod
    def _echo(request: Request, body: dict[str, Any], *, nested: bool) -> dict[str, Any]:
        received = {
            "body": body,
            "authorization": request.headers.get("authorization"),
            "x-team": request.headers.get("x-team"),
        }
        message: dict[str, Any] = {"role": "assistant", "content": json.dumps(received)}
        if nested:
            message["context"] = ["first passage", {"doc_uri": "b.md", "content": "B", "score": 2}]
        return {
            "choices": [{"index": 0, "message": message}],
            "usage": {"prompt_tokens": 7, "completion_tokens": 3},
        }

    async def json_echo(self, request: Request) -> Response:
        received = dict(request.query_params) if request.method == "GET" else await request.json()
        return JSONResponse(
            {
                "data": {"answer": "ok", "received": received, "as_text": json.dumps(received)},
                "contexts": ["plain passage", {"doc_uri": "a.md", "content": "A"}],
                "meta": {"usage": {"input_tokens": 4, "output_tokens": 2}},
            }
        )

    async def json_big(self, request: Request) -> Response:
        size = int(request.query_params["bytes"])
        return JSONResponse({"answer": "x" * size})

    async def json_bomb(self, request: Request) -> Response:
        headers = {"Content-Encoding": "gzip"}
        return Response(gzip_bomb(), media_type="application/json", headers=headers)

    async def json_redirect(self, request: Request) -> Response:
        status = int(request.query_params.get("status", "307"))
        return RedirectResponse(request.query_params["to"], status_code=status)

    async def json_headers(self, request: Request) -> Response:
        received = json.dumps({"method": request.method, "headers": dict(request.headers)})
        return JSONResponse({"data": {"answer": received}, "results": [received]})

    async def json_leak(self, request: Request) -> Response:
        said = f"key {request.headers.get('x-api-key')} is not valid for {request.url}"
        return JSONResponse({"error": said}, 401)


BOMB_BYTES = 100 * 1024 * 1024


@functools.cache
def gzip_bomb() -> bytes:
    """A gzip body of about 100 KB that inflates to a 100 MB JSON object."""
    packer = zlib.compressobj(9, zlib.DEFLATED, 31)
    parts = [packer.compress(b'{"answer": "')]
    block = b"a" * (1024 * 1024)
    parts += [packer.compress(block) for _ in range(BOMB_BYTES // len(block))]
    parts += [packer.compress(b'"}'), packer.flush()]
    return b"".join(parts)


@pytest.fixture(scope="module")
def faulty(serve: ModuleType) -> Iterator[tuple[Any, FaultyApp]]:
    app = FaultyApp(serve)
    with serve.BackgroundServer(app.app) as server:
        try:
            yield server, app
        finally:
            app.released.set()


@pytest.fixture(scope="module")
def elsewhere(serve: ModuleType) -> Iterator[Any]:
    """The same app on another port: another origin."""
    with serve.BackgroundServer(FaultyApp(serve).app) as server:
        yield server


def chat_target(base_url: str, **kw: Any) -> OpenAIChatTarget:
    kw.setdefault("backoff", 0.01)
    return OpenAIChatTarget(base_url, kw.pop("model", "quickstart-rag"), **kw)


# the example RAG over OpenAI chat completions -----------------------------------------


async def test_openai_chat_target_returns_the_answer_and_the_apps_contexts(rag: Any) -> None:
    target = chat_target(rag.base_url, context_field="retrieved_context")
    output = await target(sample("What is the difference between UNION and UNION ALL in SQL?"))
    assert output.error is None
    assert output.response is not None and "UNION ALL" in output.response
    assert doc_uris(output)[0] == "union_vs_union_all.md"
    assert all(c.content for c in output.retrieved_context or [])
    assert output.usage.input_tokens > 0 and output.usage.output_tokens > 0
    assert output.trace["http"]["attempts"] == 1
    assert output.latency is not None and output.latency > 0
    assert target.supports_history and target.supplies_response


async def test_without_context_field_no_contexts_are_read(rag: Any) -> None:
    output = await chat_target(rag.base_url)(sample("What is a deadlock?"))
    assert output.error is None and output.response
    assert output.retrieved_context is None


async def test_history_goes_as_messages_and_the_mqa_variant_retrieves_with_it(rag: Any) -> None:
    conversation = {
        "messages": [
            {"role": "user", "content": "What is a deadlock?"},
            {"role": "assistant", "content": "Two transactions wait for each other."},
            {"role": "user", "content": "How does the database resolve it?"},
        ]
    }
    follow_up_alone = "How does the database resolve it?"
    qa = chat_target(rag.base_url, context_field="retrieved_context")
    mqa = chat_target(rag.base_url, model="quickstart-rag-mqa", context_field="retrieved_context")

    mqa_with_history = await mqa(sample(conversation))
    mqa_alone = await mqa(sample(follow_up_alone))
    qa_with_history = await qa(sample(conversation))

    assert "deadlocks.md" in doc_uris(mqa_with_history)
    assert "deadlocks.md" not in doc_uris(mqa_alone)
    # The single-turn variant ignores the history it receives.
    assert doc_uris(qa_with_history) == doc_uris(mqa_alone)
    assert mqa_with_history.response is not None
    assert "victim" in mqa_with_history.response


async def test_request_carries_the_conversation_headers_key_and_extra_body(
    faulty: tuple[Any, FaultyApp],
) -> None:
    server, _ = faulty
    target = chat_target(
        server.base_url,
        model="m",
        api_key="secret",
        headers={"X-Team": "search"},
        extra_body={"temperature": 0, "model": "ignored"},
    )
    history = [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "索引とは？"},
        {"role": "assistant", "content": "検索を速くする構造です。"},
    ]
    output = await target(sample({"query": "echo さらに詳しく", "history": history}))
    assert output.error is None and output.response is not None
    received = json.loads(output.response)
    assert received["body"]["messages"] == [
        *history,
        {"role": "user", "content": "echo さらに詳しく"},
    ]
    assert received["body"]["model"] == "m" and received["body"]["temperature"] == 0
    assert received["authorization"] == "Bearer secret"
    assert received["x-team"] == "search"
    assert (output.usage.input_tokens, output.usage.output_tokens) == (7, 3)


async def test_contexts_from_a_dotted_path_accept_strings_and_objects(
    faulty: tuple[Any, FaultyApp],
) -> None:
    server, _ = faulty
    target = chat_target(server.base_url, context_field="choices.0.message.context")
    output = await target(sample("nested question"))
    assert output.error is None
    contexts = output.retrieved_context or []
    assert [(c.doc_uri, c.content, c.score) for c in contexts] == [
        ("choices.0.message.context.0", "first passage", None),
        ("b.md", "B", 2.0),
    ]


# JSON API targets -----------------------------------------------------------------------


async def test_json_api_target_answers_through_a_template_and_paths(rag: Any) -> None:
    target = JsonApiTarget(
        f"{rag.url}/answer",
        body_template={
            "question": "{{query}}",
            "history": "{{history}}",
            "model": "quickstart-rag-mqa",
        },
        response_path="answer",
        context_path="contexts",
    )
    history = [{"role": "user", "content": "What is a deadlock?"}]
    output = await target(
        sample({"query": "How does the database resolve it?", "history": history})
    )
    assert output.error is None
    assert output.response is not None and "victim" in output.response
    assert "deadlocks.md" in doc_uris(output)
    assert target.supports_history


async def test_template_placeholders_become_json_values_or_text(
    faulty: tuple[Any, FaultyApp],
) -> None:
    server, _ = faulty
    template = json.dumps(
        {
            "input": {"text": "{{query}}", "turns": "{{ messages }}"},
            "tag": "id-{{request_id}}: {{query}}",
            "fixed": [1, True, None],
        }
    )
    target = JsonApiTarget(
        f"{server.url}/json/echo",
        body_template=template,
        response_path="data.as_text",
        context_path="contexts",
        usage_path="meta.usage",
    )
    request = {"query": "主キーとは？", "history": [{"role": "user", "content": "hi"}]}
    output = await target(sample(request, request_id="r7"))
    assert output.error is None and output.response is not None
    assert [c.doc_uri for c in output.retrieved_context or []] == ["contexts.0", "a.md"]
    assert (output.usage.input_tokens, output.usage.output_tokens) == (4, 2)
    received = json.loads(output.response)
    assert received["input"]["text"] == "主キーとは？"
    assert received["input"]["turns"] == [
        {"role": "user", "content": "hi"},
        {"role": "user", "content": "主キーとは？"},
    ]
    assert received["tag"] == "id-r7: 主キーとは？"
    assert received["fixed"] == [1, True, None]


async def test_get_sends_the_template_as_query_parameters(faulty: tuple[Any, FaultyApp]) -> None:
    server, _ = faulty
    target = JsonApiTarget(
        f"{server.url}/json/echo",
        method="get",
        body_template={"q": "{{query}}", "n": 3},
        response_path="data.received.q",
    )
    output = await target(sample("what is MVCC?"))
    assert output.error is None and output.response == "what is MVCC?"
    assert not target.supports_history


# base-url-query: a base URL with a query string got the path appended after the query
async def test_a_base_url_with_a_query_keeps_it_after_the_path() -> None:
    from ragjudge.testing import BackgroundASGIServer

    recorder = PathRecorder()
    with BackgroundASGIServer(recorder.app) as served:
        target = OpenAIChatTarget(f"{served.url}/v1?api-version=2024-10-21", "my-rag")
        output = await target(sample("What is SQL?"))
        assert output.error is None and output.response == "SQL is a language."
        assert output.trace["http"]["url"].endswith("/v1/chat/completions?api-version=2024-10-21")
    assert recorder.requests == [("/v1/chat/completions", "api-version=2024-10-21")]


async def test_a_missing_response_path_is_an_error_naming_it(faulty: tuple[Any, FaultyApp]) -> None:
    server, _ = faulty
    target = JsonApiTarget(
        f"{server.url}/json/echo", body_template={"q": "{{query}}"}, response_path="data.text"
    )
    output = await target(sample("q"))
    assert output.response is None
    assert output.error is not None
    assert "'data.text'" in output.error and "no key 'text'" in output.error
    assert "answer" in output.error  # the keys that are there


async def test_a_missing_context_path_is_an_error(faulty: tuple[Any, FaultyApp]) -> None:
    server, _ = faulty
    target = JsonApiTarget(
        f"{server.url}/json/echo",
        body_template={"q": "{{query}}"},
        response_path="data.answer",
        context_path="data.passages",
    )
    output = await target(sample("q"))
    assert output.response is None
    assert output.error is not None and "'data.passages'" in output.error


async def test_a_context_that_is_neither_text_nor_an_object_is_an_error(
    faulty: tuple[Any, FaultyApp],
) -> None:
    server, _ = faulty
    target = JsonApiTarget(
        f"{server.url}/json/echo",
        body_template={"q": "{{query}}", "passages": ["fine", 7]},
        response_path="data.answer",
        context_path="data.received.passages",
    )
    output = await target(sample("q"))
    assert output.response is None and output.error is not None
    assert "'data.received.passages.1' is int" in output.error
    assert "response body:" in output.error  # the reply is quoted for the reader


def test_body_template_checks_placeholders_and_json_text() -> None:
    with pytest.raises(TargetError, match="unknown placeholders"):
        BodyTemplate({"q": "{{question}}"})
    with pytest.raises(TargetError, match="not JSON"):
        BodyTemplate('{"messages": {{messages}}}')
    with pytest.raises(TargetError, match="GET"):
        JsonApiTarget("http://127.0.0.1:1/x", method="GET", body_template="[]", response_path="a")
    with pytest.raises(TargetError, match="http"):
        JsonApiTarget("127.0.0.1:1/x", body_template={}, response_path="a")


def test_resolve_path_walks_objects_and_lists() -> None:
    document = {"results": [{"text": "a"}, {"text": "b"}], "n": 2}
    assert resolve_path(document, "results.1.text") == "b"
    assert resolve_path(document, "results.-1.text") == "b"
    assert resolve_path(document, "") is document
    with pytest.raises(ResponseFormatError, match="has 2 items"):
        resolve_path(document, "results.5.text")
    with pytest.raises(ResponseFormatError, match="is a number"):
        resolve_path(document, "n.value")
    with pytest.raises(ResponseFormatError, match="not an index"):
        resolve_path(document, "results.first")


# the app's own search -------------------------------------------------------------------


async def test_http_retriever_uses_the_apps_search(rag: Any) -> None:
    retriever = HttpRetriever(f"{rag.url}/search")
    chunks = await retriever.search("What is a deadlock?", k=2)
    assert len(chunks) == 2
    assert chunks[0].doc_uri == "deadlocks.md"
    scores = [c.score or 0.0 for c in chunks]
    assert scores[0] > 0 and scores == sorted(scores, reverse=True)
    japanese = await retriever.search("デッドロックとは何ですか", k=3)
    assert "deadlock_ja.md" in [c.doc_uri for c in japanese]
    assert await retriever.search("anything", k=0) == []


async def test_http_retriever_reports_a_wrong_results_path(rag: Any) -> None:
    retriever = http_retriever_from_config({"url": f"{rag.url}/search", "results_path": "hits"})
    with pytest.raises(ResponseFormatError, match="'hits'"):
        await retriever.search("deadlock", k=1)


# slow, failing and malformed targets ----------------------------------------------------


async def test_a_slow_sample_times_out_and_the_others_are_answered(
    faulty: tuple[Any, FaultyApp],
) -> None:
    server, _ = faulty
    # The app loads and indexes its knowledge base on its first question; that must
    # not count against the timeout of the samples that are meant to be answered.
    warm = await chat_target(server.base_url)(sample("What is a deadlock?"))
    assert warm.error is None
    # the slow sample never gets an answer; 2 s is ample for the others on a busy machine
    target = chat_target(server.base_url, timeout=2.0, max_retries=0)
    samples = [
        sample("What is a deadlock?", "a"),
        sample("slow What is MVCC?", "b"),
        sample("What is a view?", "c"),
    ]
    outputs = await asyncio.gather(*(target(s) for s in samples))
    assert outputs[0].error is None and outputs[0].response
    assert outputs[2].error is None and outputs[2].response
    assert outputs[1].response is None
    assert outputs[1].error is not None and "within 2 s" in outputs[1].error


async def test_a_failing_target_is_retried_a_bounded_number_of_times(
    faulty: tuple[Any, FaultyApp],
) -> None:
    server, app = faulty
    output = await chat_target(server.base_url, max_retries=2)(sample("fail always"))
    assert output.response is None
    assert output.error is not None
    assert "HTTP 500" in output.error and "boom: the model crashed" in output.error
    assert "3 attempts" in output.error
    assert app.hits["fail always"] == 3
    assert output.trace["http"]["attempts"] == 3


async def test_a_5xx_then_success_is_a_success_with_the_retry_counted(
    faulty: tuple[Any, FaultyApp],
) -> None:
    server, app = faulty
    output = await chat_target(server.base_url)(sample("flaky What is a deadlock?"))
    assert output.error is None and output.response
    assert app.hits["flaky What is a deadlock?"] == 2
    http = output.trace["http"]
    assert http["attempts"] == 2 and len(http["retried"]) == 1
    assert "HTTP 503" in http["retried"][0]


async def test_a_429_waits_for_retry_after(
    faulty: tuple[Any, FaultyApp], monkeypatch: pytest.MonkeyPatch
) -> None:
    server, app = faulty
    waits: list[float | None] = []
    chosen = HttpClient._wait_before_retry

    def noted(self: HttpClient, attempt: int, retry_after: float | None) -> float | None:
        waits.append(chosen(self, attempt, retry_after))
        return waits[-1]

    monkeypatch.setattr(HttpClient, "_wait_before_retry", noted)
    output = await chat_target(server.base_url)(sample("busy What is a deadlock?"))
    assert output.error is None and output.response
    assert waits == [0.3]  # the header's wait, not the 0.01 s backoff
    assert output.trace["http"]["attempts"] == 2
    assert app.hits["busy What is a deadlock?"] == 2


async def test_a_client_error_is_not_retried(faulty: tuple[Any, FaultyApp]) -> None:
    server, app = faulty
    output = await chat_target(server.base_url, max_retries=2)(sample("reject this"))
    assert output.error is not None and "HTTP 400" in output.error and "bad field" in output.error
    assert app.hits["reject this"] == 1


async def test_a_malformed_body_is_an_error_with_an_excerpt(
    faulty: tuple[Any, FaultyApp],
) -> None:
    server, app = faulty
    output = await chat_target(server.base_url)(sample("malformed reply"))
    assert output.response is None
    assert output.error is not None
    assert "not JSON" in output.error and "502 Bad Gateway" in output.error
    assert app.hits["malformed reply"] == 1


async def test_a_response_without_choices_names_the_missing_path(
    faulty: tuple[Any, FaultyApp],
) -> None:
    server, _ = faulty
    output = await chat_target(server.base_url)(sample("empty choices"))
    assert output.error is not None
    assert "'choices.0.message.content'" in output.error and "0 items" in output.error


async def test_an_unreachable_endpoint_is_an_error_after_retries() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    output = await chat_target(f"http://127.0.0.1:{port}/v1", max_retries=1)(sample("hi"))
    assert output.error is not None and "cannot reach" in output.error
    assert "2 attempts" in output.error


async def test_http_call_error_carries_status_and_attempts(faulty: tuple[Any, FaultyApp]) -> None:
    server, _ = faulty
    target = chat_target(server.base_url, max_retries=1)
    body = {"messages": [{"role": "user", "content": "fail directly"}]}
    with pytest.raises(HttpCallError) as caught:
        await target.http.request_json(
            "POST", f"{server.base_url}/chat/completions", json_body=body
        )
    assert (caught.value.status, caught.value.attempts) == (500, 2)


# configuration --------------------------------------------------------------------------


def test_factory_builds_both_kinds(monkeypatch: pytest.MonkeyPatch) -> None:
    chat = http_target_from_config(
        {
            "kind": "openai_chat",
            "base_url": "http://127.0.0.1:8000/v1/",
            "model": "quickstart-rag",
            "context_field": "retrieved_context",
            "timeout": 5,
        }
    )
    assert isinstance(chat, OpenAIChatTarget)
    assert chat.base_url == "http://127.0.0.1:8000/v1" and chat.http.timeout == 5
    api = http_target_from_config(
        {
            "kind": "json_api",
            "url": "http://127.0.0.1:8000/answer",
            "body_template": {"question": "{{query}}"},
            "response_path": "answer",
            "context_path": "contexts",
        }
    )
    assert isinstance(api, JsonApiTarget) and api.context_path == "contexts"
    monkeypatch.setenv("RAG_KEY", "k-123")
    keyed = http_target_from_config(
        {"kind": "openai_chat", "base_url": "http://h/v1", "model": "m", "api_key_env": "RAG_KEY"}
    )
    assert isinstance(keyed, OpenAIChatTarget)
    assert keyed.http.headers["Authorization"] == "Bearer k-123"


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ({"kind": "grpc"}, "unknown HTTP target kind"),
        ({"kind": "openai_chat", "base_url": "http://h/v1"}, "model"),
        ({"kind": "openai_chat", "base_url": "http://h", "model": "m", "contxt": "x"}, "contxt"),
        ({"kind": "json_api", "url": "http://h", "body_template": {}}, "response_path"),
        ({"kind": "openai_chat", "base_url": "http://h", "model": "m", "timeout": 0}, "timeout"),
        (
            {"kind": "openai_chat", "base_url": "http://h", "model": "m", "api_key_env": "NO_SUCH"},
            "NO_SUCH",
        ),
    ],
)
def test_factory_rejects_bad_specs(spec: dict[str, Any], message: str) -> None:
    with pytest.raises(TargetError, match=message):
        http_target_from_config(spec)


# end to end -----------------------------------------------------------------------------


def test_evaluate_records_per_sample_errors_and_runs_to_its_end(
    faulty: tuple[Any, FaultyApp], tmp_path: Path
) -> None:
    server, _ = faulty
    lines = (QUICKSTART / "evalset.jsonl").read_text(encoding="utf-8").splitlines()
    rows = [json.loads(line) for line in lines[:3]]
    rows += [
        {"request_id": "broken", "request": "fail on purpose", "expected_response": "x"},
        {"request_id": "hung", "request": "slow and late", "expected_response": "x"},
    ]
    target = chat_target(
        server.base_url, context_field="retrieved_context", timeout=2.0, max_retries=1
    )
    with pytest.warns(ragjudge.RunFailedWarning, match="incomplete"):
        result = ragjudge.evaluate(
            rows, target=target, metrics=["rouge_l"], store=tmp_path / "r.db", progress=False
        )
    assert result.status == "incomplete"  # ran to its end; 2 of 5 results failed
    summary = result.summary().set_index("metric")
    assert summary.loc["rouge_l", "n"] == 3
    assert summary.loc["rouge_l", "errors"] == 2
    frame = result.to_pandas().set_index("request_id")
    assert "HTTP 500" in str(frame.loc["broken", "target_error"])
    assert "within 2 s" in str(frame.loc["hung", "target_error"])
    assert (frame.loc[[r["request_id"] for r in rows[:3]], "rouge_l"] > 0).all()
    with Store(tmp_path / "r.db") as store:
        outputs = store.outputs(result.run_id)
    assert outputs["broken"].trace["http"]["attempts"] == 2
    assert outputs[rows[0]["request_id"]].retrieved_context


# caps on a reply ------------------------------------------------------------------------


async def test_a_reply_over_the_cap_is_an_error_and_is_not_retried(
    faulty: tuple[Any, FaultyApp],
) -> None:
    server, _ = faulty
    target = JsonApiTarget(
        f"{server.url}/json/big?bytes=5000",
        body_template={"q": "{{query}}"},
        response_path="answer",
        limits=ReplyLimits(max_reply_bytes=1000),
    )
    output = await target(sample("q"))
    assert output.response is None and output.error is not None
    assert output.error.startswith("reply larger than 1000 bytes (max_reply_bytes) from http://")
    assert output.trace["http"]["attempts"] == 1
    fits = JsonApiTarget(
        f"{server.url}/json/big?bytes=900",
        body_template={"q": "{{query}}"},
        response_path="answer",
        limits=ReplyLimits(max_reply_bytes=1000),
    )
    assert (await fits(sample("q"))).response == "x" * 900


async def test_a_gzip_bomb_is_stopped_at_the_cap_after_decompression(
    faulty: tuple[Any, FaultyApp],
) -> None:
    server, _ = faulty
    assert len(gzip_bomb()) < 1024 * 1024
    target = JsonApiTarget(
        f"{server.url}/json/bomb", body_template={"q": "{{query}}"}, response_path="answer"
    )
    tracemalloc.start()
    try:
        output = await target(sample("q"))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert output.response is None and output.error is not None
    assert f"reply larger than {DEFAULT_MAX_REPLY_BYTES} bytes" in output.error
    assert peak < 8 * DEFAULT_MAX_REPLY_BYTES  # never the 100 MB it inflates to


async def test_a_gzip_bomb_stops_the_retriever_too(faulty: tuple[Any, FaultyApp]) -> None:
    server, _ = faulty
    retriever = HttpRetriever(f"{server.url}/json/bomb", max_reply_bytes=64 * 1024)
    with pytest.raises(HttpCallError, match="reply larger than 65536 bytes"):
        await retriever.search("q", k=1)


async def test_too_many_contexts_over_http_are_an_error(faulty: tuple[Any, FaultyApp]) -> None:
    server, _ = faulty
    target = JsonApiTarget(
        f"{server.url}/json/echo",
        body_template={"q": "{{query}}"},
        response_path="data.answer",
        context_path="contexts",
        limits=ReplyLimits(max_contexts=1),
    )
    output = await target(sample("q"))
    assert output.response is None
    assert output.error == "reply lists 2 retrieved contexts, more than 1 (max_contexts)"


# redirects and secrets ------------------------------------------------------------------

KEY = "k-planted-70c4e1d9"
SECRET_HEADERS = {"X-Api-Key": KEY, "Authorization": f"Bearer {KEY}", "X-Team": "search"}


def received_headers(output: Any) -> dict[str, str]:
    assert output.error is None, output.error
    headers: dict[str, str] = json.loads(output.response)["headers"]
    return headers


async def test_configured_headers_stay_on_their_origin_when_redirected(
    faulty: tuple[Any, FaultyApp], elsewhere: Any
) -> None:
    server, _ = faulty
    away = JsonApiTarget(
        f"{server.url}/json/redirect?to={elsewhere.url}/json/headers",
        body_template={"q": "{{query}}"},
        response_path="data.answer",
        headers=SECRET_HEADERS,
    )
    sent_away = received_headers(await away(sample("q")))
    assert KEY not in json.dumps(sent_away) and "x-team" not in sent_away
    home = JsonApiTarget(
        f"{server.url}/json/redirect?to=/json/headers",
        body_template={"q": "{{query}}"},
        response_path="data.answer",
        headers=SECRET_HEADERS,
    )
    sent_home = received_headers(await home(sample("q")))
    assert sent_home["x-api-key"] == KEY and sent_home["x-team"] == "search"
    see_other = JsonApiTarget(
        f"{server.url}/json/redirect?status=303&to=/json/headers",
        body_template={"q": "{{query}}"},
        response_path="data.answer",
    )
    assert json.loads((await see_other(sample("q"))).response or "")["method"] == "GET"
    retriever = HttpRetriever(
        f"{server.url}/json/redirect?to={elsewhere.url}/json/headers", headers=SECRET_HEADERS
    )
    [chunk] = await retriever.search("q", k=1)
    assert KEY not in (chunk.content or "")


async def test_errors_traces_and_names_hold_no_secret(faulty: tuple[Any, FaultyApp]) -> None:
    server, _ = faulty
    target = JsonApiTarget(
        f"{server.url}/json/leak?key={KEY}",
        body_template={"q": "{{query}}"},
        response_path="data.answer",
        headers={"X-Api-Key": KEY},
        max_retries=0,
    )
    output = await target(sample("q"))
    assert (
        output.error is not None and "HTTP 401" in output.error and "is not valid" in output.error
    )
    assert KEY not in output.error + json.dumps(output.trace) + target.name + repr(target)
    assert output.trace["http"]["url"].endswith("/json/leak?key=***")
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    unreachable = JsonApiTarget(
        f"http://user:{KEY}@127.0.0.1:{port}/answer",
        method="GET",
        body_template={"q": "{{query}}", "api_key": KEY},
        response_path="answer",
        max_retries=0,
    )
    failed = await unreachable(sample("q"))
    assert failed.error is not None and "cannot reach http://***@127.0.0.1" in failed.error
    assert KEY not in failed.error + json.dumps(failed.trace)


def test_factory_expands_references_and_refuses_masked_secrets(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("RAG_KEY", KEY)
    spec = {
        "kind": "json_api",
        "url": "http://h/answer?key=${RAG_KEY}",
        "headers": {"X-Api-Key": "${RAG_KEY}"},
        "body_template": {"q": "{{query}}"},
        "response_path": "answer",
        "max_reply_bytes": 1000,
        "max_contexts": 3,
    }
    target = http_target_from_config(spec)
    assert isinstance(target, JsonApiTarget)
    assert target.url == f"http://h/answer?key={KEY}"
    assert target.http.headers == {"X-Api-Key": KEY}
    assert target.http.max_reply_bytes == 1000 and target.limits.max_contexts == 3
    with pytest.raises(TargetError, match=r"headers\.X-Api-Key: the secret was not stored"):
        http_target_from_config({**spec, "headers": {"X-Api-Key": "***"}})
    with pytest.raises(TargetError, match="url: the secret was not stored"):
        http_target_from_config({**spec, "url": "http://h/answer?key=***"})
    with pytest.raises(TargetError, match="NO_SUCH_KEY"):
        http_target_from_config({**spec, "headers": {"X-Api-Key": "${NO_SUCH_KEY}"}})
    retriever = http_retriever_from_config(
        {"url": "http://h/search", "headers": {"X-Api-Key": "${RAG_KEY}"}, "max_reply_bytes": 9}
    )
    assert retriever.http.headers == {"X-Api-Key": KEY} and retriever.http.max_reply_bytes == 9

"""HTTP targets and the HTTP retriever, over real HTTP on 127.0.0.1: the quickstart RAG
system served by ``examples/quickstart/serve.py``, and a faulty server (slow, failing,
flaky, busy, malformed) in front of it."""

from __future__ import annotations

import asyncio
import json
import socket
import time
from collections import Counter
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

import ragjudge
from conftest import import_quickstart
from ragjudge.http_targets import (
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
from ragjudge.schema import Sample
from ragjudge.store import Store
from ragjudge.targets import TargetError

QUICKSTART = Path(__file__).resolve().parents[1] / "examples" / "quickstart"
SLOW_SECONDS = 1.0


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
        self.app = Starlette(
            routes=[
                Route("/v1/chat/completions", self.chat, methods=["POST"]),
                Route("/json/echo", self.json_echo, methods=["GET", "POST"]),
            ]
        )

    async def chat(self, request: Request) -> Response:
        body = await request.json()
        query = body["messages"][-1]["content"]
        self.hits[query] += 1
        first = self.hits[query] == 1
        kind = query.split()[0]
        if kind == "slow":
            await asyncio.sleep(SLOW_SECONDS)
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


@pytest.fixture(scope="module")
def faulty(serve: ModuleType) -> Iterator[tuple[Any, FaultyApp]]:
    app = FaultyApp(serve)
    with serve.BackgroundServer(app.app) as server:
        yield server, app


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
    target = chat_target(server.base_url, timeout=0.4, max_retries=0)
    samples = [
        sample("What is a deadlock?", "a"),
        sample("slow What is MVCC?", "b"),
        sample("What is a view?", "c"),
    ]
    started = time.perf_counter()
    outputs = await asyncio.gather(*(target(s) for s in samples))
    assert time.perf_counter() - started < SLOW_SECONDS
    assert outputs[0].error is None and outputs[0].response
    assert outputs[2].error is None and outputs[2].response
    assert outputs[1].response is None
    assert outputs[1].error is not None and "within 0.4 s" in outputs[1].error


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


async def test_a_429_waits_for_retry_after(faulty: tuple[Any, FaultyApp]) -> None:
    server, app = faulty
    started = time.perf_counter()
    output = await chat_target(server.base_url)(sample("busy What is a deadlock?"))
    assert output.error is None and output.response
    assert time.perf_counter() - started >= 0.3
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


def test_evaluate_records_per_sample_errors_and_completes(
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
        server.base_url, context_field="retrieved_context", timeout=0.5, max_retries=1
    )
    result = ragjudge.evaluate(
        rows, target=target, metrics=["rouge_l"], store=tmp_path / "r.db", progress=False
    )
    assert result.status == "completed"
    summary = result.summary().set_index("metric")
    assert summary.loc["rouge_l", "n"] == 3
    assert summary.loc["rouge_l", "errors"] == 2
    frame = result.to_pandas().set_index("request_id")
    assert "HTTP 500" in str(frame.loc["broken", "target_error"])
    assert "within 0.5 s" in str(frame.loc["hung", "target_error"])
    assert (frame.loc[[r["request_id"] for r in rows[:3]], "rouge_l"] > 0).all()
    with Store(tmp_path / "r.db") as store:
        outputs = store.outputs(result.run_id)
    assert outputs["broken"].trace["http"]["attempts"] == 2
    assert outputs[rows[0]["request_id"]].retrieved_context

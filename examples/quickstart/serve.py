"""Serve the quickstart RAG system (``rag_app.py``) over HTTP.

Endpoints:

- ``POST /v1/chat/completions``: OpenAI chat completions. Model ``quickstart-rag`` is
  the single-turn QA variant (it retrieves with the latest user message only);
  ``quickstart-rag-mqa`` is the history-aware MQA variant (it retrieves with all the
  conversation's user turns joined). The chunks used are returned at the top level of
  the response as ``retrieved_context``.
- ``POST /answer``: ``{"question", "history"?, "model"?}`` → ``{"answer", "contexts"}``.
- ``POST /search``: ``{"query", "k"?}`` → ``{"results": [{"doc_uri", "content", "score"}]}``.
- ``GET /health`` and ``GET /v1/models``.

Run it (its dependencies come with the ``serve`` extra, which ``make demo``
installs: ``pip install 'ragjudge[serve]'``)::

    python examples/quickstart/serve.py --port 8000

and evaluate it with a target such as
``{kind: openai_chat, base_url: http://127.0.0.1:8000/v1, model: quickstart-rag,
context_field: retrieved_context}``. Tests serve it from a background thread with
:class:`BackgroundServer`.
"""

from __future__ import annotations

import argparse
import sys
import time
import uuid
from pathlib import Path
from typing import Any

try:
    import uvicorn
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import JSONResponse
    from starlette.routing import Route
    from starlette.types import ASGIApp
except ImportError as exc:  # pragma: no cover - depends on the install
    sys.exit(f"serve.py needs the serve extra ({exc}): pip install 'ragjudge[serve]'")

from ragjudge.models import estimate_messages_tokens, estimate_tokens
from ragjudge.testing.background import LOOPBACK, BackgroundASGIServer

if str(Path(__file__).resolve().parent) not in sys.path:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
import rag_app  # the apps beside this file, found through the lines above
import rag_app_mqa

QA_MODEL = "quickstart-rag"
MQA_MODEL = "quickstart-rag-mqa"
MODELS = (QA_MODEL, MQA_MODEL)
DEFAULT_K = 5
MAX_K = 50


# the two variants -------------------------------------------------------------------


async def answer_as(model: str, query: str, history: list[dict[str, str]]) -> dict[str, Any]:
    """The answer of the variant named ``model``."""
    app = rag_app_mqa if model == MQA_MODEL else rag_app
    result: dict[str, Any] = await app.answer(query, history)
    return result


# request checking -------------------------------------------------------------------


class BadRequest(Exception):
    """A request the server cannot answer; sent back as an OpenAI-style error."""

    def __init__(self, message: str, status: int = 400, code: str = "invalid_request") -> None:
        super().__init__(message)
        self.message = message
        self.status = status
        self.code = code


async def bad_request(request: Request, exc: Exception) -> JSONResponse:
    """The JSON error response for a :class:`BadRequest`."""
    assert isinstance(exc, BadRequest)
    error = {"message": exc.message, "type": "invalid_request_error", "code": exc.code}
    return JSONResponse({"error": error}, status_code=exc.status)


async def json_object(request: Request) -> dict[str, Any]:
    """The request body, which must be a JSON object."""
    try:
        body = await request.json()
    except ValueError as exc:
        raise BadRequest(f"the body is not JSON: {exc}") from None
    if not isinstance(body, dict):
        raise BadRequest("the body must be a JSON object")
    return body


def text_field(body: dict[str, Any], name: str) -> str:
    """A required non-empty string field."""
    value = body.get(name)
    if not isinstance(value, str) or not value.strip():
        raise BadRequest(f"'{name}' must be a non-empty string")
    return value


def model_field(body: dict[str, Any], default: str | None = None) -> str:
    """The variant asked for, one of :data:`MODELS`."""
    model = body.get("model", default)
    if model not in MODELS:
        raise BadRequest(
            f"model {model!r} does not exist; available: {', '.join(MODELS)}",
            status=404,
            code="model_not_found",
        )
    return str(model)


def plain_messages(value: Any, name: str) -> list[dict[str, str]]:
    """Chat messages as ``{role, content}`` with text content (content parts joined)."""
    if not isinstance(value, list):
        raise BadRequest(f"'{name}' must be a list of messages")
    messages = []
    for i, message in enumerate(value):
        if not isinstance(message, dict) or not isinstance(message.get("role"), str):
            raise BadRequest(f"{name}[{i}] must be an object with a 'role'")
        content = message.get("content")
        if isinstance(content, list):
            content = "".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
        if not isinstance(content, str):
            raise BadRequest(f"{name}[{i}].content must be text")
        messages.append({"role": message["role"], "content": content})
    return messages


def split_conversation(messages: list[dict[str, str]]) -> tuple[str, list[dict[str, str]]]:
    """The latest user message and the messages before it."""
    users = [i for i, m in enumerate(messages) if m["role"] == "user"]
    if not users:
        raise BadRequest("'messages' holds no user message")
    last = users[-1]
    return messages[last]["content"], messages[:last]


# endpoints --------------------------------------------------------------------------


async def chat_completions(request: Request) -> JSONResponse:
    """OpenAI chat completions, with the retrieved chunks as ``retrieved_context``."""
    body = await json_object(request)
    model = model_field(body)
    if body.get("stream"):
        raise BadRequest("streaming is not supported")
    messages = plain_messages(body.get("messages"), "messages")
    query, history = split_conversation(messages)
    result = await answer_as(model, query, history)
    prompt_tokens = estimate_messages_tokens(messages)
    completion_tokens = estimate_tokens(result["response"])
    return JSONResponse(
        {
            "id": f"chatcmpl-{uuid.uuid4().hex}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": model,
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": result["response"]},
                    "finish_reason": "stop",
                }
            ],
            "usage": {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
            },
            "retrieved_context": result["retrieved_context"],
        }
    )


async def answer_endpoint(request: Request) -> JSONResponse:
    """Plain JSON: ``{question, history?, model?}`` → ``{answer, contexts}``."""
    body = await json_object(request)
    question = text_field(body, "question")
    history = plain_messages(body.get("history") or [], "history")
    result = await answer_as(model_field(body, QA_MODEL), question, history)
    return JSONResponse({"answer": result["response"], "contexts": result["retrieved_context"]})


async def search(request: Request) -> JSONResponse:
    """The app's own search: ``{query, k?}`` → the ``k`` best chunks with scores."""
    body = await json_object(request)
    query = text_field(body, "query")
    k = body.get("k", DEFAULT_K)
    if not isinstance(k, int) or isinstance(k, bool) or not 0 <= k <= MAX_K:
        raise BadRequest(f"'k' must be an integer from 0 to {MAX_K}")
    chunks = await rag_app.retriever().search(query, k=k)
    results = [{"doc_uri": c.doc_uri, "content": c.content, "score": c.score} for c in chunks]
    return JSONResponse({"results": results})


async def health(request: Request) -> JSONResponse:
    """Liveness, the models served and the size of the knowledge base."""
    documents = len(rag_app.knowledge_base().documents)
    return JSONResponse({"status": "ok", "models": list(MODELS), "documents": documents})


async def list_models(request: Request) -> JSONResponse:
    """OpenAI ``/v1/models``."""
    data = [{"id": m, "object": "model", "owned_by": "quickstart"} for m in MODELS]
    return JSONResponse({"object": "list", "data": data})


def create_app() -> Starlette:
    """The ASGI app. The search index is built here, so no request pays for it."""
    rag_app.retriever()
    return Starlette(
        routes=[
            Route("/v1/chat/completions", chat_completions, methods=["POST"]),
            Route("/answer", answer_endpoint, methods=["POST"]),
            Route("/search", search, methods=["POST"]),
            Route("/health", health, methods=["GET"]),
            Route("/v1/models", list_models, methods=["GET"]),
        ],
        exception_handlers={BadRequest: bad_request},
    )


# serving ----------------------------------------------------------------------------


class BackgroundServer(BackgroundASGIServer):
    """The quickstart app (or ``app``) served by uvicorn from a daemon thread on a
    loopback port (``port=0``: a free one). Use it as a context manager, or call
    :meth:`start` and :meth:`stop`."""

    def __init__(self, app: ASGIApp | None = None, *, port: int = 0) -> None:
        super().__init__(
            app if app is not None else create_app(),
            port=port,
            thread_name="quickstart-rag-server",
            shutdown_grace=1,
        )

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:PORT/v1``, the base URL of the OpenAI-compatible API."""
        return f"{self.url}/v1"


def main(argv: list[str] | None = None) -> None:
    """``python serve.py [--host H] [--port P]``: serve in the foreground."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--host", default=LOOPBACK, help="address to listen on (default loopback)")
    parser.add_argument("--port", type=int, default=8000)
    args = parser.parse_args(argv)
    print(f"serving the quickstart RAG on http://{args.host}:{args.port} (models: {MODELS})")
    uvicorn.run(create_app(), host=args.host, port=args.port, log_level="info")


if __name__ == "__main__":
    main()

"""A local OpenAI-compatible HTTP server for tests, with scripted replies and faults.

It listens on loopback only (``127.0.0.1``), runs uvicorn in a background thread
and answers ``POST /v1/chat/completions``, ``POST /v1/embeddings`` and
``GET /v1/models`` in the OpenAI response shapes. Replies come from a
:class:`~ragjudge.models.scripted.ReplyScript`; token usage is estimated from
character counts and embeddings are deterministic hashes of the text, so runs are
reproducible.

Faults make it behave like a busy or broken endpoint: latency, RPM/TPM limits
(429 with ``Retry-After``) counted per minute or per second (``limit_period``), random
500s, bursts of 429s, hung connections, truncated and malformed bodies, and reply
texts spoiled as judges writing free text spoil them (``garbled``) — either drawn per
request from a seeded :class:`FaultPlan` or queued exactly with
:meth:`OpenAITestServer.fail_next`.

Log probabilities: with ``token_alternatives`` a chat request that asks for
``logprobs`` gets each reply token's log probability and its ``top_logprobs``, drawn
from the probabilities the test gave (:mod:`ragjudge.testing._logprobs`); without it the
server sends none, as endpoints without log probabilities do.

Schema mode: a chat request whose ``response_format`` is ``{"type": "json_schema",
"json_schema": {"name": …, "schema": …}}`` is answered as a server that constrains its
decoding to the schema answers it: with the scripted reply's JSON document when it
holds one valid against the schema (written compactly), else with a document built
from the schema — valid against it either way, and never garbled. With
``refuse_schemas`` such a request is answered 400 naming ``response_format``, as an
endpoint without structured outputs answers it.

Per POST request, in order: an invalid body is answered 400; a refused schema is
answered 400; a queued fault, if any, is served; an ongoing 429 burst answers 429; the
RPM then TPM limit answers 429 (such requests are not counted as accepted); the
latency is awaited; a random fault may be drawn; otherwise the normal reply is sent.
All faults but ``garbled`` apply to chat completions and embeddings alike.

Manual use::

    python -m ragjudge.testing.server --port 8999 --latency 0.5 1.0 --rpm 600
"""

from __future__ import annotations

import asyncio
import itertools
import json
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any, cast

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.types import Receive, Scope, Send

from ragjudge.models._structured import SCHEMA_REFUSAL, format_schema
from ragjudge.models._tokens import estimate_tokens
from ragjudge.models._types import ModelError
from ragjudge.models.scripted import ReplyScript, hash_embedding, prompt_text
from ragjudge.testing._anthropic_batches import AnthropicDesk
from ragjudge.testing._batches import BatchDesk
from ragjudge.testing._command_line import parse_server_args
from ragjudge.testing._documents import reply_kept_to
from ragjudge.testing._faults import FAULT_KINDS as FAULT_KINDS
from ragjudge.testing._faults import WINDOW_SECONDS as WINDOW_SECONDS
from ragjudge.testing._faults import FaultInjector, FaultKind, FaultPlan
from ragjudge.testing._logprobs import TokenAlternatives, reply_logprobs
from ragjudge.testing._stats import ServerStats
from ragjudge.testing._wire import (
    DROP,
    Drop,
    Endpoint,
    drop_connection,
    embedding_inputs,
    error_response,
    invalid_reason,
    prompt_tokens,
    rate_limited,
    retry_after_headers,
)
from ragjudge.testing._wire import MALFORMED_BODY as MALFORMED_BODY
from ragjudge.testing.background import BackgroundASGIServer, StartStopContext

__all__ = [
    "FAULT_KINDS",
    "MALFORMED_BODY",
    "WINDOW_SECONDS",
    "FaultKind",
    "FaultPlan",
    "OpenAITestServer",
    "ServerStats",
    "main",
]


class OpenAITestServer(StartStopContext):
    """An OpenAI-compatible server on ``127.0.0.1`` for tests (see the module docstring).

    Use ``start()``/``stop()`` or ``with`` / ``async with``; ``base_url`` is then
    ``http://127.0.0.1:PORT/v1``. ``port=0`` picks a free port. ``clock`` tells the time
    (seconds) the RPM/TPM windows and the request times count in: :func:`time.monotonic`
    unless a test passes a clock it moves itself, so a limit's answers do not depend on
    how fast the requests came. ``refuse_schemas`` (an attribute too, changeable while
    the server runs) answers every request with a reply schema 400.
    ``token_alternatives`` makes it send log probabilities when asked (see the module
    docstring).
    """

    def __init__(
        self,
        *,
        replies: ReplyScript | None = None,
        faults: FaultPlan | None = None,
        embedding_dim: int = 16,
        model_id: str = "test-model",
        port: int = 0,
        clock: Callable[[], float] = time.monotonic,
        refuse_schemas: bool = False,
        token_alternatives: TokenAlternatives | None = None,
    ) -> None:
        if embedding_dim < 1:
            raise ValueError("embedding_dim must be >= 1")
        self.replies = replies if replies is not None else ReplyScript()
        self.refuse_schemas = refuse_schemas
        self.token_alternatives = token_alternatives
        self.embedding_dim = embedding_dim
        self.model_id = model_id
        self.stats = ServerStats()
        self.requests_log: list[dict[str, Any]] = []
        self._background = BackgroundASGIServer(
            self._asgi, port=port, thread_name="ragjudge-test-server"
        )
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._clock = clock
        self._injector = FaultInjector(faults if faults is not None else FaultPlan(), clock)
        self._ids = itertools.count(1)
        self.batches = BatchDesk(self._chat_payload, clock)
        """The Batch API endpoints (``/v1/files``, ``/v1/batches``) and their settings."""
        self.anthropic = AnthropicDesk(self._chat_payload, clock)
        """Anthropic's endpoints (``/v1/messages``, ``/v1/messages/batches``) and their
        settings; an Anthropic client's base URL is :attr:`root_url`."""

    # -- lifecycle -----------------------------------------------------------

    @property
    def port(self) -> int:
        """The port the server listens on (after :meth:`start`)."""
        return self._background.port

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:PORT/v1``, the base URL an OpenAI client expects."""
        return f"{self._background.url}/v1"

    @property
    def root_url(self) -> str:
        """``http://127.0.0.1:PORT``, the base URL an Anthropic client expects."""
        return self._background.url

    def start(self) -> None:
        """Bind the port and serve in a background thread; returns once it accepts requests."""
        self._stopping.clear()
        self._background.start()

    def stop(self) -> None:
        """Stop serving: hung requests are released and the thread is joined."""
        self._stopping.set()
        self._background.stop()

    # -- fault control -------------------------------------------------------

    @property
    def faults(self) -> FaultPlan:
        """The fault plan in force."""
        return self._injector.plan

    def set_faults(self, faults: FaultPlan) -> None:
        """Replace the fault plan at run time: the RNG is re-seeded and the 429-burst
        count restarts; the RPM/TPM windows keep the traffic already accepted."""
        self._injector.set_plan(faults)

    def fail_next(self, kind: str, count: int = 1, retry_after: float | None = None) -> None:
        """Answer the next ``count`` POST requests with an exact fault.

        ``kind`` is ``"429"``, ``"500"``, ``"timeout"``, ``"truncated"``, ``"malformed"``
        or ``"garbled"``.
        ``retry_after`` sets the ``Retry-After`` header of a 429 (default 1 s) or a 500
        (default none); fractions are sent as decimals. Queued faults come before any
        limit and are not counted as accepted requests.
        """
        if kind not in FAULT_KINDS:
            raise ValueError(f"kind must be one of {', '.join(FAULT_KINDS)}, not {kind!r}")
        if count < 0:
            raise ValueError("count must be >= 0")
        self._injector.queue(cast(FaultKind, kind), count, retry_after)

    # -- ASGI ----------------------------------------------------------------

    async def _asgi(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return
        method, path = scope["method"], scope["path"].rstrip("/")
        if path == "/v1/models" and method == "GET":
            response: Response | Drop = self._models_response()
        elif path in ("/v1/chat/completions", "/v1/embeddings") and method == "POST":
            endpoint: Endpoint = "chat" if path.endswith("completions") else "embeddings"
            response = await self._handle_post(Request(scope, receive), endpoint)
        else:
            request = Request(scope, receive)
            batch_api = await self.anthropic.handle(method, path, request)
            if batch_api is None:
                batch_api = await self.batches.handle(method, path, request)
            response = batch_api or error_response(404, f"no route {method} {path}", "not_found")
        if isinstance(response, Drop):
            await drop_connection(send)
            return
        self.stats.count_status(response.status_code)
        await response(scope, receive, send)

    async def _handle_post(self, request: Request, endpoint: Endpoint) -> Response | Drop:
        try:
            body = json.loads(await request.body())
        except ValueError:
            return error_response(400, "request body is not valid JSON", "invalid_request_error")
        invalid = invalid_reason(body, endpoint)
        if invalid is not None:
            return error_response(400, invalid, "invalid_request_error")
        self._record_arrival(body)
        schema = format_schema(body.get("response_format")) if endpoint == "chat" else None
        if schema is not None and self.refuse_schemas:
            self.stats.schema_refusals += 1
            return error_response(
                400, f"Invalid parameter: {SCHEMA_REFUSAL}.", "invalid_request_error"
            )
        self.stats.in_flight += 1
        self.stats.max_in_flight = max(self.stats.max_in_flight, self.stats.in_flight)
        try:
            return await self._answer(body, endpoint)
        except ModelError as exc:  # a schema the server cannot keep a reply to
            return error_response(400, str(exc), "invalid_request_error")
        finally:
            self.stats.in_flight -= 1

    def _record_arrival(self, body: dict[str, Any]) -> None:
        with self._lock:
            self.requests_log.append(body)
            self.stats.requests += 1
            self.stats.request_times.append(self._clock())

    async def _answer(self, body: dict[str, Any], endpoint: Endpoint) -> Response | Drop:
        queued = self._injector.pop_queued()
        if queued is not None:
            return await self._fault_response(queued.kind, queued.retry_after, body, endpoint)
        if self._injector.in_burst():
            self.stats.burst_429s += 1
            return rate_limited("burst of rate-limit errors", 1.0)
        limited = self._injector.check_limits(prompt_tokens(body, endpoint), self.stats)
        if limited is not None:
            return limited
        await self._injector.sleep_latency()
        drawn = self._injector.draw_fault()
        if drawn is not None:
            return await self._fault_response(drawn, None, body, endpoint)
        return self._success(body, endpoint)

    async def _fault_response(
        self,
        kind: FaultKind,
        retry_after: float | None,
        body: dict[str, Any],
        endpoint: Endpoint,
    ) -> Response | Drop:
        if kind == "429":
            return rate_limited(
                "rate limit (injected)", 1.0 if retry_after is None else retry_after
            )
        if kind == "500":
            response = error_response(500, "internal server error (injected)", "server_error")
            if retry_after is not None:
                response.headers.update(retry_after_headers(retry_after))
            return response
        if kind == "timeout":
            self.stats.timeouts += 1
            await self._hang(self._injector.plan.hang_seconds)
            return DROP
        if kind == "garbled":
            return self._success(body, endpoint, garble=True)
        if kind == "truncated":
            self.stats.truncated += 1
            payload = self._payload(body, endpoint)
            encoded = json.dumps(payload, ensure_ascii=False).encode("utf-8")
            return Response(encoded[: len(encoded) // 2], media_type="application/json")
        self.stats.malformed += 1
        return Response(MALFORMED_BODY, media_type="text/html")

    async def _hang(self, seconds: float) -> None:
        deadline = time.monotonic() + seconds
        while not self._stopping.is_set():
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return
            await asyncio.sleep(min(0.05, remaining))

    # -- normal replies --------------------------------------------------------

    def _success(
        self, body: dict[str, Any], endpoint: Endpoint, *, garble: bool = False
    ) -> Response:
        payload = self._payload(body, endpoint, garble=garble)
        if endpoint == "chat":
            self.stats.completions += 1
        else:
            self.stats.embeddings += 1
        return JSONResponse(payload)

    def _payload(
        self, body: dict[str, Any], endpoint: Endpoint, *, garble: bool = False
    ) -> dict[str, Any]:
        if endpoint == "chat":
            payload = self._chat_payload(body, garble=garble)
        else:
            payload = self._embedding_payload(body)
        self._injector.charge_tokens(int(payload["usage"]["total_tokens"]))
        return payload

    def _reply_text(
        self, messages: list[dict[str, Any]], schema: dict[str, Any] | None, garble: bool
    ) -> str:
        """The scripted reply: kept to ``schema`` when there is one, else spoiled when
        ``garble``."""
        text = self.replies.reply(messages)
        if schema is not None:
            with self._lock:
                self.stats.schema_replies += 1
            return reply_kept_to(text, schema)
        if garble:
            with self._lock:
                self.stats.garbled += 1
            return self._injector.garble(text)
        return text

    def _chat_payload(self, body: dict[str, Any], *, garble: bool = False) -> dict[str, Any]:
        messages: list[dict[str, Any]] = body["messages"]
        schema = format_schema(body.get("response_format"))
        count = int(body.get("n") or 1)
        texts = [self._reply_text(messages, schema, garble) for _ in range(count)]
        prompt_tokens = estimate_tokens(prompt_text(messages))
        completion_tokens = sum(estimate_tokens(text) for text in texts)
        return {
            "id": f"chatcmpl-test-{next(self._ids)}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": str(body.get("model") or self.model_id),
            "choices": [
                {
                    "index": index,
                    "message": {"role": "assistant", "content": text},
                    "finish_reason": "stop",
                    "logprobs": self._logprobs(body, text),
                }
                for index, text in enumerate(texts)
            ],
            "usage": {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
            },
        }

    def _logprobs(self, body: dict[str, Any], text: str) -> dict[str, Any] | None:
        if self.token_alternatives is None or not body.get("logprobs"):
            return None
        top = int(body.get("top_logprobs") or 0)
        return reply_logprobs(text, self.token_alternatives, top)

    def _embedding_payload(self, body: dict[str, Any]) -> dict[str, Any]:
        texts = embedding_inputs(body)
        dim = int(body.get("dimensions") or self.embedding_dim)
        tokens = sum(estimate_tokens(text) for text in texts)
        return {
            "object": "list",
            "data": [
                {"object": "embedding", "index": index, "embedding": hash_embedding(text, dim)}
                for index, text in enumerate(texts)
            ],
            "model": str(body.get("model") or self.model_id),
            "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
        }

    def _models_response(self) -> Response:
        model = {"id": self.model_id, "object": "model", "created": 0, "owned_by": "ragjudge"}
        return JSONResponse({"object": "list", "data": [model]})


# -- command line ---------------------------------------------------------------


def main(argv: Sequence[str] | None = None) -> int:
    """Run the test server in the foreground until interrupted."""
    args = parse_server_args(argv)
    plan = FaultPlan(
        latency=tuple(args.latency) if args.latency else (0.0, 0.0),
        rpm_limit=args.rpm,
        tpm_limit=args.tpm,
        limit_period=1.0 if args.per_second else WINDOW_SECONDS,
        error_500_rate=args.error_rate,
        timeout_rate=args.timeout_rate,
        hang_seconds=args.hang_seconds,
        garbled_rate=args.garbled_rate,
        seed=args.seed,
    )
    server = OpenAITestServer(
        replies=ReplyScript(default=args.reply),
        faults=plan,
        embedding_dim=args.embedding_dim,
        port=args.port,
        refuse_schemas=args.refuse_schemas,
    )
    with server:
        print(f"OpenAI-compatible test server at {server.base_url} (Ctrl+C to stop)", flush=True)
        try:
            while True:
                time.sleep(1.0)
        except KeyboardInterrupt:
            pass
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

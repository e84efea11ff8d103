"""A local OpenAI-compatible HTTP server for tests, with scripted replies and faults.

It listens on loopback only (``127.0.0.1``), runs uvicorn in a background thread
and answers ``POST /v1/chat/completions``, ``POST /v1/embeddings`` and
``GET /v1/models`` in the OpenAI response shapes. Replies come from a
:class:`~ragjudge.models.scripted.ReplyScript`; token usage is estimated from
character counts and embeddings are deterministic hashes of the text, so runs are
reproducible.

Faults make it behave like a busy or broken endpoint: latency, RPM/TPM limits
(429 with ``Retry-After``), random 500s, bursts of 429s, hung connections, truncated
and malformed bodies — either drawn per request from a seeded :class:`FaultPlan` or
queued exactly with :meth:`OpenAITestServer.fail_next`.

Per POST request, in order: an invalid body is answered 400; a queued fault, if
any, is served; an ongoing 429 burst answers 429; the RPM then TPM limit answers 429
(such requests are not counted as accepted); the latency is awaited; a random
fault may be drawn; otherwise the normal reply is sent. All faults apply to chat
completions and embeddings alike.

Manual use::

    python -m ragjudge.testing.server --port 8999 --latency 0.5 1.0 --rpm 600
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import math
import random
import threading
import time
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Self, cast, get_args

from pydantic import BaseModel, ConfigDict, Field, model_validator
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.types import Receive, Scope, Send

from ragjudge.models.scripted import ReplyScript, hash_embedding, prompt_text
from ragjudge.models.tokens import estimate_tokens
from ragjudge.testing.background import BackgroundASGIServer, StartStopContext

WINDOW_SECONDS = 60.0
FaultKind = Literal["429", "500", "timeout", "truncated", "malformed"]
_Endpoint = Literal["chat", "embeddings"]
FAULT_KINDS: tuple[str, ...] = get_args(FaultKind)
MALFORMED_BODY = b"<html><body>502 Bad Gateway: upstream sent an invalid reply</body></html>"


class FaultPlan(BaseModel):
    """Per-request fault probabilities and limits; random draws use a ``seed``-ed RNG.

    The four rates are exclusive outcomes of one draw, so their sum must not exceed 1.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    latency: tuple[float, float] = (0.0, 0.0)
    """Uniform range of seconds awaited before answering."""
    rpm_limit: int | None = Field(default=None, ge=1)
    """Accepted requests per sliding 60 s window; over it → 429 with ``Retry-After``
    (seconds until a slot frees, rounded up)."""
    tpm_limit: int | None = Field(default=None, ge=1)
    """Estimated tokens (prompt + reply) per sliding 60 s window; a request whose prompt
    would overflow it → 429; a prompt larger than the whole limit → 400."""
    error_500_rate: float = Field(default=0.0, ge=0.0, le=1.0)
    burst_429_every: int | None = Field(default=None, ge=1)
    """Every Nth request (counted since the plan was set) starts a burst of 429s …"""
    burst_429_length: int = Field(default=0, ge=0)
    """… of this many requests, each with ``Retry-After: 1``."""
    timeout_rate: float = Field(default=0.0, ge=0.0, le=1.0)
    """Hang for ``hang_seconds`` (or until the server stops), then drop the connection."""
    hang_seconds: float = Field(default=30.0, ge=0.0)
    truncated_rate: float = Field(default=0.0, ge=0.0, le=1.0)
    """Answer 200 with the JSON body cut off halfway."""
    malformed_rate: float = Field(default=0.0, ge=0.0, le=1.0)
    """Answer 200 with a body that is not JSON."""
    seed: int = 0

    @model_validator(mode="after")
    def _check_consistency(self) -> Self:
        low, high = self.latency
        if low < 0 or high < low:
            raise ValueError("latency must be (low, high) with 0 <= low <= high")
        total = self.error_500_rate + self.timeout_rate + self.truncated_rate
        if total + self.malformed_rate > 1.0:
            raise ValueError("the fault rates must sum to at most 1")
        return self


@dataclass
class ServerStats:
    """Counters of what the server received and how it answered."""

    requests: int = 0
    """POST requests received (valid bodies), whatever their outcome."""
    completions: int = 0
    """Chat completions answered in full (not truncated or malformed)."""
    embeddings: int = 0
    """Embedding requests answered in full."""
    status_counts: dict[int, int] = field(default_factory=dict)
    """HTTP status → count of responses sent (dropped connections have none)."""
    rate_limited_by_rpm: int = 0
    rate_limited_by_tpm: int = 0
    burst_429s: int = 0
    timeouts: int = 0
    truncated: int = 0
    malformed: int = 0
    in_flight: int = 0
    """POST requests being handled right now."""
    max_in_flight: int = 0
    """The most POST requests handled at the same time."""
    request_times: list[float] = field(default_factory=list)
    """``time.monotonic()`` at the arrival of each POST request."""

    def count_status(self, status: int) -> None:
        """Count one response with this HTTP status."""
        self.status_counts[status] = self.status_counts.get(status, 0) + 1


@dataclass
class _QueuedFault:
    kind: FaultKind
    retry_after: float | None


class _Drop:
    """Marker result: close the connection without sending a response."""


_DROP = _Drop()


class OpenAITestServer(StartStopContext):
    """An OpenAI-compatible server on ``127.0.0.1`` for tests (see the module docstring).

    Use ``start()``/``stop()`` or ``with`` / ``async with``; ``base_url`` is then
    ``http://127.0.0.1:PORT/v1``. ``port=0`` picks a free port.
    """

    def __init__(
        self,
        *,
        replies: ReplyScript | None = None,
        faults: FaultPlan | None = None,
        embedding_dim: int = 16,
        model_id: str = "test-model",
        port: int = 0,
    ) -> None:
        if embedding_dim < 1:
            raise ValueError("embedding_dim must be >= 1")
        self.replies = replies if replies is not None else ReplyScript()
        self.embedding_dim = embedding_dim
        self.model_id = model_id
        self.stats = ServerStats()
        self.requests_log: list[dict[str, Any]] = []
        self._background = BackgroundASGIServer(
            self._asgi, port=port, thread_name="ragjudge-test-server"
        )
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._queued: deque[_QueuedFault] = deque()
        self._accepted_times: deque[float] = deque()
        self._token_window: deque[tuple[float, int]] = deque()
        self._ids = itertools.count(1)
        self.set_faults(faults if faults is not None else FaultPlan())

    # -- lifecycle -----------------------------------------------------------

    @property
    def port(self) -> int:
        """The port the server listens on (after :meth:`start`)."""
        return self._background.port

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:PORT/v1``, the base URL an OpenAI client expects."""
        return f"{self._background.url}/v1"

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
        return self._faults

    def set_faults(self, faults: FaultPlan) -> None:
        """Replace the fault plan at run time: the RNG is re-seeded and the 429-burst
        count restarts; the RPM/TPM windows keep the traffic already accepted."""
        with self._lock:
            self._faults = faults
            self._rng = random.Random(faults.seed)
            self._burst_count = 0
            self._burst_remaining = 0

    def fail_next(self, kind: str, count: int = 1, retry_after: float | None = None) -> None:
        """Answer the next ``count`` POST requests with an exact fault.

        ``kind`` is ``"429"``, ``"500"``, ``"timeout"``, ``"truncated"`` or ``"malformed"``.
        ``retry_after`` sets the ``Retry-After`` header of a 429 (default 1 s) or a 500
        (default none); fractions are sent as decimals. Queued faults come before any
        limit and are not counted as accepted requests.
        """
        if kind not in FAULT_KINDS:
            raise ValueError(f"kind must be one of {', '.join(FAULT_KINDS)}, not {kind!r}")
        if count < 0:
            raise ValueError("count must be >= 0")
        with self._lock:
            for _ in range(count):
                self._queued.append(_QueuedFault(cast(FaultKind, kind), retry_after))

    # -- ASGI ----------------------------------------------------------------

    async def _asgi(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return
        method, path = scope["method"], scope["path"].rstrip("/")
        if path == "/v1/models" and method == "GET":
            response: Response | _Drop = self._models_response()
        elif path in ("/v1/chat/completions", "/v1/embeddings") and method == "POST":
            endpoint: _Endpoint = "chat" if path.endswith("completions") else "embeddings"
            response = await self._handle_post(Request(scope, receive), endpoint)
        else:
            response = _error(404, f"no route {method} {path}", "not_found")
        if isinstance(response, _Drop):
            await _drop_connection(send)
            return
        self.stats.count_status(response.status_code)
        await response(scope, receive, send)

    async def _handle_post(self, request: Request, endpoint: _Endpoint) -> Response | _Drop:
        try:
            body = json.loads(await request.body())
        except ValueError:
            return _error(400, "request body is not valid JSON", "invalid_request_error")
        invalid = _validate(body, endpoint)
        if invalid is not None:
            return _error(400, invalid, "invalid_request_error")
        self._record_arrival(body)
        self.stats.in_flight += 1
        self.stats.max_in_flight = max(self.stats.max_in_flight, self.stats.in_flight)
        try:
            return await self._answer(body, endpoint)
        finally:
            self.stats.in_flight -= 1

    def _record_arrival(self, body: dict[str, Any]) -> None:
        with self._lock:
            self.requests_log.append(body)
            self.stats.requests += 1
            self.stats.request_times.append(time.monotonic())

    async def _answer(self, body: dict[str, Any], endpoint: _Endpoint) -> Response | _Drop:
        queued = self._pop_queued()
        if queued is not None:
            return await self._fault_response(queued.kind, queued.retry_after, body, endpoint)
        if self._in_burst():
            self.stats.burst_429s += 1
            return _rate_limited("burst of rate-limit errors", 1.0)
        limited = self._check_limits(_prompt_tokens(body, endpoint))
        if limited is not None:
            return limited
        await self._sleep_latency()
        drawn = self._draw_fault()
        if drawn is not None:
            return await self._fault_response(drawn, None, body, endpoint)
        return self._success(body, endpoint)

    def _pop_queued(self) -> _QueuedFault | None:
        with self._lock:
            return self._queued.popleft() if self._queued else None

    def _in_burst(self) -> bool:
        plan = self._faults
        with self._lock:
            self._burst_count += 1
            if plan.burst_429_every and self._burst_count % plan.burst_429_every == 0:
                self._burst_remaining = max(self._burst_remaining, plan.burst_429_length)
            if self._burst_remaining > 0:
                self._burst_remaining -= 1
                return True
            return False

    def _check_limits(self, prompt_tokens: int) -> Response | None:
        """Admit the request into the RPM window, or answer 429 (or 400 if it can never fit)."""
        plan = self._faults
        now = time.monotonic()
        with self._lock:
            _expire(self._accepted_times, now)
            while self._token_window and self._token_window[0][0] <= now - WINDOW_SECONDS:
                self._token_window.popleft()
            if plan.rpm_limit is not None and len(self._accepted_times) >= plan.rpm_limit:
                self.stats.rate_limited_by_rpm += 1
                wait = self._accepted_times[0] + WINDOW_SECONDS - now
                return _rate_limited("requests per minute limit reached", _ceil_seconds(wait))
            if plan.tpm_limit is not None:
                refusal = self._check_tpm(plan.tpm_limit, prompt_tokens, now)
                if refusal is not None:
                    return refusal
            self._accepted_times.append(now)
        return None

    def _check_tpm(self, limit: int, prompt_tokens: int, now: float) -> Response | None:
        if prompt_tokens > limit:
            return _error(
                400, f"request of ~{prompt_tokens} tokens exceeds the {limit} TPM limit", "tokens"
            )
        used = sum(tokens for _, tokens in self._token_window)
        if used + prompt_tokens <= limit:
            return None
        self.stats.rate_limited_by_tpm += 1
        freed = 0
        wait = WINDOW_SECONDS
        for stamp, tokens in self._token_window:
            freed += tokens
            if used - freed + prompt_tokens <= limit:
                wait = stamp + WINDOW_SECONDS - now
                break
        return _rate_limited("tokens per minute limit reached", _ceil_seconds(wait))

    def _charge_tokens(self, tokens: int) -> None:
        with self._lock:
            self._token_window.append((time.monotonic(), tokens))

    async def _sleep_latency(self) -> None:
        low, high = self._faults.latency
        if high <= 0:
            return
        with self._lock:
            delay = self._rng.uniform(low, high)
        await asyncio.sleep(delay)

    def _draw_fault(self) -> FaultKind | None:
        plan = self._faults
        with self._lock:
            draw = self._rng.random()
        bounds: list[tuple[FaultKind, float]] = [
            ("500", plan.error_500_rate),
            ("timeout", plan.timeout_rate),
            ("truncated", plan.truncated_rate),
            ("malformed", plan.malformed_rate),
        ]
        cumulative = 0.0
        for kind, rate in bounds:
            cumulative += rate
            if draw < cumulative:
                return kind
        return None

    async def _fault_response(
        self,
        kind: FaultKind,
        retry_after: float | None,
        body: dict[str, Any],
        endpoint: _Endpoint,
    ) -> Response | _Drop:
        if kind == "429":
            return _rate_limited(
                "rate limit (injected)", 1.0 if retry_after is None else retry_after
            )
        if kind == "500":
            response = _error(500, "internal server error (injected)", "server_error")
            if retry_after is not None:
                response.headers.update(_retry_after_headers(retry_after))
            return response
        if kind == "timeout":
            self.stats.timeouts += 1
            await self._hang(self._faults.hang_seconds)
            return _DROP
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

    def _success(self, body: dict[str, Any], endpoint: _Endpoint) -> Response:
        payload = self._payload(body, endpoint)
        if endpoint == "chat":
            self.stats.completions += 1
        else:
            self.stats.embeddings += 1
        return JSONResponse(payload)

    def _payload(self, body: dict[str, Any], endpoint: _Endpoint) -> dict[str, Any]:
        payload = self._chat_payload(body) if endpoint == "chat" else self._embedding_payload(body)
        self._charge_tokens(int(payload["usage"]["total_tokens"]))
        return payload

    def _chat_payload(self, body: dict[str, Any]) -> dict[str, Any]:
        messages: list[dict[str, Any]] = body["messages"]
        texts = [self.replies.reply(messages) for _ in range(int(body.get("n") or 1))]
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
                    "logprobs": None,
                }
                for index, text in enumerate(texts)
            ],
            "usage": {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
            },
        }

    def _embedding_payload(self, body: dict[str, Any]) -> dict[str, Any]:
        texts = _embedding_inputs(body)
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


def _validate(body: Any, endpoint: _Endpoint) -> str | None:
    """Why the request body is unacceptable, or ``None``."""
    if not isinstance(body, dict):
        return "request body must be a JSON object"
    if endpoint == "chat":
        messages = body.get("messages")
        if not isinstance(messages, list) or not messages:
            return "'messages' must be a non-empty list"
        if not all(isinstance(message, dict) for message in messages):
            return "every message must be an object"
        n = body.get("n", 1)
        if n is not None and (not isinstance(n, int) or isinstance(n, bool) or not 1 <= n <= 128):
            return "'n' must be an integer between 1 and 128"
        return None
    dimensions = body.get("dimensions")
    if dimensions is not None and (not isinstance(dimensions, int) or dimensions < 1):
        return "'dimensions' must be a positive integer"
    raw = body.get("input")
    if isinstance(raw, str):
        return None
    if isinstance(raw, list) and raw and all(isinstance(item, str) for item in raw):
        return None
    return "'input' must be a string or a non-empty list of strings"


def _embedding_inputs(body: dict[str, Any]) -> list[str]:
    raw = body["input"]
    return [raw] if isinstance(raw, str) else list(raw)


def _prompt_tokens(body: dict[str, Any], endpoint: _Endpoint) -> int:
    if endpoint == "chat":
        return estimate_tokens(prompt_text(body["messages"]))
    return sum(estimate_tokens(text) for text in _embedding_inputs(body))


def _expire(stamps: deque[float], now: float) -> None:
    while stamps and stamps[0] <= now - WINDOW_SECONDS:
        stamps.popleft()


def _ceil_seconds(seconds: float) -> float:
    return float(max(1, math.ceil(seconds)))


def _format_seconds(seconds: float) -> str:
    return str(int(seconds)) if float(seconds).is_integer() else f"{seconds:g}"


def _retry_after_headers(seconds: float) -> dict[str, str]:
    return {
        "retry-after": _format_seconds(seconds),
        "retry-after-ms": str(round(seconds * 1000)),
    }


def _error(status: int, message: str, error_type: str) -> JSONResponse:
    body = {"error": {"message": message, "type": error_type, "param": None, "code": None}}
    return JSONResponse(body, status_code=status)


def _rate_limited(message: str, retry_after: float) -> JSONResponse:
    response = _error(429, message, "rate_limit_exceeded")
    response.headers.update(_retry_after_headers(retry_after))
    return response


async def _drop_connection(send: Send) -> None:
    """Close the client connection without sending any response bytes."""
    # uvicorn passes a bound method of its per-request cycle, which holds the transport.
    transport = getattr(getattr(send, "__self__", None), "transport", None)
    if transport is not None and hasattr(transport, "abort"):
        transport.abort()
        # Let the server see the connection as lost so it does not try to answer 500.
        await asyncio.sleep(0)
        await asyncio.sleep(0)
        return
    # Other servers: promise a body and never send it; the server then closes the connection.
    await send(
        {"type": "http.response.start", "status": 200, "headers": [(b"content-length", b"1")]}
    )


# -- command line ---------------------------------------------------------------


def _parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m ragjudge.testing.server",
        description="Serve a local OpenAI-compatible test endpoint on 127.0.0.1.",
    )
    parser.add_argument("--port", type=int, default=8999)
    parser.add_argument("--latency", type=float, nargs=2, metavar=("LOW", "HIGH"))
    parser.add_argument("--rpm", type=int, help="requests-per-minute limit")
    parser.add_argument("--tpm", type=int, help="tokens-per-minute limit")
    parser.add_argument("--error-rate", type=float, default=0.0, help="share of 500 answers")
    parser.add_argument("--timeout-rate", type=float, default=0.0)
    parser.add_argument("--hang-seconds", type=float, default=30.0)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--reply", default="OK", help="the reply to every prompt")
    parser.add_argument("--embedding-dim", type=int, default=16)
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the test server in the foreground until interrupted."""
    args = _parse_args(argv)
    plan = FaultPlan(
        latency=tuple(args.latency) if args.latency else (0.0, 0.0),
        rpm_limit=args.rpm,
        tpm_limit=args.tpm,
        error_500_rate=args.error_rate,
        timeout_rate=args.timeout_rate,
        hang_seconds=args.hang_seconds,
        seed=args.seed,
    )
    server = OpenAITestServer(
        replies=ReplyScript(default=args.reply),
        faults=plan,
        embedding_dim=args.embedding_dim,
        port=args.port,
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

"""The OpenAI wire format of the test server: which request bodies are acceptable,
their estimated prompt tokens, error and rate-limit answers with ``Retry-After``, and
dropping a connection without an answer."""

from __future__ import annotations

import asyncio
import math
from typing import Any, Literal

from starlette.responses import JSONResponse
from starlette.types import Send

from ragjudge.models._tokens import estimate_tokens
from ragjudge.models.scripted import prompt_text

Endpoint = Literal["chat", "embeddings"]
_FORMAT_TYPES = ("text", "json_object", "json_schema")
MALFORMED_BODY = b"<html><body>502 Bad Gateway: upstream sent an invalid reply</body></html>"


class Drop:
    """Marker result: close the connection without sending a response."""


DROP = Drop()


def invalid_reason(body: Any, endpoint: Endpoint) -> str | None:
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
        return _response_format_problem(body.get("response_format"))
    dimensions = body.get("dimensions")
    if dimensions is not None and (not isinstance(dimensions, int) or dimensions < 1):
        return "'dimensions' must be a positive integer"
    raw = body.get("input")
    if isinstance(raw, str):
        return None
    if isinstance(raw, list) and raw and all(isinstance(item, str) for item in raw):
        return None
    return "'input' must be a string or a non-empty list of strings"


def _response_format_problem(found: Any) -> str | None:
    """What is wrong with a chat request's ``response_format``, or None."""
    if found is None:
        return None
    if not isinstance(found, dict) or found.get("type") not in _FORMAT_TYPES:
        return f"'response_format' must be an object whose 'type' is one of {_FORMAT_TYPES}"
    if found["type"] != "json_schema":
        return None
    spec = found.get("json_schema")
    if not isinstance(spec, dict) or not isinstance(spec.get("name"), str):
        return "'response_format.json_schema' must be an object with a 'name'"
    if not isinstance(spec.get("schema"), dict):
        return "'response_format.json_schema.schema' must be a JSON schema (an object)"
    return None


def embedding_inputs(body: dict[str, Any]) -> list[str]:
    """The texts of an embeddings request."""
    raw = body["input"]
    return [raw] if isinstance(raw, str) else list(raw)


def prompt_tokens(body: dict[str, Any], endpoint: Endpoint) -> int:
    """The estimated prompt tokens of a valid request."""
    if endpoint == "chat":
        return estimate_tokens(prompt_text(body["messages"]))
    return sum(estimate_tokens(text) for text in embedding_inputs(body))


def ceil_seconds(seconds: float) -> float:
    """Seconds rounded up to a whole number, at least 1."""
    return float(max(1, math.ceil(seconds)))


def _format_seconds(seconds: float) -> str:
    return str(int(seconds)) if float(seconds).is_integer() else f"{seconds:g}"


def retry_after_headers(seconds: float) -> dict[str, str]:
    """``Retry-After`` (seconds) and ``retry-after-ms`` headers."""
    return {
        "retry-after": _format_seconds(seconds),
        "retry-after-ms": str(round(seconds * 1000)),
    }


def error_response(status: int, message: str, error_type: str) -> JSONResponse:
    """An error answer in the OpenAI shape."""
    body = {"error": {"message": message, "type": error_type, "param": None, "code": None}}
    return JSONResponse(body, status_code=status)


def rate_limited(message: str, retry_after: float) -> JSONResponse:
    """A 429 answer asking to retry after ``retry_after`` seconds."""
    response = error_response(429, message, "rate_limit_exceeded")
    response.headers.update(retry_after_headers(retry_after))
    return response


async def drop_connection(send: Send) -> None:
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

"""Anthropic's Messages API on the test server: ``POST /v1/messages`` (one message) and
the Message Batches endpoints (``/v1/messages/batches``: create, retrieve, list,
results, cancel), answered from the server's scripted replies.

A batch stays ``in_progress`` for :attr:`AnthropicDesk.batch_seconds` (on the server's
clock), then ends with each request ``succeeded`` — or ``errored`` for the requests
:attr:`AnthropicDesk.fail_request` picks (with its message), or ``expired`` for those
:attr:`AnthropicDesk.expire_request` picks. A batch's ``created_at`` is the wall clock's.
"""

from __future__ import annotations

import itertools
import json
import threading
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from ragjudge.testing._batches import Answer
from ragjudge.testing._wire import error_response

BATCHES = ["messages", "batches"]


class AnthropicDesk:
    """Messages and message batches of one test server (see the module docstring)."""

    def __init__(self, answer: Answer, clock: Callable[[], float]) -> None:
        self.batch_seconds = 0.0
        """Seconds a batch stays in progress before it ends."""
        self.fail_request: Callable[[dict[str, Any]], str | None] = lambda params: None
        """A request's params → the message of its ``errored`` result, or None."""
        self.expire_request: Callable[[dict[str, Any]], bool] = lambda params: False
        """A request's params → whether it ends ``expired``."""
        self.created = 0
        """Batches created."""
        self.requests_created = 0
        """Requests in the batches created."""
        self.lines_answered = 0
        """Requests of ended batches answered with a message (what Anthropic bills)."""
        self.messages = 0
        """Messages answered directly (``POST /v1/messages``)."""
        self._answer = answer
        self._clock = clock
        self._batches: dict[str, dict[str, Any]] = {}
        self._requests: dict[str, list[dict[str, Any]]] = {}
        self._results: dict[str, bytes] = {}
        self._ids = itertools.count(1)
        self._lock = threading.Lock()

    async def handle(self, method: str, path: str, request: Request) -> Response | None:
        """The response to a messages request; None for another path."""
        parts = path.split("/")[2:]  # after "/v1"
        if parts[:1] != ["messages"]:
            return None
        if request.headers.get("anthropic-version") is None:
            return error_response(400, "anthropic-version header is required", "invalid_request")
        if parts == ["messages"] and method == "POST":
            return await self._message(request)
        if parts == BATCHES and method == "POST":
            return await self._create(request)
        if parts == BATCHES and method == "GET":
            return self._list()
        if len(parts) == 3 and parts[:2] == BATCHES and method == "GET":
            return self._retrieve(parts[2])
        if len(parts) == 4 and parts[:2] == BATCHES and parts[3] == "results":
            return self._results_of(parts[2])
        if len(parts) == 4 and parts[:2] == BATCHES and parts[3] == "cancel" and method == "POST":
            return self._cancel(parts[2])
        return error_response(404, f"no route {method} {path}", "not_found")

    async def _message(self, request: Request) -> Response:
        params = await _json(request)
        if params is None or not isinstance(params.get("messages"), list):
            return error_response(400, "a JSON body with messages", "invalid_request_error")
        self.messages += 1
        return JSONResponse(self._message_of(params))

    def _message_of(self, params: dict[str, Any]) -> dict[str, Any]:
        """The message the server answers ``params`` with, from its chat answer."""
        messages = list(params["messages"])
        if params.get("system"):
            messages.insert(0, {"role": "system", "content": params["system"]})
        completion = self._answer({"model": params.get("model"), "messages": messages})
        usage = completion.get("usage", {})
        return {
            "id": f"msg_test_{next(self._ids)}",
            "type": "message",
            "role": "assistant",
            "model": completion.get("model"),
            "content": [{"type": "text", "text": completion["choices"][0]["message"]["content"]}],
            "stop_reason": "end_turn",
            "usage": {
                "input_tokens": usage.get("prompt_tokens", 0),
                "output_tokens": usage.get("completion_tokens", 0),
            },
        }

    async def _create(self, request: Request) -> Response:
        body = await _json(request)
        requests = body.get("requests") if body is not None else None
        if not isinstance(requests, list) or not requests:
            return error_response(400, "a JSON body with requests", "invalid_request_error")
        with self._lock:
            batch_id = f"msgbatch_test_{next(self._ids)}"
            self._requests[batch_id] = requests
            self._batches[batch_id] = {
                "id": batch_id,
                "type": "message_batch",
                "processing_status": "in_progress",
                "request_counts": _counts(processing=len(requests)),
                "created_at": datetime.now(UTC).isoformat(),
                "ended_at": None,
                "results_url": None,
                "ends_at": self._clock() + self.batch_seconds,
            }
            self.created += 1
            self.requests_created += len(requests)
        return JSONResponse(self._public(batch_id))

    def _retrieve(self, batch_id: str) -> Response:
        with self._lock:
            batch = self._batches.get(batch_id)
            if batch is None:
                return error_response(404, f"no batch {batch_id}", "not_found_error")
            if batch["processing_status"] != "ended" and self._clock() >= batch["ends_at"]:
                self._end(batch)
            return JSONResponse(self._public(batch_id))

    def _list(self) -> Response:
        with self._lock:
            data = [self._public(batch_id) for batch_id in reversed(self._batches)]
        return JSONResponse({"data": data, "has_more": False})

    def _results_of(self, batch_id: str) -> Response:
        content = self._results.get(batch_id)
        if content is None:
            return error_response(404, f"batch {batch_id} has no results yet", "not_found_error")
        return Response(content, media_type="application/binary")

    def _cancel(self, batch_id: str) -> Response:
        with self._lock:
            batch = self._batches.get(batch_id)
            if batch is None:
                return error_response(404, f"no batch {batch_id}", "not_found_error")
            if batch["processing_status"] == "in_progress":
                batch["processing_status"] = "canceling"
                batch["ends_at"] = self._clock()
                batch["cancelled"] = True
            return JSONResponse(self._public(batch_id))

    def _public(self, batch_id: str) -> dict[str, Any]:
        hidden = ("ends_at", "cancelled")
        return {k: v for k, v in self._batches[batch_id].items() if k not in hidden}

    def _end(self, batch: dict[str, Any]) -> None:
        """Answer every request of ``batch`` (called with the lock held)."""
        lines: list[str] = []
        counts = _counts()
        for each in self._requests[batch["id"]]:
            result = self._result(each.get("params") or {}, bool(batch.get("cancelled")))
            counts[result["type"]] += 1
            lines.append(json.dumps({"custom_id": each.get("custom_id"), "result": result}))
        batch_id = batch["id"]
        self._results[batch_id] = ("\n".join(lines) + "\n").encode("utf-8")
        batch["processing_status"] = "ended"
        batch["request_counts"] = counts
        batch["ended_at"] = datetime.now(UTC).isoformat()
        batch["results_url"] = f"/v1/messages/batches/{batch_id}/results"

    def _result(self, params: dict[str, Any], cancelled: bool) -> dict[str, Any]:
        if cancelled:
            return {"type": "canceled"}
        if self.expire_request(params):
            return {"type": "expired"}
        failure = self.fail_request(params)
        if failure is not None:
            error = {"type": "invalid_request_error", "message": failure}
            return {"type": "errored", "error": {"type": "error", "error": error}}
        self.lines_answered += 1
        return {"type": "succeeded", "message": self._message_of(params)}


def _counts(processing: int = 0) -> dict[str, int]:
    return {"processing": processing, "succeeded": 0, "errored": 0, "canceled": 0, "expired": 0}


async def _json(request: Request) -> dict[str, Any] | None:
    try:
        body = json.loads(await request.body())
    except ValueError:
        return None
    return body if isinstance(body, dict) else None

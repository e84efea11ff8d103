"""The Batch API of the test server: ``/v1/files`` (upload, content) and
``/v1/batches`` (create with metadata, retrieve, list, cancel), answered from the server's scripted replies.

A batch stays ``in_progress`` for :attr:`BatchDesk.batch_seconds` (on the server's
clock), then ends ``completed`` with each line answered as ``/v1/chat/completions``
would answer it — or ``expired`` without answers, for the next
:attr:`BatchDesk.expire_next` batches created.
:attr:`BatchDesk.fail_line` picks lines (by their request body) that go to the error
file instead, with the message it returns.
"""

from __future__ import annotations

import itertools
import json
import threading
import time
from collections.abc import Callable
from email.parser import BytesParser
from email.policy import HTTP
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from ragjudge.testing._wire import error_response

Answer = Callable[[dict[str, Any]], dict[str, Any]]
"""A chat request body → the chat completion the server answers it with."""


class BatchDesk:
    """Files and batches of one test server (see the module docstring)."""

    def __init__(self, answer: Answer, clock: Callable[[], float]) -> None:
        self.batch_seconds = 0.0
        """Seconds a batch stays in progress before it ends."""
        self.expire_next = 0
        """How many of the next batches created end ``expired``, with no line answered."""
        self.fail_line: Callable[[dict[str, Any]], str | None] = lambda body: None
        """A request body → an error message to put in the error file, or None."""
        self.created = 0
        """Batches created."""
        self.sizes: list[int] = []
        """Requests in each batch created, in the order they were created."""
        self.lines_answered = 0
        """Lines of ended batches answered with a reply (what a provider bills)."""
        self.retrievals = 0
        """Looks at a batch (``GET /v1/batches/{id}``)."""
        self._answer = answer
        self._clock = clock
        self._files: dict[str, bytes] = {}
        self._batches: dict[str, dict[str, Any]] = {}
        self._ids = itertools.count(1)
        self._lock = threading.Lock()

    async def handle(self, method: str, path: str, request: Request) -> Response | None:
        """The response to a files or batches request; None for another path."""
        parts = path.split("/")[2:]  # after "/v1"
        if parts == ["files"] and method == "POST":
            return await self._upload(request)
        if len(parts) == 3 and parts[0] == "files" and parts[2] == "content" and method == "GET":
            return self._content(parts[1])
        if parts == ["batches"] and method == "POST":
            return await self._create(request)
        if parts == ["batches"] and method == "GET":
            return self._list()
        if len(parts) == 2 and parts[0] == "batches" and method == "GET":
            return self._retrieve(parts[1])
        if len(parts) == 3 and parts[0] == "batches" and parts[2] == "cancel" and method == "POST":
            return self._cancel(parts[1])
        if parts and parts[0] in ("files", "batches"):
            return error_response(404, f"no route {method} {path}", "not_found")
        return None

    def batch(self, batch_id: str) -> dict[str, Any]:
        """A copy of batch ``batch_id`` as the server holds it."""
        with self._lock:
            return dict(self._batches[batch_id])

    # files -----------------------------------------------------------------

    async def _upload(self, request: Request) -> Response:
        content_type = request.headers.get("content-type", "")
        head = f"Content-Type: {content_type}\r\n\r\n".encode()
        message = BytesParser(policy=HTTP).parsebytes(head + await request.body())
        fields: dict[str, bytes] = {}
        for part in message.iter_parts() if message.is_multipart() else ():
            name = part.get_param("name", header="content-disposition")
            payload = part.get_payload(decode=True)
            if isinstance(name, str) and isinstance(payload, bytes):
                fields[name] = payload
        if fields.get("purpose") != b"batch" or "file" not in fields:
            return error_response(400, "a form with purpose=batch and a file", "invalid_request")
        file_id = self._store_file(fields["file"])
        return JSONResponse({"id": file_id, "object": "file", "purpose": "batch"})

    def _store_file(self, content: bytes) -> str:
        with self._lock:
            file_id = f"file-test-{next(self._ids)}"
            self._files[file_id] = content
        return file_id

    def _content(self, file_id: str) -> Response:
        content = self._files.get(file_id)
        if content is None:
            return error_response(404, f"no file {file_id}", "not_found")
        return Response(content, media_type="application/jsonl")

    # batches ---------------------------------------------------------------

    async def _create(self, request: Request) -> Response:
        try:
            body = json.loads(await request.body())
        except ValueError:
            return error_response(400, "request body is not valid JSON", "invalid_request_error")
        file_id = body.get("input_file_id") if isinstance(body, dict) else None
        if file_id not in self._files or body.get("endpoint") != "/v1/chat/completions":
            return error_response(400, "an uploaded input_file_id and endpoint", "invalid_request")
        with self._lock:
            batch_id = f"batch-test-{next(self._ids)}"
            self._batches[batch_id] = {
                "id": batch_id,
                "object": "batch",
                "status": "in_progress",
                "input_file_id": file_id,
                "endpoint": body["endpoint"],
                "completion_window": body.get("completion_window"),
                "output_file_id": None,
                "error_file_id": None,
                "ends_at": self._clock() + self.batch_seconds,
                "expires": self.expire_next > 0,
                "metadata": body.get("metadata"),
                "created_at": int(time.time()),
            }
            self.expire_next = max(0, self.expire_next - 1)
            self.created += 1
            self.sizes.append(len(self._files[file_id].splitlines()))
        return JSONResponse(self._public(batch_id))

    def _retrieve(self, batch_id: str) -> Response:
        if batch_id not in self._batches:
            return error_response(404, f"no batch {batch_id}", "not_found")
        with self._lock:
            self.retrievals += 1
            batch = self._batches[batch_id]
            if batch["status"] == "in_progress" and self._clock() >= batch["ends_at"]:
                self._end(batch)
        return JSONResponse(self._public(batch_id))

    def _list(self) -> Response:
        """Every batch, newest first (one page: the test server keeps few)."""
        with self._lock:
            data = [self._public(batch_id) for batch_id in reversed(self._batches)]
        return JSONResponse({"object": "list", "data": data, "has_more": False})

    def _cancel(self, batch_id: str) -> Response:
        if batch_id not in self._batches:
            return error_response(404, f"no batch {batch_id}", "not_found")
        with self._lock:
            batch = self._batches[batch_id]
            if batch["status"] == "in_progress":
                batch["status"] = "cancelled"
        return JSONResponse(self._public(batch_id))

    def _public(self, batch_id: str) -> dict[str, Any]:
        hidden = ("ends_at", "expires")
        return {k: v for k, v in self._batches[batch_id].items() if k not in hidden}

    def _end(self, batch: dict[str, Any]) -> None:
        """Answer every line of ``batch`` (called with the lock held)."""
        if batch["expires"]:
            batch["status"] = "expired"
            return
        outputs: list[str] = []
        errors: list[str] = []
        for raw in self._files[batch["input_file_id"]].decode("utf-8").splitlines():
            line = json.loads(raw)
            failure = self.fail_line(line["body"])
            if failure is not None:
                errors.append(_error_line(line["custom_id"], failure))
                continue
            reply = self._answer(line["body"])
            self.lines_answered += 1
            response = {"status_code": 200, "request_id": line["custom_id"], "body": reply}
            outputs.append(json.dumps({"custom_id": line["custom_id"], "response": response}))
        batch["status"] = "completed"
        batch["output_file_id"] = self._file_of(outputs)
        batch["error_file_id"] = self._file_of(errors)

    def _file_of(self, lines: list[str]) -> str | None:
        if not lines:
            return None
        file_id = f"file-test-{next(self._ids)}"
        self._files[file_id] = ("\n".join(lines) + "\n").encode("utf-8")
        return file_id


def _error_line(custom_id: str, message: str) -> str:
    body = {"error": {"message": message, "type": "invalid_request_error"}}
    response = {"status_code": 400, "request_id": custom_id, "body": body}
    return json.dumps({"custom_id": custom_id, "response": response, "error": None})

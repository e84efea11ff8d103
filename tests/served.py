"""Helpers shared by the tests that run evaluations against the local test server: the
server started for a fixture, the project files of a run, what a run stored, and
replies held until the test lets them go."""

from __future__ import annotations

import asyncio
import json
import select
import sqlite3
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ragjudge.testing.server import OpenAITestServer


def running(server: OpenAITestServer) -> Iterator[OpenAITestServer]:
    """Start ``server``, yield it to the test, stop it afterwards (for fixtures)."""
    server.start()
    try:
        yield server
    finally:
        server.stop()


def write_project(tmp_path: Path, rows: list[dict[str, Any]], config_yaml: str) -> Path:
    """Write ``rows`` to ``set.jsonl`` and ``config_yaml`` to ``eval.yaml``; the config."""
    (tmp_path / "set.jsonl").write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    config = tmp_path / "eval.yaml"
    config.write_text(config_yaml)
    return config


def counts(store: Path) -> tuple[int, int, int]:
    """Outputs, scores, and distinct (sample, metric) scores stored."""
    with sqlite3.connect(store) as conn:
        outputs = conn.execute("SELECT COUNT(*) FROM outputs").fetchone()[0]
        scores = conn.execute("SELECT COUNT(*) FROM scores").fetchone()[0]
        distinct = conn.execute(
            "SELECT COUNT(*) FROM (SELECT DISTINCT request_id, metric FROM scores)"
        ).fetchone()[0]
    return outputs, scores, distinct


class PathRecorder:
    """An OpenAI-compatible stand-in that answers every POST, whatever its path —
    ``[RESULT] 3`` to a judge prompt, an answer to anything else, vectors to an
    ``input`` — and records each request's path and query string."""

    def __init__(self) -> None:
        from starlette.applications import Starlette
        from starlette.routing import Route

        self.requests: list[tuple[str, str]] = []
        self.app = Starlette(routes=[Route("/{path:path}", self.answer, methods=["POST"])])

    async def answer(self, request: Any) -> Any:
        from starlette.responses import JSONResponse

        self.requests.append((request.url.path, request.url.query))
        body = await request.json()
        if "input" in body:
            vectors = [{"index": i, "embedding": [1.0, 0.0]} for i in range(len(body["input"]))]
            return JSONResponse({"data": vectors, "model": "e"})
        prompt = json.dumps(body.get("messages"))
        content = "Feedback: fine. [RESULT] 3" if "[RESULT]" in prompt else "SQL is a language."
        choice = {"index": 0, "message": {"role": "assistant", "content": content}}
        return JSONResponse({"choices": [choice], "model": "m", "usage": {"prompt_tokens": 1}})


class HeldReplies:
    """Takes the place of the test server's latency: the first ``free`` requests are
    answered at once, the later ones only after :meth:`release` — so a run cannot finish,
    and has requests out, when the test stops it. :meth:`wait_held` waits until the
    server holds so many (without sleeping or reading a clock)."""

    def __init__(self, server: OpenAITestServer, free: int) -> None:
        self.free = free
        self.seen = 0
        self.held = 0
        self._changed = threading.Condition()
        self._released = False
        self._gate: tuple[asyncio.AbstractEventLoop, asyncio.Event] | None = None
        server._injector.sleep_latency = self  # type: ignore[method-assign]

    async def __call__(self) -> None:
        with self._changed:
            self.seen += 1
            if self.seen <= self.free or self._released:
                return
            if self._gate is None:  # the server's own loop, in its thread
                self._gate = (asyncio.get_running_loop(), asyncio.Event())
            gate = self._gate[1]
            self.held += 1
            self._changed.notify_all()
        await gate.wait()

    def wait_held(self, count: int) -> None:
        """Return once ``count`` requests are held (a run that never sends them fails
        the test after two minutes: a safety net, not a measure)."""
        with self._changed:
            held = self._changed.wait_for(lambda: self.held >= count, timeout=120)
        assert held, f"the server holds {self.held} requests, not {count}"

    def release(self) -> None:
        """Answer the held requests, and every later one at once."""
        with self._changed:
            self._released = True
            gate = self._gate
        if gate is not None:
            loop, event = gate
            loop.call_soon_threadsafe(event.set)


def said_it_waits(process: subprocess.Popen[bytes]) -> bytes:
    """Standard error of a run up to its notice that it waits for the replies already
    sent (a run that never says so fails the test after two minutes)."""
    assert process.stderr is not None
    said = b""
    while b"already sent" not in said:
        ready, _, _ = select.select([process.stderr], [], [], 120)
        line = process.stderr.readline() if ready else b""
        assert line, f"the run did not say it waits for the replies: {said!r}"
        said += line
    return said

"""The test server's Batch API over HTTP: a file uploaded as a form, a batch in progress
until its time has passed on the server's clock, then its output and error files, line by
line with their ``custom_id``; cancelling; unknown ids answered 404."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx2
import pytest

from ragjudge.models.scripted import ReplyScript
from ragjudge.testing.server import OpenAITestServer
from served import running
from virtual_time import ManualClock


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


@pytest.fixture
def server(clock: ManualClock) -> Iterator[OpenAITestServer]:
    script = ReplyScript(rules=[(r"capital", "Paris")], default="OK")
    yield from running(OpenAITestServer(replies=script, clock=clock))


def line(custom_id: str, prompt: str) -> dict[str, Any]:
    body = {"model": "test-model", "messages": [{"role": "user", "content": prompt}]}
    return {"custom_id": custom_id, "method": "POST", "url": "/v1/chat/completions", "body": body}


def create(client: httpx2.Client, lines: list[dict[str, Any]]) -> str:
    content = "\n".join(json.dumps(each) for each in lines).encode()
    uploaded = client.post(
        "/files", data={"purpose": "batch"}, files={"file": ("in.jsonl", content)}
    )
    assert uploaded.status_code == 200, uploaded.text
    created = client.post(
        "/batches",
        json={
            "input_file_id": uploaded.json()["id"],
            "endpoint": "/v1/chat/completions",
            "completion_window": "24h",
        },
    )
    assert created.status_code == 200, created.text
    assert created.json()["status"] == "in_progress"
    return str(created.json()["id"])


def file_lines(client: httpx2.Client, file_id: str) -> dict[str, dict[str, Any]]:
    content = client.get(f"/files/{file_id}/content")
    assert content.status_code == 200
    return {each["custom_id"]: each for each in map(json.loads, content.text.splitlines())}


def test_a_batch_ends_after_its_time_with_each_line_answered(
    server: OpenAITestServer, clock: ManualClock
) -> None:
    server.batches.batch_seconds = 60.0
    server.batches.fail_line = lambda body: "too long" if "long" in str(body) else None
    with httpx2.Client(base_url=server.base_url) as client:
        batch_id = create(
            client,
            [line("a", "capital of France?"), line("b", "hello"), line("c", "a long one")],
        )
        assert client.get(f"/batches/{batch_id}").json()["status"] == "in_progress"
        assert server.batches.lines_answered == 0
        clock.now = 60.0
        ended = client.get(f"/batches/{batch_id}").json()
        outputs = file_lines(client, ended["output_file_id"])
        errors = file_lines(client, ended["error_file_id"])
    assert ended["status"] == "completed"
    replies = {
        k: v["response"]["body"]["choices"][0]["message"]["content"] for k, v in outputs.items()
    }
    assert replies == {"a": "Paris", "b": "OK"}
    assert errors["c"]["response"]["status_code"] == 400
    assert errors["c"]["response"]["body"]["error"]["message"] == "too long"
    assert server.batches.lines_answered == 2


def test_a_cancelled_batch_answers_nothing(server: OpenAITestServer, clock: ManualClock) -> None:
    server.batches.batch_seconds = 60.0
    with httpx2.Client(base_url=server.base_url) as client:
        batch_id = create(client, [line("a", "hello")])
        cancelled = client.post(f"/batches/{batch_id}/cancel").json()
        clock.now = 120.0
        later = client.get(f"/batches/{batch_id}").json()
    assert cancelled["status"] == later["status"] == "cancelled"
    assert later["output_file_id"] is None and server.batches.lines_answered == 0


def test_unknown_batches_and_files_are_not_found(server: OpenAITestServer) -> None:
    with httpx2.Client(base_url=server.base_url) as client:
        assert client.get("/batches/batch-none").status_code == 404
        assert client.get("/files/file-none/content").status_code == 404
        bad = client.post("/files", data={"purpose": "fine-tune"}, files={"file": ("x", b"{}")})
        assert bad.status_code == 400

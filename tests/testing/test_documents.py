"""The test server's schema mode, over real HTTP: a request with a reply schema is
answered with a document valid against it (the scripted reply's, else one built from
the schema), and a server told to refuse schemas answers 400 as an endpoint without
structured outputs does."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any, Literal

import httpx2
import pytest
from pydantic import BaseModel, Field

from ragjudge.models._constrained import schema_check
from ragjudge.models.scripted import ReplyScript
from ragjudge.testing import OpenAITestServer
from ragjudge.testing._documents import document_for

CHAT = "/chat/completions"


class Item(BaseModel):
    reason: str = Field(min_length=30)
    verdict: Literal["yes", "no"]


class Verdicts(BaseModel):
    verdicts: list[Item] = Field(min_length=2)
    score: float = Field(gt=0, lt=1)
    note: str | None = None


SCHEMA = Verdicts.model_json_schema()
FITTING = {"verdicts": [{"reason": "r" * 30, "verdict": "no"}] * 2, "score": 0.25, "note": None}


def body(content: str, schema: dict[str, Any] | None = SCHEMA, **extra: Any) -> dict[str, Any]:
    found: dict[str, Any] = {"model": "judge-x", "messages": [{"role": "user", "content": content}]}
    if schema is not None:
        found["response_format"] = {
            "type": "json_schema",
            "json_schema": {"name": "Verdicts", "schema": schema},
        }
    return {**found, **extra}


@asynccontextmanager
async def serving(**options: Any) -> AsyncIterator[tuple[OpenAITestServer, httpx2.AsyncClient]]:
    replies = ReplyScript(
        rules=[("fits", f"My verdicts:\n```json\n{json.dumps(FITTING)}\n```")],
        default="I cannot decide.",
    )
    async with (
        OpenAITestServer(replies=replies, **options) as server,
        httpx2.AsyncClient(base_url=server.base_url, timeout=30.0) as client,
    ):
        yield server, client


def content_of(response: httpx2.Response) -> str:
    assert response.status_code == 200, response.text
    text: str = response.json()["choices"][0]["message"]["content"]
    return text


async def test_a_schema_request_gets_the_scripted_document_alone() -> None:
    async with serving() as (server, client):
        reply = content_of(await client.post(CHAT, json=body("fits")))

    assert json.loads(reply) == FITTING
    assert not reply.startswith("My verdicts")
    assert server.stats.schema_replies == 1 and server.stats.completions == 1


async def test_without_a_scripted_document_the_reply_is_built_from_the_schema() -> None:
    async with serving() as (server, client):
        response = await client.post(CHAT, json=body("anything", n=2))
        as_text = content_of(await client.post(CHAT, json=body("anything", schema=None)))

    replies = [choice["message"]["content"] for choice in response.json()["choices"]]
    assert len(replies) == 2
    for reply in replies:
        assert schema_check(SCHEMA)(json.loads(reply))
        Verdicts.model_validate_json(reply)
    assert as_text == "I cannot decide."
    assert server.stats.schema_replies == 2  # one per choice


async def test_a_server_told_to_refuse_schemas_answers_400_naming_response_format() -> None:
    async with serving(refuse_schemas=True) as (server, client):
        refused = await client.post(CHAT, json=body("fits"))
        plain = await client.post(CHAT, json=body("fits", schema=None))
        server.refuse_schemas = False
        accepted = await client.post(CHAT, json=body("fits"))

    assert refused.status_code == 400
    assert "'response_format' of type 'json_schema'" in refused.json()["error"]["message"]
    assert content_of(plain).startswith("My verdicts")
    assert json.loads(content_of(accepted)) == FITTING
    assert server.stats.schema_refusals == 1
    assert server.stats.requests == 3 and len(server.requests_log) == 3


@pytest.mark.parametrize(
    "response_format",
    [
        "json",
        {"type": "xml"},
        {"type": "json_schema"},
        {"type": "json_schema", "json_schema": {"schema": SCHEMA}},
        {"type": "json_schema", "json_schema": {"name": "v", "schema": "object"}},
        {"type": "json_schema", "json_schema": {"name": "v", "schema": {"type": "thing"}}},
    ],
)
async def test_a_malformed_response_format_gets_400(response_format: Any) -> None:
    async with serving() as (server, client):
        response = await client.post(
            CHAT, json={**body("fits", schema=None), "response_format": response_format}
        )

    assert response.status_code == 400
    assert "response_format" in response.json()["error"]["message"]
    assert server.stats.completions == 0


async def test_a_schema_no_document_can_be_built_for_gets_400() -> None:
    pattern = {"type": "object", "properties": {"id": {"type": "string", "pattern": "^[0-9]+$"}}}
    pattern["required"] = ["id"]
    async with serving() as (_, client):
        response = await client.post(CHAT, json=body("anything", schema=pattern))

    assert response.status_code == 400
    assert "json_schema" in response.json()["error"]["message"]


def test_a_built_document_takes_every_property_and_the_middle_of_the_bounds() -> None:
    built = document_for(SCHEMA)

    assert built == {
        "verdicts": [{"reason": "(test server)".ljust(30, "."), "verdict": "yes"}] * 2,
        "score": 0.5,
        "note": "(test server)",  # the first choice of ``str | None``
    }
    assert schema_check(SCHEMA)(built)

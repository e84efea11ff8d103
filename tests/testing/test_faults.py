"""The garbled-reply fault: the ways a judge writing free text spoils its reply, drawn
per reply by the seeded plan or queued exactly; a reply kept to a schema and an
embedding are never spoiled."""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

import httpx2
import pytest
from pydantic import ValidationError

from ragjudge.models.scripted import ReplyScript
from ragjudge.testing import FaultPlan, OpenAITestServer
from ragjudge.testing._faults import GARBLINGS, garbled

CHAT = "/chat/completions"
VERDICT = '{"explanation": "It answers the question.", "rating": 4}'
SCHEMA = {
    "type": "object",
    "properties": {"explanation": {"type": "string"}, "rating": {"type": "integer"}},
    "required": ["explanation", "rating"],
}


def chat(schema: dict[str, Any] | None = None) -> dict[str, Any]:
    body: dict[str, Any] = {"messages": [{"role": "user", "content": "Rate it."}]}
    if schema is not None:
        body["response_format"] = {
            "type": "json_schema",
            "json_schema": {"name": "verdict", "schema": schema},
        }
    return body


def content(response: httpx2.Response) -> str:
    assert response.status_code == 200, response.text
    text: str = response.json()["choices"][0]["message"]["content"]
    return text


@pytest.mark.parametrize(
    ("how", "spoiled"),
    [
        ("cut short", VERDICT[: len(VERDICT) // 2]),
        ("chatty", f"Sure! Here is my assessment.\n{VERDICT}\nI hope this helps."),
        ("fenced", f"```json\n{VERDICT}\n```"),
        ("single quotes", VERDICT.replace('"', "'")),
        ("repeated", f"{VERDICT}\n\nTo restate my answer:\n{VERDICT}"),
    ],
)
def test_each_way_of_spoiling_a_reply(how: str, spoiled: str) -> None:
    assert garbled(VERDICT, how) == spoiled


def test_an_unknown_way_is_refused() -> None:
    with pytest.raises(ValueError, match="cut short"):
        garbled(VERDICT, "reversed")


async def test_a_queued_garbled_reply_is_spoiled_once_and_schema_replies_never() -> None:
    async with (
        OpenAITestServer(replies=ReplyScript(default=VERDICT)) as server,
        httpx2.AsyncClient(base_url=server.base_url, timeout=30.0) as client,
    ):
        server.fail_next("garbled", count=3)
        spoiled = content(await client.post(CHAT, json=chat()))
        kept = content(await client.post(CHAT, json=chat(SCHEMA)))
        embedded = await client.post("/embeddings", json={"input": "text"})
        healthy = content(await client.post(CHAT, json=chat()))

    assert spoiled != VERDICT and spoiled in {garbled(VERDICT, how) for how in GARBLINGS}
    assert json.loads(kept) == json.loads(VERDICT)
    assert embedded.status_code == 200 and len(embedded.json()["data"]) == 1
    assert healthy == VERDICT
    assert server.stats.garbled == 1 and server.stats.schema_replies == 1


async def test_drawn_garbled_replies_use_every_way_and_repeat_with_the_seed() -> None:
    async def draw() -> list[str]:
        plan = FaultPlan(garbled_rate=0.5, seed=3)
        async with (
            OpenAITestServer(replies=ReplyScript(default=VERDICT), faults=plan) as server,
            httpx2.AsyncClient(base_url=server.base_url, timeout=30.0) as client,
        ):
            return [content(await client.post(CHAT, json=chat())) for _ in range(60)]

    first, second = await draw(), await draw()

    assert first == second
    ways = Counter(
        next((how for how in GARBLINGS if reply == garbled(VERDICT, how)), "kept")
        for reply in first
    )
    assert set(ways) == {*GARBLINGS, "kept"}


def test_the_garbled_rate_counts_toward_the_sum_of_rates() -> None:
    with pytest.raises(ValidationError):
        FaultPlan(error_500_rate=0.5, garbled_rate=0.6)

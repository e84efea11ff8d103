"""The run's judge-call records (``run/_judging.py``, :class:`StoreRecorder`): calls in
flight together share transactions, every record is complete and masked, and a call's
record is on disk before its request reaches the server."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from pathlib import Path

from ragjudge._util.known_secrets import register_secrets
from ragjudge.config import JudgeConfig
from ragjudge.models import ChatMessage, GenerateConfig, Generation, JudgeModel, ModelSettings
from ragjudge.models.scripted import ReplyScript, ScriptedProvider, prompt_text
from ragjudge.run._judging import build_judge, store_recorder
from ragjudge.store._judge_calls import IN_FLIGHT
from ragjudge.store._store import Store
from ragjudge.testing.server import OpenAITestServer

SECRET = "sk-recorded-9f8e7d6c5b4a"
CALLS = 64


def commits_of(store: Store) -> list[str]:
    """The COMMIT statements the store's connection runs from now on."""
    seen: list[str] = []

    def trace(sql: str) -> None:
        if sql.strip().upper().startswith("COMMIT"):
            seen.append(sql)

    store._conn.set_trace_callback(trace)
    return seen


def question(i: int) -> list[ChatMessage]:
    return [{"role": "user", "content": f"question {i} with the key {SECRET}"}]


async def test_calls_in_flight_together_share_transactions_and_are_stored_whole(
    tmp_path: Path,
) -> None:
    register_secrets([SECRET])
    script = ReplyScript(function=lambda messages: "answer to " + prompt_text(messages)[:11])
    with Store(tmp_path / "runs.db", write=True) as store:
        commits = commits_of(store)
        judge = JudgeModel(
            ScriptedProvider(script),
            settings=ModelSettings(max_concurrency=CALLS, cache=False),
            recorder=store_recorder(store, "run"),
        )
        replies = await asyncio.gather(
            *(judge.generate(question(i), purpose="check") for i in range(CALLS))
        )
        store._conn.set_trace_callback(None)
        calls = store.judge_calls("run")
    # each call is written twice (in flight, then ended): 128 transactions one by one
    assert 0 < len(commits) < CALLS
    assert len(calls) == CALLS and calls["error"].isna().all()
    assert sorted(calls["text"]) == sorted(reply.text for reply in replies)
    assert sorted(calls["text"]) == sorted(f"answer to question {i:<2}" for i in range(CALLS))
    assert (calls["purpose"] == "check").all() and (calls["attempts"] == 1).all()
    contents = [json.loads(text)[0]["content"] for text in calls["messages_json"]]
    assert sorted(contents) == sorted(f"question {i} with the key ***" for i in range(CALLS))


def stored_rows(path: Path) -> list[tuple[str, str | None]]:
    """(messages, error) of every judge call, read by a connection of its own."""
    with sqlite3.connect(path) as conn:
        return conn.execute("SELECT messages_json, error FROM judge_calls").fetchall()


def server_checking(path: Path, seen: list[bool]) -> OpenAITestServer:
    """A test server that, as each request arrives, looks in the store at ``path`` for
    the call's record, in flight (appending to ``seen`` whether it is there)."""

    def reply(messages: list[ChatMessage]) -> str:
        content = messages[0]["content"]
        seen.append(
            any(
                json.loads(text)[0]["content"] == content and error == IN_FLIGHT
                for text, error in stored_rows(path)
            )
        )
        return "OK"

    return OpenAITestServer(replies=ReplyScript(function=reply))


async def test_a_calls_record_is_on_disk_before_its_request_reaches_the_server(
    tmp_path: Path,
) -> None:
    path = tmp_path / "runs.db"
    seen: list[bool] = []
    with server_checking(path, seen) as server, Store(path, write=True) as store:
        config = JudgeConfig(model="openai/test-model", base_url=server.base_url)
        judge = build_judge(config, store, "run")
        assert judge is not None
        await asyncio.gather(*(judge.generate(question(i)) for i in range(16)))
        await judge.aclose()
        calls = store.judge_calls("run")
    assert seen == [True] * 16
    assert len(calls) == 16 and calls["error"].isna().all() and (calls["text"] == "OK").all()


class HeldProvider:
    """Answers "OK" once ``release`` is set."""

    name = "scripted"
    model = "held"

    def __init__(self) -> None:
        self.release = asyncio.Event()

    async def complete(self, messages: list[ChatMessage], config: GenerateConfig) -> Generation:
        await self.release.wait()
        return Generation(text="OK", model=self.model)


async def test_a_caller_cancelled_while_its_record_is_written_leaves_it_interrupted(
    tmp_path: Path,
) -> None:
    # A lone call's record is written at once; that of a second call in flight is
    # queued for the next turn of the loop, and its caller is cancelled meanwhile.
    with Store(tmp_path / "runs.db", write=True) as store:
        provider = HeldProvider()
        judge = JudgeModel(provider, recorder=store_recorder(store, "run"))
        first = asyncio.ensure_future(judge.generate(question(0)))
        await asyncio.sleep(0)  # stored at once, its request waits for the release
        second = asyncio.ensure_future(judge.generate(question(1)))
        await asyncio.sleep(0)  # its record is queued, not yet committed
        second.cancel()
        await asyncio.gather(second, return_exceptions=True)
        provider.release.set()
        assert (await first).text == "OK"
        for _ in range(3):  # the completion queued once the second record was stored
            await asyncio.sleep(0)
        calls = store.judge_calls("run")
    assert len(calls) == 2 and calls["text"].iloc[0] == "OK"
    assert calls["error"].iloc[1].startswith("interrupted before a request was in flight")

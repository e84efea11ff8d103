"""The parts of ``paced_runs.py``: its two workloads (rows, metrics, the judge's
replies), the test server in a process of its own, the judge calls a run recorded, the
floor they allow, and the bare client that replays them."""

from __future__ import annotations

import asyncio
import json
import math
import re
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any

import httpx2

from ragjudge.models.scripted import prompt_text

LATENCY = 0.5
"""Seconds the server takes to answer each request."""
WINDOW = 60.0
"""The server counts ``rpm`` per sliding window of this many seconds."""
BARE_CONNECTIONS = 32
TAG = re.compile(r"\[s(\d{3})\]")
"""Every row's texts carry ``[sNNN]``, so each recorded call names its sample."""
CHAIN_OF_PURPOSE = {
    "ragas.statements": "faithfulness",
    "faithfulness.verdicts": "faithfulness",
    "embeddings": "answer_relevancy",
}
"""Calls that wait for an earlier call of the same sample: one chain per metric."""
SUITE_METRICS: list[str | dict[str, str]] = [
    "faithfulness",
    "context_precision",
    "context_recall",
    {"metric": "answer_relevancy", "embedding": "openai/embed"},
]


def tag(i: int) -> str:
    return f"[s{i:03d}]"


def one_metric_rows(n: int) -> list[dict[str, Any]]:
    return [
        {"request_id": f"q{i:03d}", "request": f"question {i} {tag(i)}",
         "response": f"answer {i} {tag(i)}", "expected_response": f"reference {i} {tag(i)}"}
        for i in range(n)
    ]  # fmt: skip


def suite_rows(n: int) -> list[dict[str, Any]]:
    """RAG rows whose every text names its sample, so no two samples share a prompt."""
    return [
        {
            "request_id": f"q{i:03d}",
            "request": f"What does UNION do? {tag(i)}",
            "response": f"UNION removes duplicate rows {tag(i)}. It sorts the result.",
            "expected_response": f"UNION combines results and removes duplicates {tag(i)}.",
            "retrieved_context": [
                {"doc_uri": "union.md", "content": f"UNION removes duplicate rows {tag(i)}."},
                {"doc_uri": "sort.md", "content": f"UNION sorts the combined result {tag(i)}."},
            ],
        }
        for i in range(n)
    ]


def one_metric_reply(messages: list[dict[str, object]]) -> str:
    return "Feedback: fine. [RESULT] 4"


def suite_reply(messages: list[dict[str, object]]) -> str:
    """What a judge answers to each kind of prompt of the RAG suite, naming the sample."""
    prompt = prompt_text(messages)
    found = TAG.search(prompt)
    mark = found.group(0) if found else ""
    if prompt.startswith("You break an answer into statements."):
        return json.dumps({"statements": [f"UNION removes duplicate rows {mark}.", "It sorts."]})
    if prompt.startswith("You write the questions"):
        questions = [f"What does UNION do {mark} ({k})?" for k in range(3)]
        return json.dumps({"questions": questions, "noncommittal": 0})
    if "BEGIN STATEMENT" in prompt or "BEGIN SENTENCE" in prompt or "BEGIN CONTEXT" in prompt:
        items = len(re.findall(r"<<<BEGIN (?:STATEMENT|SENTENCE) \d+>>>", prompt))
        if not items:
            items = len(re.findall(r"<<<BEGIN CONTEXT \d+", prompt))
        return json.dumps({"verdicts": [{"reason": "r", "verdict": "yes"}] * items})
    return "OK"


REPLIES: dict[str, Callable[[list[dict[str, object]]], str]] = {
    "one-metric": one_metric_reply,
    "rag-suite": suite_reply,
}


@dataclass(frozen=True)
class ServerRules:
    """How a fresh test server answers."""

    workload: str
    latency: float
    rpm: int | None
    error_rate: float
    seed: int


class ServerProcess:
    """``_paced_server.py`` in a child process: ``base_url`` once entered, ``stats()``."""

    def __init__(self, rules: ServerRules) -> None:
        command = [sys.executable, str(Path(__file__).with_name("_paced_server.py")), "--serve",
                   "--workload", rules.workload, "--latency", str(rules.latency),
                   "--error-rate", str(rules.error_rate), "--seed", str(rules.seed)]  # fmt: skip
        if rules.rpm is not None:
            command += ["--rpm", str(rules.rpm)]
        self._process = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )
        self.base_url = self._read_line()

    def _read_line(self) -> str:
        assert self._process.stdout is not None
        line = self._process.stdout.readline()
        if not line:
            raise RuntimeError("the test server process ended before answering")
        return line.strip()

    def stats(self) -> dict[str, Any]:
        """The server's counters now (requests, rate_limited_by_rpm, status_counts)."""
        assert self._process.stdin is not None
        self._process.stdin.write("stats\n")
        self._process.stdin.flush()
        counters: dict[str, Any] = json.loads(self._read_line())
        return counters

    def __enter__(self) -> ServerProcess:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        assert self._process.stdin is not None
        self._process.stdin.close()
        self._process.wait(timeout=30)


@dataclass(frozen=True)
class Call:
    """One judge call a run sent to the server, as its store recorded it."""

    sample: str
    chain: str
    purpose: str
    model: str
    messages: list[dict[str, Any]]
    config: dict[str, Any]
    attempts: int


def sent_calls(store: Path) -> list[Call]:
    """The calls that reached the server (no cache hits), the pre-flight left out, in
    the order they were sent."""
    with sqlite3.connect(store) as conn:
        rows = conn.execute(
            "SELECT purpose, model, messages_json, config_json, attempts FROM judge_calls"
            " WHERE cached = 0 AND attempts > 0 AND purpose != 'preflight' ORDER BY call_id"
        ).fetchall()
    calls = []
    for purpose, model, messages_json, config_json, attempts in rows:
        found = TAG.search(messages_json)
        if found is None:  # a call of no one sample would join an unrelated chain
            raise RuntimeError(f"a recorded {purpose} call names no sample")
        sample = found.group(0)
        chain = CHAIN_OF_PURPOSE.get(purpose, purpose)
        messages = json.loads(messages_json)
        calls.append(
            Call(sample, chain, purpose, model, messages, json.loads(config_json), attempts)
        )
    return calls


def chains(calls: list[Call]) -> list[list[Call]]:
    """The calls grouped into chains: one per sample and metric, each in sending order."""
    grouped: dict[tuple[str, str], list[Call]] = {}
    for call in calls:
        grouped.setdefault((call.sample, call.chain), []).append(call)
    return list(grouped.values())


def latency_floor(calls: list[Call], latency: float = LATENCY) -> float:
    """The longest chain of requests one after another (every attempt) × the latency."""
    return max((sum(c.attempts for c in chain) for chain in chains(calls)), default=0) * latency


def window_floor(admitted: int, limit: int | None, latency: float = LATENCY) -> float:
    """The server's window lets ``limit`` requests start per sliding minute: the last
    of ``admitted`` starts ``ceil(admitted / limit) - 1`` windows after the first."""
    if limit is None or admitted == 0:
        return 0.0
    return (math.ceil(admitted / limit) - 1) * WINDOW + latency


@dataclass
class BareTally:
    """What the bare client met."""

    requests: int = 0
    refused: int = 0
    failed: int = 0


async def _send(
    client: httpx2.AsyncClient, gate: asyncio.Semaphore, call: Call, tally: BareTally
) -> None:
    """Send one call until it is answered: a 500 again at once, a 429 after its Retry-After."""
    if call.purpose == "embeddings":
        path = "/embeddings"
        body: dict[str, Any] = {"model": call.model, "input": [m["content"] for m in call.messages]}
    else:
        path = "/chat/completions"
        body = {"model": call.model, "messages": call.messages, **call.config}
    while True:
        async with gate:
            response = await client.post(path, json=body)
        tally.requests += 1
        if response.status_code == 200:
            return
        if response.status_code == 429:
            tally.refused += 1
            await asyncio.sleep(float(response.headers.get("retry-after", "1")))
        elif response.status_code >= 500:
            tally.failed += 1
        else:
            raise RuntimeError(f"the server answered {response.status_code}: {response.text}")


async def _send_chain(
    client: httpx2.AsyncClient, gate: asyncio.Semaphore, chain: list[Call], tally: BareTally
) -> None:
    for call in chain:
        await _send(client, gate, call, tally)


async def replay(base_url: str, calls: list[Call]) -> tuple[float, BareTally]:
    """Send ``calls`` with a bare client of 32 connections, every chain at once, and
    return the wall time and what the server answered."""
    tally = BareTally()
    gate = asyncio.Semaphore(BARE_CONNECTIONS)
    limits = httpx2.Limits(max_connections=BARE_CONNECTIONS)
    async with httpx2.AsyncClient(base_url=base_url, limits=limits, timeout=120) as client:
        started = time.perf_counter()
        await asyncio.gather(*(_send_chain(client, gate, chain, tally) for chain in chains(calls)))
        return time.perf_counter() - started, tally

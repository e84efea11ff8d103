"""Secrets are never stored or echoed: the scrubbing rules, then real runs whose
store, cache, exports and CLI output are searched for a planted key."""

from __future__ import annotations

import contextlib
import json
import socket
import sqlite3
import textwrap
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Route
from typer.testing import CliRunner

from ragjudge._util.redact import (
    MASK,
    header_secrets,
    is_reference,
    is_secret_name,
    mask_record,
    scrub_text,
    scrub_url,
    url_secrets,
)
from ragjudge.cli import app
from ragjudge.models.scripted import ReplyScript
from ragjudge.store._store import Store
from ragjudge.testing import BackgroundASGIServer, OpenAITestServer

PLANTED = "sk-planted-4f2b9d71e3"


# -- the rules ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "name",
    [
        *("api_key", "apiKey", "X-Api-Key", "Authorization", "token", "access_token"),
        *("password", "client_secret", "key", "Ocp-Apim-Subscription-Key", "X-Auth-Token"),
        "Cookie",
    ],
)
def test_key_like_names(name: str) -> None:
    assert is_secret_name(name)


@pytest.mark.parametrize(
    "name",
    [
        *("api_key_env", "doc_uri_key", "content_key", "max_tokens", "token_url"),
        *("Content-Type", "model", "base_url", "query_field"),
    ],
)
def test_names_that_hold_no_secret(name: str) -> None:
    assert not is_secret_name(name)


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("http://127.0.0.1:8000/v1", "http://127.0.0.1:8000/v1"),
        (f"https://user:{PLANTED}@h/v1", "https://***@h/v1"),
        (f"https://{PLANTED}@h/v1", "https://***@h/v1"),
        (f"http://h/a?api_key={PLANTED}&lang=ja", "http://h/a?api_key=***&lang=ja"),
        (f"http://h/a?key={PLANTED}&code=c0de&sig=s1g", "http://h/a?key=***&code=***&sig=***"),
        (f"http://h/a?q=1#access_token={PLANTED}", "http://h/a?q=1#access_token=***"),
        (
            "http://h/a?token=${TOKEN}&api-version=2024",
            "http://h/a?token=${TOKEN}&api-version=2024",
        ),
        ("http://h/a?token=", "http://h/a?token="),
    ],
)
def test_urls_lose_credentials_and_key_like_values(url: str, shown: str) -> None:
    assert scrub_url(url) == shown


def test_url_and_header_secrets_are_collected_for_text_scrubbing() -> None:
    assert PLANTED in url_secrets(f"http://u:{PLANTED}@h/?x=1")
    assert PLANTED in url_secrets(f"http://h/?apikey={PLANTED}")
    assert url_secrets("http://h/?token=${TOKEN}") == []
    headers = {
        "Authorization": f"Bearer {PLANTED}",
        "X-Functions-Key": "f-key-123",
        "X-Team": "search",
        "Content-Type": "application/json",
    }
    assert header_secrets(headers) == [f"Bearer {PLANTED}", PLANTED, "f-key-123"]
    message = "HTTP 404 from http://h/search: no such route"
    assert scrub_text(message, header_secrets(headers)) == message


def test_text_loses_known_secrets_urls_bearer_tokens_and_assignments() -> None:
    quoted = PLANTED.replace("-", "%2D")
    text = (
        f"HTTP 401 from http://h/x?key={PLANTED}: invalid key {PLANTED} "
        f'({quoted}) "api_key": "{PLANTED}x" Authorization: Bearer abcdefgh123 token=zz99 '
        "max_tokens=5"
    )
    scrubbed = scrub_text(text, [PLANTED, None, "abcde"])
    assert PLANTED not in scrubbed and "abcdefgh123" not in scrubbed and "zz99" not in scrubbed
    assert "http://h/x?key=***: invalid key ***" in scrubbed
    assert "max_tokens=5" in scrubbed
    assert scrub_text("a short abcde stays", ["abcde"]) == "a short abcde stays"


def test_references_name_secrets_without_holding_them() -> None:
    assert is_reference("${KEY}") and is_reference("Bearer ${TOKEN}")
    assert is_reference("${USER}:${PASS:-x}")
    assert not is_reference("sk-${KEY}") and not is_reference("literal")


def test_records_keep_references_and_mask_the_rest() -> None:
    record = {
        "target": {
            "kind": "json_api",
            "url": f"http://h/answer?key={PLANTED}",
            "headers": {
                "X-Api-Key": "${RAG_KEY}",
                "Authorization": f"Bearer {PLANTED}",
                "X-Team": "search",
                "Content-Type": "application/json",
            },
            "api_key": PLANTED,
            "api_key_env": "RAG_KEY",
            "body_template": {"question": "{{query}}", "token": PLANTED},
        },
        "judge": {"base_url": f"https://u:{PLANTED}@judge/v1", "max_tokens": 5},
        "metrics": ["rouge_l", {"metric": "exact_match", "normalize": False}],
    }
    masked = mask_record(record)
    assert PLANTED not in str(masked)
    target = masked["target"]
    assert target["url"] == "http://h/answer?key=***"
    assert target["headers"] == {
        "X-Api-Key": "${RAG_KEY}",
        "Authorization": MASK,
        "X-Team": MASK,
        "Content-Type": "application/json",
    }
    assert target["api_key"] == MASK and target["api_key_env"] == "RAG_KEY"
    assert target["body_template"] == {"question": "{{query}}", "token": MASK}
    assert masked["judge"] == {"base_url": "https://***@judge/v1", "max_tokens": 5}
    assert masked["metrics"] == record["metrics"]


# -- real runs: the planted key is nowhere ------------------------------------------


class LeakyApp:
    """Endpoints that do their best to spread the key: they quote the credentials they
    receive in their errors, and redirect to another origin that reports the headers
    it was sent."""

    def __init__(self) -> None:
        self.collected: list[dict[str, str]] = []
        self.collector_url = ""
        self.app = Starlette(
            routes=[
                Route("/leak/v1/chat/completions", self.judge_error, methods=["POST"]),
                Route("/answer", self.target_error, methods=["POST"]),
                Route("/redirect", self.redirect, methods=["POST"]),
                Route("/collect", self.collect, methods=["POST"]),
            ]
        )

    async def judge_error(self, request: Request) -> Response:
        said = request.headers.get("authorization")
        return JSONResponse({"error": {"message": f"Incorrect API key provided: {said}"}}, 401)

    async def target_error(self, request: Request) -> Response:
        said = f"key {request.headers.get('x-api-key')} is not valid for {request.url}"
        return JSONResponse({"error": said}, 401)

    async def redirect(self, request: Request) -> Response:
        return RedirectResponse(self.collector_url, status_code=307)

    async def collect(self, request: Request) -> Response:
        self.collected.append(dict(request.headers))
        return JSONResponse({"answer": json.dumps(dict(request.headers))})


@dataclass
class Endpoints:
    judge: OpenAITestServer
    leaky: LeakyApp
    here: str
    elsewhere: str


@pytest.fixture(scope="module")
def endpoints() -> Iterator[Endpoints]:
    leaky = LeakyApp()
    verdict = "Rationale: it answers the question.\nAnswer: yes"
    replies = ReplyScript(
        rules=[(r"You judge whether a response is relevant", verdict)],
        default="Two transactions wait for each other.",
    )
    with (
        OpenAITestServer(replies=replies) as judge,
        BackgroundASGIServer(leaky.app) as here,
        BackgroundASGIServer(leaky.app) as elsewhere,
    ):
        leaky.collector_url = f"{elsewhere.url}/collect"
        yield Endpoints(judge, leaky, here.url, elsewhere.url)


ROWS = [
    {
        "request_id": "deadlock",
        "request": "What is a deadlock?",
        "response": "Two transactions wait for each other.",
        "expected_response": "Two transactions each wait for a lock the other holds.",
    },
    {
        "request_id": "mvcc",
        "request": "What is MVCC?",
        "response": "Readers see a snapshot.",
        "expected_response": "Multi-version concurrency control gives readers a snapshot.",
    },
]


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


def run_configs(endpoints: Endpoints) -> dict[str, str]:
    """One config per way the key could escape; every one shares the store."""
    judge = (
        f"judge: {{model: openai/test-model, base_url: '{endpoints.judge.base_url}', "
        "api_key_env: RJ_PLANTED_KEY, max_retries: 0}"
    )
    # no pre-flight: the judge's refusal is to reach the store (a separate run checks
    # that the pre-flight message does not hold the key either)
    failing_judge = (
        f"judge: {{model: openai/test-model, base_url: '{endpoints.here}/leak/v1', "
        "api_key_env: RJ_PLANTED_KEY, max_retries: 0, preflight: false}"
    )
    return {
        "answered": f"""
            target:
              kind: openai_chat
              base_url: {endpoints.judge.base_url}
              model: rag-model
              api_key: ${{RJ_PLANTED_KEY}}
              headers: {{X-Api-Key: "${{RJ_PLANTED_KEY}}"}}
            metrics: [relevance_to_query, rouge_l]
            {judge}
            """,
        "target_echoes_the_key": f"""
            target:
              kind: json_api
              url: {endpoints.here}/answer?key=${{RJ_PLANTED_KEY}}
              headers: {{X-Api-Key: "${{RJ_PLANTED_KEY}}", Authorization: "Bearer {PLANTED}"}}
              body_template: {{question: "{{{{query}}}}"}}
              response_path: answer
              max_retries: 0
            metrics: [rouge_l]
            """,
        "judge_echoes_the_key": f"""
            target: data
            metrics: [relevance_to_query]
            {failing_judge}
            """,
        "redirected": f"""
            target:
              kind: json_api
              url: {endpoints.here}/redirect?token=${{RJ_PLANTED_KEY}}
              headers: {{X-Api-Key: "${{RJ_PLANTED_KEY}}"}}
              body_template: {{question: "{{{{query}}}}"}}
              response_path: answer
            metrics: [rouge_l]
            """,
        "unreachable": f"""
            target:
              kind: json_api
              url: http://user:${{RJ_PLANTED_KEY}}@127.0.0.1:{closed_port()}/a?api_key=${{RJ_PLANTED_KEY}}
              method: GET
              body_template: {{q: "{{{{query}}}}", token: "${{RJ_PLANTED_KEY}}"}}
              response_path: answer
              max_retries: 0
            metrics: [rouge_l]
            """,
    }


def invoke(*args: str, exit_codes: tuple[int, ...] = (0,)) -> str:
    result = CliRunner().invoke(app, list(args))
    assert result.exit_code in exit_codes, result.output
    return result.output


def readable_store(path: Path) -> str:
    """A SQLite file as text: its raw bytes (and its write-ahead log's) and a dump of
    every table."""
    raw = b"".join(p.read_bytes() for p in (path, Path(f"{path}-wal")) if p.exists())
    with contextlib.closing(sqlite3.connect(path)) as conn:
        dump = "\n".join(conn.iterdump())
    return raw.decode("utf-8", errors="replace") + dump


def test_a_planted_key_is_in_no_store_cache_export_or_output(
    endpoints: Endpoints, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RJ_PLANTED_KEY", PLANTED)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    (tmp_path / "set.jsonl").write_text("\n".join(json.dumps(row) for row in ROWS) + "\n")
    outputs: list[str] = []
    runs: dict[str, str] = {}
    for name, body in run_configs(endpoints).items():
        config = tmp_path / f"{name}.yaml"
        config.write_text(
            f"name: {name}\ndata: set.jsonl\nstore: runs.db\n" + textwrap.dedent(body)
        )
        # the runs that fail on purpose exit 3 or 4: not every score arrived
        output = invoke("run", str(config), "--json", "--no-progress", exit_codes=(0, 3, 4))
        outputs.append(output)
        runs[name] = json.loads(output[output.index("{") :])["run_id"]
    preflight = tmp_path / "preflight.yaml"
    preflight.write_text(
        "data: set.jsonl\nstore: runs.db\n"
        + textwrap.dedent(run_configs(endpoints)["judge_echoes_the_key"]).replace(
            ", preflight: false", ""
        )
    )
    refused = invoke("run", str(preflight), "--no-progress", exit_codes=(2,))
    assert "does not answer (client)" in refused
    outputs.append(refused)
    store = tmp_path / "runs.db"
    outputs.append(invoke("runs", "--store", str(store)))
    exported: list[str] = []
    for name, run_id in runs.items():
        outputs.append(invoke("show", run_id, "--store", str(store)))
        outputs.append(invoke("show", run_id, "--store", str(store), "--json"))
        for fmt in ("jsonl", "csv", "parquet"):
            file = tmp_path / f"{name}.{fmt}"
            outputs.append(
                invoke("export", run_id, "--store", str(store), "--format", fmt, "-o", str(file))
            )
            exported.append(file.read_bytes().decode("utf-8", errors="replace"))
            if fmt == "parquet":
                exported.append(pd.read_parquet(file).to_json(orient="records"))

    places = {
        "the store": readable_store(store),
        "the cache": readable_store(tmp_path / "cache.db"),
        "the exports": "\n".join(exported),
        "the CLI output": "\n".join(outputs),
        "the requests the other origin received": json.dumps(endpoints.leaky.collected),
    }
    for where, text in places.items():
        assert PLANTED not in text, f"the key is in {where}"

    # The runs went where they were meant to: answered, echoed, redirected, refused.
    with Store(store) as opened:
        config = opened.run(runs["answered"]).config
        assert config["target"]["api_key"] == "${RJ_PLANTED_KEY}"
        assert config["target"]["headers"] == {"X-Api-Key": "${RJ_PLANTED_KEY}"}
        assert config["judge"]["base_url"] == endpoints.judge.base_url
        answered = opened.sample_frame(runs["answered"])
        assert answered["response/llm_judged/relevance_to_query/rating"].tolist() == [1.0, 1.0]
        echoed = opened.outputs(runs["target_echoes_the_key"])["deadlock"].error or ""
        assert "HTTP 401" in echoed and "is not valid for" in echoed and "key=***" in echoed
        calls = opened.judge_calls(runs["judge_echoes_the_key"])
        assert calls["error"].str.contains("Incorrect API key provided").all()
        redirected = opened.outputs(runs["redirected"])["deadlock"].response or ""
        assert "user-agent" in redirected and "x-api-key" not in redirected
        refused = opened.outputs(runs["unreachable"])["mvcc"].error or ""
        assert "cannot reach http://***@127.0.0.1" in refused
    assert len(endpoints.leaky.collected) == len(ROWS)

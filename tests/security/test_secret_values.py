"""Secrets masked by value: every value a run's config brought in from the environment
(``${VAR}``) is a secret whatever its field or parameter is called, and neither it nor
any form a server may echo it in (URL-encoded, JSON-escaped, base64 of the value or of
a Basic credential) is in the store, the reply cache, an export, ``show``, the HTML
report or anything the command printed."""

from __future__ import annotations

import base64
import contextlib
import gzip
import html
import json
import re
import socket
import sqlite3
import textwrap
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote, quote_plus

import pandas as pd
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route
from typer.testing import CliRunner

from ragjudge.cli import app
from ragjudge.testing import BackgroundASGIServer


def b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def forms(value: str, user: str | None = None) -> list[str]:
    """``value`` as a server may echo it: plain, URL-encoded (``%XX`` upper and lower
    case, ``+`` for a space), JSON-escaped, base64 (standard and URL-safe, without the
    padding, which only ends it), and base64 of the Basic credential it is part of: with
    ``user``, ``user:value``, else ``value:`` and ``:value`` (a key sent as the user or
    as the password)."""
    encoded = quote(value, safe="")
    found = [
        value,
        encoded,
        re.sub(r"%[0-9A-F]{2}", lambda m: m.group(0).lower(), encoded),
        quote_plus(value),
        json.dumps(value)[1:-1],
        b64(value).rstrip("="),
        base64.urlsafe_b64encode(value.encode()).decode().rstrip("="),
    ]
    basic = [f"{user}:{value}"] if user is not None else [f"{value}:", f":{value}"]
    return found + [b64(credential).rstrip("=") for credential in basic]


def echoed(value: str, user: str | None = None) -> str:
    """Every form of ``value``, as an echoing endpoint writes it."""
    return " | ".join(forms(value, user))


class Echoes:
    """Endpoints that repeat what they were sent: a target that quotes its query value
    and header in every encoding (and fails with some of them in its error), a judge
    that quotes its Basic credential and the key in it, a judge that refuses and echoes
    the request's headers (as some gateways do), and a plain target."""

    def __init__(self) -> None:
        self.app = Starlette(
            routes=[
                Route("/answer", self.answer, methods=["POST"]),
                Route("/echo", self.echo, methods=["POST"]),
                Route("/judge/v1/chat/completions", self.judge, methods=["POST"]),
                Route("/refuse/v1/chat/completions", self.refuse, methods=["POST"]),
            ]
        )
        self.echoed = 0

    async def answer(self, request: Request) -> Response:
        return JSONResponse({"answer": "SQL is a query language."})

    async def echo(self, request: Request) -> Response:
        sid, tenant = request.query_params["sid"], request.headers["x-tenant"]
        if (await request.json())["q"] != "What is SQL?":
            return PlainTextResponse(f"bad gateway: {quote(tenant, safe='')} {b64(sid)}", 502)
        self.echoed += 1
        said = f"you sent sid {echoed(sid)} and tenant {echoed(tenant)}"
        return JSONResponse({"answer": f"SQL is a query language; {said}"})

    async def judge(self, request: Request) -> Response:
        credential = request.headers["authorization"]
        key = base64.b64decode(credential.split()[1]).decode().partition(":")[2]
        content = f"Feedback: you sent {credential}, that is {echoed(key, 'u')}. [RESULT] 3"
        choice = {"index": 0, "message": {"role": "assistant", "content": content}}
        return JSONResponse({"choices": [choice], "model": "judge"})

    async def refuse(self, request: Request) -> Response:
        message = f"invalid key; you sent {request.url.path} with {dict(request.headers)}"
        return JSONResponse({"error": {"message": message, "type": "invalid_request"}}, 401)


@pytest.fixture(scope="module")
def served() -> Iterator[tuple[Echoes, str]]:
    echoes = Echoes()
    with BackgroundASGIServer(echoes.app) as server:
        yield echoes, server.url


ROWS = [
    {
        "request_id": "q0",
        "request": "What is SQL?",
        "expected_response": "SQL is a query language.",
    },
    {
        "request_id": "q1",
        "request": "What is a join?",
        "expected_response": "A join combines rows.",
    },
]


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


def project(folder: Path, configs: dict[str, str], rows: list[dict[str, str]] = ROWS) -> None:
    (folder / "set.jsonl").write_text("\n".join(json.dumps(row) for row in rows) + "\n")
    for name, body in configs.items():
        (folder / f"{name}.yaml").write_text(textwrap.dedent(body))


def invoke(*args: str, exit_codes: tuple[int, ...] = (0,)) -> str:
    """What the command printed, standard output and standard error."""
    result = CliRunner().invoke(app, list(args))
    assert result.exit_code in exit_codes, result.output
    return result.output


def run_ids(store: Path) -> list[str]:
    with contextlib.closing(sqlite3.connect(store)) as conn:
        return [row[0] for row in conn.execute("SELECT run_id FROM runs ORDER BY rowid")]


def readable_store(path: Path) -> str:
    """A SQLite file as text: its bytes (and its write-ahead log's) and a dump."""
    raw = b"".join(p.read_bytes() for p in (path, Path(f"{path}-wal")) if p.exists())
    with contextlib.closing(sqlite3.connect(path)) as conn:
        dump = "\n".join(conn.iterdump())
    return raw.decode("utf-8", errors="replace") + dump


def readable_export(path: Path) -> str:
    """An export as written and as read back (a parquet file is compressed; JSON may
    escape a slash)."""
    written = path.read_bytes().decode("utf-8", errors="replace")
    reader = {".parquet": pd.read_parquet, ".csv": pd.read_csv, ".json": pd.read_json}
    read = reader.get(path.suffix, lambda p: pd.read_json(p, lines=True))
    return written + read(path).to_csv(index=False)


def readable_report(path: Path) -> str:
    """A report's page and its packed per-sample fragments, as written and unescaped."""
    page = path.read_text(encoding="utf-8")
    packed = re.search(r'id="drill-data">([^<]*)</script>', page)
    assert packed is not None
    fragments = json.loads(gzip.decompress(base64.b64decode(packed.group(1))))
    text = page + "\n".join(fragments)
    return text + html.unescape(text)


def holding(texts: dict[str, str], secrets: dict[str, list[str]]) -> list[str]:
    """Where each form of each secret was found: ``place: secret form``."""
    return [
        f"{where}: {name} {form!r}"
        for where, text in texts.items()
        for name, found in secrets.items()
        for form in found
        if form in text
    ]


# -- the reproductions ---------------------------------------------------------------

PWD, FKEY, SID, APIKEY = (
    "pw-SECRET-c0ffee11",
    "fk-SECRET-deadbeef",
    "si-SECRET-88d1e0aa",
    "ak-SECRET-7f3a9c2e",
)


def test_secrets_in_query_values_are_masked_whatever_the_parameter_is_called(
    served: tuple[Echoes, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # secrets-query-values: pwd=, x-functions-key= and sid= are on no list of key names
    _, url = served
    port = url.rsplit(":", 1)[1]
    for name, value in {"PWD": PWD, "FKEY": FKEY, "SID": SID, "APIKEY": APIKEY}.items():
        monkeypatch.setenv(f"RJ_SECRET_{name}", value)
    monkeypatch.chdir(tmp_path)
    query = "pwd=${RJ_SECRET_PWD}&x-functions-key=${RJ_SECRET_FKEY}"
    target = """
        target:
          kind: json_api
          url: "http://127.0.0.1:{port}/answer?{query}"
          body_template: {{q: "{{{{query}}}}"}}
          response_path: answer
          max_retries: 0
        metrics: [token_f1]
        """
    project(
        tmp_path,
        {
            "eval": "data: set.jsonl\n"
            + textwrap.dedent(target).format(
                port=port, query=f"{query}&sid=${{RJ_SECRET_SID}}&api_key=${{RJ_SECRET_APIKEY}}"
            ),
            "unreachable": "data: set.jsonl\n"
            + textwrap.dedent(target).format(port=closed_port(), query=query),
        },
    )
    printed = [
        invoke("run", "eval.yaml", "--no-progress", "--store", "runs.db"),
        invoke("run", "unreachable.yaml", "--no-progress", "--store", "runs.db", exit_codes=(4,)),
    ]
    exports: list[str] = []
    for run_id in run_ids(tmp_path / "runs.db"):
        printed.append(invoke("show", run_id, "--store", "runs.db", "--json"))
        invoke("export", run_id, "--store", "runs.db", "-o", f"{run_id}.csv")
        exports.append(readable_export(tmp_path / f"{run_id}.csv"))
    texts = {
        "the store": readable_store(tmp_path / "runs.db"),
        "the exports": "\n".join(exports),
        "the printed output": "\n".join(printed),
    }
    plain = {"PWD": [PWD], "FKEY": [FKEY], "SID": [SID], "APIKEY": [APIKEY]}
    assert holding(texts, plain) == []
    unreachable = json.loads(printed[-1])["errors_by_cause"][0]["example"]
    assert "/answer?pwd=***&x-functions-key=***" in unreachable and "cannot reach" in unreachable


def test_an_echoed_basic_credential_is_masked_whole(
    served: tuple[Echoes, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # secrets-basic-echo: user-info in the judge's base URL goes out as Basic
    # base64(u:KEY), which the endpoint echoes in its refusal
    _, url = served
    key = "sk-SECRET-7f3a9c2e51"
    monkeypatch.setenv("RJ_SECRET_KEY", key)
    monkeypatch.chdir(tmp_path)
    judge = f"http://u:${{RJ_SECRET_KEY}}@{url.removeprefix('http://')}/refuse/v1"
    rows = [dict(ROWS[0], response="SQL is a query language.")]
    body = """
        data: set.jsonl
        target: data
        judge: {{model: openai/judge, base_url: "{judge}"{extra}}}
        metrics: [{{metric: answer_accuracy, contexts: none}}]
        """
    project(
        tmp_path,
        {
            "eval": body.format(judge=judge, extra=", preflight: false, max_retries: 0"),
            "preflight": body.format(judge=judge, extra=""),
        },
        rows,
    )
    printed = [
        invoke("run", "eval.yaml", "--no-progress", "--store", "runs.db", exit_codes=(4,)),
        invoke("run", "preflight.yaml", "--no-progress", "--store", "runs.db", exit_codes=(2,)),
    ]
    assert "'authorization': '***'" in printed[1] and "does not answer (client)" in printed[1]
    # the run the pre-flight question stopped is stored too (the store is read whole)
    run_id, _stopped = run_ids(tmp_path / "runs.db")
    printed.append(invoke("show", run_id, "--store", "runs.db", "--json"))
    invoke("export", run_id, "--store", "runs.db", "-o", "export.csv")
    texts = {
        "the store": readable_store(tmp_path / "runs.db"),
        "the export": readable_export(tmp_path / "export.csv"),
        "the printed output": "\n".join(printed),
    }
    token = b64(f"u:{key}")
    assert holding(texts, {"the Basic token": [token.rstrip("=")], "the key": [key]}) == []
    assert "'authorization': '***'" in texts["the store"]


# -- a whole evaluation against endpoints that echo every secret in every encoding -------

SECRETS = {
    "RJ_SECRET_SID": "si-SECRET-88d1e0aa",
    "RJ_SECRET_TENANT": "tn SECRET/+=7d1b:x",
    "RJ_SECRET_JUDGE_KEY": "jk-SECRET-0b5f3e",
}


def test_no_form_of_a_secret_is_stored_exported_shown_reported_or_printed(
    served: tuple[Echoes, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    echoes, url = served
    for name, value in SECRETS.items():
        monkeypatch.setenv(name, value)
    monkeypatch.chdir(tmp_path)
    authority = url.removeprefix("http://")
    project(
        tmp_path,
        {
            "eval": f"""
                name: echoes
                data: set.jsonl
                store: runs.db
                report: true
                target:
                  kind: json_api
                  url: "{url}/echo?sid=${{RJ_SECRET_SID}}"
                  headers: {{X-Tenant: "${{RJ_SECRET_TENANT}}"}}
                  body_template: {{q: "{{{{query}}}}"}}
                  response_path: answer
                  max_retries: 0
                judge:
                  model: openai/judge
                  base_url: "http://u:${{RJ_SECRET_JUDGE_KEY}}@{authority}/judge/v1"
                  max_retries: 0
                metrics: [{{metric: answer_accuracy, contexts: none}}, token_f1]
                """
        },
    )
    printed = [invoke("run", "eval.yaml", exit_codes=(3,))]  # the second answer fails
    (run_id,) = run_ids(tmp_path / "runs.db")
    printed.append(invoke("run", "eval.yaml", "--json", "--no-progress", exit_codes=(3,)))
    printed.append(invoke("show", run_id, "--store", "runs.db"))
    printed.append(invoke("show", run_id, "--store", "runs.db", "--json"))
    exports = []
    for suffix in ("jsonl", "json", "csv", "parquet"):
        invoke("export", run_id, "--store", "runs.db", "-o", f"rows.{suffix}")
        exports.append(readable_export(tmp_path / f"rows.{suffix}"))
    invoke("report", run_id, "--store", "runs.db", "-o", "asked.html")
    texts = {
        "the store": readable_store(tmp_path / "runs.db"),
        "the reply cache": readable_store(tmp_path / "cache.db"),
        "the exports": "\n".join(exports),
        "the report written by the run": readable_report(tmp_path / "reports" / f"{run_id}.html"),
        "the report asked for": readable_report(tmp_path / "asked.html"),
        "the printed output": "\n".join(printed),
    }
    every_form = {
        name: forms(value, "u" if name == "RJ_SECRET_JUDGE_KEY" else None)
        for name, value in SECRETS.items()
    }
    found = holding(texts, every_form)
    assert found == [], "\n".join(found)

    # the endpoints did echo every form, and what they said is kept, masked
    assert echoes.echoed == 2  # one answer per run
    with contextlib.closing(sqlite3.connect(tmp_path / "runs.db")) as conn:
        response, error = conn.execute(
            "SELECT json_extract(output_json, '$.response'), error FROM outputs"
            " WHERE run_id = ? ORDER BY request_id",
            (run_id,),
        ).fetchall()
        verdicts = [row[0] for row in conn.execute("SELECT text FROM judge_calls")]
    assert response[0].count("***") == 2 * len(forms("x")) and error[1] is not None
    assert error[1].startswith("HTTP 502") and "bad gateway: *** ***" in error[1]
    assert verdicts and all("you sent Basic ***, that is ***" in text for text in verdicts)

"""Reply schemas across runs: an endpoint's refusal is kept in the reply cache, so a
later run asks it for text replies from its first call and says why."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from ragjudge.cli import app
from ragjudge.models import ResponseCache
from ragjudge.models.scripted import ReplyScript
from ragjudge.run._reply_schemas import REFUSED_SCHEMAS_KEY
from ragjudge.testing.server import OpenAITestServer
from served import write_project

runner = CliRunner()


def _rows(first: int) -> list[dict[str, str]]:
    return [
        {
            "request_id": f"q{i}",
            "request": f"What is fact number {i}?",
            "response": f"Fact {i}.",
            "expected_response": f"Fact {i} is true.",
        }
        for i in range(first, first + 4)
    ]


VERDICT = '{"explanation": "judged", "rating": 4}'


def _run(tmp_path: Path, server: OpenAITestServer, first: int, extra: str = "") -> list[str]:
    config = write_project(
        tmp_path,
        _rows(first),
        "data: set.jsonl\nmetrics: [likert]\n"
        f"judge:\n  model: openai/test-model\n  base_url: {server.base_url}\n"
        f"  max_retries: 1\n  timeout: 30\n  reask_limit: 0\n  preflight: false\n{extra}"
        "concurrency: 2\n",
    )
    result = runner.invoke(app, ["run", str(config), "--json", "--no-progress"])
    assert result.exit_code == 0, result.output
    notes: list[str] = json.loads(result.stdout)["notes"]
    return [note for note in notes if "reply schemas" in note]


def _store(tmp_path: Path) -> Path:
    return tmp_path / ".ragjudge" / "runs.db"


def _kept(tmp_path: Path, server: OpenAITestServer) -> dict[str, object] | None:
    """What the reply cache beside the store keeps of the server's refusal."""
    cache = ResponseCache(tmp_path / ".ragjudge" / "cache.db")
    try:
        return cache.recall(REFUSED_SCHEMAS_KEY + server.base_url)
    finally:
        cache.close()


def test_a_refusal_is_remembered_and_a_later_run_sends_no_schema(tmp_path: Path) -> None:
    server = OpenAITestServer(replies=ReplyScript(default=VERDICT), refuse_schemas=True)
    with server:
        first_notes = _run(tmp_path, server, 0)
        refused_first = server.stats.schema_refusals
        later_notes = _run(tmp_path, server, 10)  # other questions: every call is a miss
        endpoint = server.base_url

    assert refused_first >= 1 and server.stats.schema_refusals == refused_first
    later_requests = server.requests_log[-4:]
    assert all("response_format" not in request for request in later_requests)
    assert len(first_notes) == 1 and "in an earlier run" not in first_notes[0]
    assert len(later_notes) == 1 and "in an earlier run" in later_notes[0]
    assert "cache clear" in later_notes[0] and endpoint in later_notes[0]


def test_clearing_the_cache_forgets_the_refusal(tmp_path: Path) -> None:
    server = OpenAITestServer(replies=ReplyScript(default=VERDICT), refuse_schemas=True)
    with server:
        _run(tmp_path, server, 0)
        kept = _kept(tmp_path, server)
        cleared = runner.invoke(app, ["cache", "clear", "--store", str(_store(tmp_path))])
        forgotten = _kept(tmp_path, server)
        server.refuse_schemas = False  # the endpoint learnt to take schemas
        notes = _run(tmp_path, server, 10)

    assert cleared.exit_code == 0, cleared.output
    assert kept is not None and "response_format" in str(kept["refusal"])
    assert forgotten is None and notes == []
    assert all("response_format" in request for request in server.requests_log[-4:])


def test_never_sends_no_schema_and_remembers_nothing(tmp_path: Path) -> None:
    server = OpenAITestServer(replies=ReplyScript(default=VERDICT), refuse_schemas=True)
    with server:
        notes = _run(tmp_path, server, 0, "  structured: never\n")
        kept = _kept(tmp_path, server)

    assert notes == [] and kept is None and server.stats.schema_refusals == 0

"""The judge layer inside a run, over real HTTP against the local OpenAI-compatible
test server: faults end in a score or a stored error and the run completes; cache,
trials, cost, --no-cache, --dry-run and the cache command."""

from __future__ import annotations

import asyncio
import json
import re
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import httpx2
import pytest
from typer.testing import CliRunner

import ragjudge as rj
from conftest import import_quickstart
from ragjudge.cli import app
from ragjudge.config import ConfigError, EvalConfig
from ragjudge.metrics import create_metric
from ragjudge.models import get_model
from ragjudge.models.scripted import ReplyScript, ScriptedProvider, prompt_text
from ragjudge.run._judging import build_agent_models, build_judge
from ragjudge.run._reply_schemas import share_reply_schemas
from ragjudge.run._runner import run_evaluation
from ragjudge.store._store import Store
from ragjudge.testing.server import OpenAITestServer
from served import running, write_project
from unwritable import unwritable

runner = CliRunner()
ROWS = [
    {
        "request_id": f"q{i}",
        "request": f"What is fact number {i}?",
        "response": f"Fact {i}.",
        "expected_response": f"Fact {i} is true.",
    }
    for i in range(6)
]


@pytest.fixture
def server() -> Iterator[OpenAITestServer]:
    yield from running(
        OpenAITestServer(
            replies=ReplyScript(default="Feedback: correct and complete. [RESULT] 5"),
        )
    )


def _config(tmp_path: Path, server: OpenAITestServer, extra: str = "") -> Path:
    return write_project(
        tmp_path,
        ROWS,
        "data: set.jsonl\n"
        "metrics: [{metric: answer_accuracy, contexts: none}]\n"
        "judge:\n"
        "  model: openai/test-model\n"
        f"  base_url: {server.base_url}\n"
        # 30 s: a reply a busy machine delays is never taken for a timeout (timeouts are
        # tested where nothing else must answer: tests/models)
        "  max_retries: 3\n  backoff_base: 0.01\n  backoff_max: 0.05\n  timeout: 30\n"
        "  prices: {test-model: {input: 1.0, output: 2.0}}\n"
        "  preflight: false\n"  # these tests count the server's requests exactly
        f"concurrency: 2\n{extra}",
    )


def _run(cfg: Path, *flags: str, exit_code: int = 0) -> dict[str, object]:
    result = runner.invoke(app, ["run", str(cfg), "--json", "--no-progress", *flags])
    assert result.exit_code == exit_code, result.output
    data: dict[str, object] = json.loads(result.stdout)
    return data


@pytest.mark.parametrize("fault", ["429", "500", "truncated", "malformed"])
def test_each_injected_fault_is_retried_to_a_score(
    tmp_path: Path, server: OpenAITestServer, fault: str
) -> None:
    server.fail_next(fault, count=2, retry_after=0.05)
    summary = _run(_config(tmp_path, server))
    metric = summary["metrics"][0]  # type: ignore[index]
    assert metric["mean"] == 5.0 and metric["n"] == 6 and metric["errors"] == 0
    usage = summary["judge_usage"][0]  # type: ignore[index]
    assert usage["calls"] == 6 and usage["errors"] == 0
    assert usage["attempts"] == 6 + 2  # the two faulted attempts were retried


def test_a_call_that_keeps_failing_is_a_stored_error_and_the_run_ends_incomplete(
    tmp_path: Path, server: OpenAITestServer
) -> None:
    server.fail_next("500", count=4)  # the first call's four attempts all fail
    summary = _run(_config(tmp_path, server), "--concurrency", "1", exit_code=3)
    metric = summary["metrics"][0]  # type: ignore[index]
    assert metric["errors"] == 1 and metric["n"] == 5 and metric["mean"] == 5.0
    assert summary["status"] == "incomplete"  # ran to its end; one result failed
    assert summary["errors_by_cause"] == [  # type: ignore[comparison-overlap]
        {
            "metric": "answer_accuracy",
            "cause": "judge server error",
            "count": 1,
            "example": summary["errors_by_cause"][0]["example"],  # type: ignore[index]
        }
    ]
    assert summary["exit_reasons"] == [  # type: ignore[comparison-overlap]
        "answer_accuracy: 1 of 6 results failed (16.7% > 0.0% allowed)"
    ]
    server.fail_next("500", count=4)
    allowed = _run(
        _config(tmp_path, server), "--no-cache", "--concurrency", "1", "--max-error-rate", "0.2"
    )
    assert allowed["exit_code"] == 0 and allowed["metrics"][0]["errors"] == 1  # type: ignore[index]
    store = tmp_path / ".ragjudge" / "runs.db"
    with sqlite3.connect(store) as conn:
        error, ids = conn.execute(
            "SELECT error, judge_call_ids_json FROM scores WHERE error IS NOT NULL"
        ).fetchone()
        call_error, attempts = conn.execute(
            "SELECT error, attempts FROM judge_calls WHERE call_id = ?", (json.loads(ids)[0],)
        ).fetchone()
    assert "judge call failed" in error and "500" in error
    assert attempts == 4 and "500" in call_error


def test_rerun_is_served_from_cache_trials_are_not_and_cost_is_counted(
    tmp_path: Path, server: OpenAITestServer
) -> None:
    cfg = _config(tmp_path, server)
    first = _run(cfg)
    requests_after_first = server.stats.requests
    usage = first["judge_usage"][0]  # type: ignore[index]
    assert usage["cached"] == 0 and usage["cost"] > 0
    second = _run(cfg)
    assert server.stats.requests == requests_after_first  # nothing sent again
    cached = second["judge_usage"][0]  # type: ignore[index]
    assert cached["cached"] == 6 and cached["cost"] == 0.0
    _run(cfg, "--trials", "2")  # trial 0 cached, trial 1 is a real repeat
    assert server.stats.requests == requests_after_first + 6
    _run(cfg, "--no-cache")
    assert server.stats.requests == requests_after_first + 12
    stats = runner.invoke(app, ["cache", "stats", "--path", str(tmp_path / ".ragjudge/cache.db")])
    assert "entries: 12" in stats.stdout
    cleared = runner.invoke(app, ["cache", "clear", "--path", str(tmp_path / ".ragjudge/cache.db")])
    assert "removed 12" in cleared.stdout


def test_a_read_only_cache_stops_the_run_before_any_request(
    tmp_path: Path, server: OpenAITestServer
) -> None:
    cfg = _config(tmp_path, server)
    _run(cfg, "--limit", "1")
    requests = server.stats.requests
    cache = tmp_path / ".ragjudge" / "cache.db"

    with unwritable(cache):
        result = runner.invoke(app, ["run", str(cfg), "--no-progress", "--trials", "2"])

    assert result.exit_code == 2, result.output
    assert result.output.startswith(f"error: cache: cannot write the cache {cache}: the file is")
    assert server.stats.requests == requests


RELEVANCY_REPLY = json.dumps(
    {"questions": ["What does it do?", "What is it for?", "How does it work?"], "noncommittal": 0}
)


# embeddings-unrecorded: embedding requests were paid for but recorded nowhere
def test_embedding_requests_are_recorded_and_counted_like_judge_calls(tmp_path: Path) -> None:
    with OpenAITestServer(replies=ReplyScript(default=RELEVANCY_REPLY)) as server:
        cfg = write_project(
            tmp_path,
            ROWS[:3],
            "data: set.jsonl\n"
            "metrics: [{metric: answer_relevancy, embedding: openai/emb}]\n"
            f"judge: {{model: openai/judge, base_url: '{server.base_url}', preflight: false,"
            " prices: {judge: {input: 1.0, output: 2.0}, emb: {input: 0.5, output: 0}}}\n",
        )
        summary = _run(cfg)
        embedding_requests = server.stats.embeddings
    store = tmp_path / ".ragjudge" / "runs.db"
    with sqlite3.connect(store) as conn:
        calls, tokens, cost = conn.execute(
            "SELECT COUNT(*), SUM(input_tokens), SUM(cost) FROM judge_calls"
            " WHERE purpose = 'embeddings' AND error IS NULL"
        ).fetchone()
    shown = runner.invoke(app, ["show", str(summary["run_id"]), "--store", str(store), "--json"])
    usage = {row["purpose"]: row for row in json.loads(shown.stdout)["judge_usage"]}

    assert embedding_requests == 3  # one per answer: its generated questions beside it
    assert calls == 3 and tokens > 0 and cost == pytest.approx(tokens * 0.5e-6)
    assert usage["embeddings"]["calls"] == 3 and usage["embeddings"]["input_tokens"] == tokens
    assert usage["embeddings"]["cost"] == pytest.approx(cost)


# judge-reply-uncapped: judge replies of any size were read, parsed and stored whole
def test_a_judge_reply_beyond_the_configured_cap_is_an_explained_error_of_its_score(
    tmp_path: Path,
) -> None:
    long_reply = "Feedback: " + "much to say " * 500 + "[RESULT] 5"
    with OpenAITestServer(replies=ReplyScript(default=long_reply)) as server:
        cfg = (
            _config(tmp_path, server)
            .read_text()
            .replace("  timeout: 30\n", "  timeout: 30\n  max_reply_bytes: 2000\n")
        )
        (tmp_path / "eval.yaml").write_text(cfg)
        summary = _run(tmp_path / "eval.yaml", exit_code=4)
        requests = server.stats.completions
    with sqlite3.connect(tmp_path / ".ragjudge" / "runs.db") as conn:
        errors = [row[0] for row in conn.execute("SELECT error FROM scores")]
        texts = conn.execute("SELECT COUNT(text) FROM judge_calls").fetchone()[0]

    assert requests == len(ROWS)  # one attempt each: a reply that long is not asked again
    assert all(e.startswith("judge call failed: [too_large] reply from") for e in errors)
    assert texts == 0  # nothing of the replies is stored
    (group,) = summary["errors_by_cause"]  # type: ignore[misc]
    assert group["cause"] == "judge reply too large" and group["count"] == len(ROWS)


def test_dry_run_counts_calls_and_tokens_and_calls_nothing(
    tmp_path: Path, server: OpenAITestServer
) -> None:
    plan = _run(_config(tmp_path, server, "trials: 3\n"), "--dry-run")
    assert plan["dry_run"] is True
    assert plan["judge_calls"] == 18 and plan["target_calls"] == 0
    assert plan["input_tokens"] > 18 * 100
    assert plan["output_tokens"] == 18 * plan["output_tokens_per_call"]  # type: ignore[operator]
    assert plan["cost"] > 0
    assert server.stats.requests == 0
    assert not (tmp_path / ".ragjudge" / "runs.db").exists()
    prompt = plan["by_metric"][0]["example_prompt"][0]["content"]  # type: ignore[index]
    assert "<<<BEGIN RESPONSE>>>" in prompt


def test_judged_evaluate_inside_a_running_event_loop(
    tmp_path: Path, server: OpenAITestServer
) -> None:
    async def notebook_cell() -> float | None:
        result = rj.evaluate(
            ROWS,
            metrics=[{"metric": "answer_accuracy", "contexts": "none"}],
            judge={"model": "openai/test-model", "base_url": server.base_url},
            store=tmp_path / "r.db",
            progress=False,
        )
        return result.summaries[0].mean

    assert asyncio.run(notebook_cell()) == 5.0


def test_e3_contexts_from_the_targets_own_search_endpoint(tmp_path: Path) -> None:
    serve = import_quickstart("serve")
    question = "What is the difference between UNION and UNION ALL?"
    reference = "UNION removes duplicate rows; UNION ALL keeps them."
    provider = ScriptedProvider(ReplyScript(default="Feedback: fine [RESULT] 4"))
    with serve.BackgroundServer() as rag:
        config = EvalConfig(
            metrics=[{"metric": "answer_accuracy", "contexts": "reference", "k": 2}],
            target={
                "kind": "openai_chat",
                "base_url": rag.base_url,
                "model": "quickstart-rag",
                "context_field": "retrieved_context",
            },
            retriever={"kind": "http", "url": f"{rag.url}/search"},
            store=str(tmp_path / "r.db"),
        )
        rows = [{"request_id": "u", "request": question, "expected_response": reference}]
        result = asyncio.run(
            run_evaluation(config, data=rows, judge_provider=provider, progress=False)
        )
        expected = httpx2.post(
            f"{rag.url}/search", json={"query": f"{question}\n{reference}", "k": 2}
        ).json()["results"]
    assert result.summaries[0].mean == 4.0
    prompt = provider.calls[0][0]["content"]
    for i, hit in enumerate(expected, start=1):
        assert f"CONTEXT {i} ({hit['doc_uri']})" in prompt
    assert "union" in expected[0]["doc_uri"]


def test_bad_agent_model_spec_is_a_config_error_before_any_run(tmp_path: Path) -> None:
    def answer(query: str, history: list[dict[str, str]]) -> str:
        raise AssertionError("the target must not be called")

    with pytest.raises(ConfigError, match="gpt-4o"):
        rj.evaluate(
            ROWS[:1],
            target=answer,
            metrics=[{"metric": "multiturn", "contexts": "none", "composer_model": "gpt-4o"}],
            judge="scripted",
            store=tmp_path / "r.db",
            progress=False,
        )
    assert not Store(tmp_path / "r.db").runs()


def test_agents_share_the_judges_cache_and_one_model_per_spec(tmp_path: Path) -> None:
    config = EvalConfig(
        metrics=["exact_match"], judge={"model": "scripted"}, store=str(tmp_path / "r.db")
    )
    metrics = [
        create_metric(
            {
                "metric": "multiturn",
                "name": "a",
                "contexts": "none",
                "composer_model": "scripted/agent",
                "generator_model": "scripted/agent",
            }
        ),
        create_metric(
            {
                "metric": "multiturn",
                "name": "b",
                "contexts": "none",
                "composer_model": "scripted/agent",
            }
        ),
    ]
    with Store(tmp_path / "r.db") as store:
        judge = build_judge(config.judge, store, "run", cache_path=config.cache_path)
        assert judge is not None and judge.cache is not None
        agents = build_agent_models(config.judge, metrics, store, "run", cache=judge.cache)
    models = {id(m) for roles in agents.values() for m in roles.values()}
    assert len(models) == 1
    assert all(m.cache is judge.cache for roles in agents.values() for m in roles.values())


def test_models_of_one_run_on_one_endpoint_share_their_limiter(tmp_path: Path) -> None:
    from ragjudge.models import Limiter
    from ragjudge.run._embedders import build_embedders

    config = EvalConfig.model_validate(
        {
            "metrics": [
                {"metric": "multiturn", "composer_model": "openai/composer"},
                {"metric": "answer_relevancy", "embedding": "openai/embedder"},
            ],
            "judge": {"model": "openai/judge", "base_url": "http://127.0.0.1:9/v1", "rpm": 60},
            "base_dir": str(tmp_path),
        }
    )
    metrics = [create_metric(spec) for spec in config.metrics]
    limiters: dict[str, Limiter] = {}
    with Store(tmp_path / "r.db") as store:
        judge = build_judge(config.judge, store, "run", limiters=limiters)
        agents = build_agent_models(config.judge, metrics, store, "run", limiters=limiters)
    embedders = build_embedders(config.judge, metrics, None, limiters)
    assert judge is not None and len(limiters) == 1
    # the provider's rpm counts every request: judge, composer and embeddings pace together
    assert agents["multiturn"]["composer"].limiter is judge.limiter
    assert embedders["openai/embedder"].model.limiter is judge.limiter


# -- reply schemas -------------------------------------------------------------------

RATING = re.compile(r"Fact (\d+)\.")


def rating_of(prompt: str) -> int:
    """The rating the scripted judge gives the response ``Fact i.``."""
    found = RATING.search(prompt)
    return int(found.group(1)) % 5 + 1 if found else 3


def drafted_verdict(messages: list[dict[str, object]]) -> str:
    """A judge that writes a draft object before its verdict: free text cannot say
    which object is the verdict; a reply kept to the schema is the one that fits."""
    rating = rating_of(prompt_text(messages))
    return f'Draft: {{"rating": 9}}\nFinal: {{"explanation": "judged", "rating": {rating}}}'


def _likert_config(tmp_path: Path, server: OpenAITestServer, extra: str = "") -> Path:
    return write_project(
        tmp_path,
        ROWS,
        "data: set.jsonl\nmetrics: [likert]\n"
        f"judge:\n  model: openai/test-model\n  base_url: {server.base_url}\n"
        "  max_retries: 1\n  timeout: 30\n  reask_limit: 0\n  preflight: false\n"
        f"  prices: {{test-model: {{input: 1.0, output: 2.0}}}}\n{extra}"
        "concurrency: 4\n",
    )


def _values(summary: dict[str, object], tmp_path: Path) -> dict[str, float | None]:
    with sqlite3.connect(tmp_path / ".ragjudge" / "runs.db") as conn:
        rows = conn.execute(
            "SELECT request_id, value FROM scores WHERE run_id = ?", (summary["run_id"],)
        ).fetchall()
    return dict(rows)


def test_a_json_judge_gets_its_reply_schema_and_the_constrained_replies_are_read(
    tmp_path: Path,
) -> None:
    server = OpenAITestServer(replies=ReplyScript(function=drafted_verdict))
    with server:
        summary = _run(_likert_config(tmp_path, server))

    assert _values(summary, tmp_path) == {f"q{i}": float(i % 5 + 1) for i in range(6)}
    formats = [request["response_format"] for request in server.requests_log]
    assert len(formats) == 6 and all(f["type"] == "json_schema" for f in formats)
    assert {f["json_schema"]["name"] for f in formats} == {"LikertVerdict"}
    assert server.stats.schema_replies == 6
    assert not any("schema" in note for note in summary["notes"])  # type: ignore[union-attr]


def test_text_replies_only_under_never(tmp_path: Path) -> None:
    server = OpenAITestServer(replies=ReplyScript(function=drafted_verdict))
    with server:
        summary = _run(_likert_config(tmp_path, server, "  structured: never\n"), exit_code=4)

    assert all("response_format" not in request for request in server.requests_log)
    assert set(_values(summary, tmp_path).values()) == {None}  # two objects: unreadable


def test_an_endpoint_that_refuses_schemas_is_asked_for_text_once_with_a_note(
    tmp_path: Path,
) -> None:
    def verdict(messages: list[dict[str, object]]) -> str:
        return f'{{"explanation": "judged", "rating": {rating_of(prompt_text(messages))}}}'

    server = OpenAITestServer(replies=ReplyScript(function=verdict), refuse_schemas=True)
    with server:
        endpoint = server.base_url
        summary = _run(_likert_config(tmp_path, server))

    assert _values(summary, tmp_path) == {f"q{i}": float(i % 5 + 1) for i in range(6)}
    sent = ["response_format" in request for request in server.requests_log]
    refusals = server.stats.schema_refusals
    # no call waited to learn it: up to the four samples in flight sent a schema, each
    # was refused and asked again as text, and the calls after those were text calls
    assert 1 <= refusals <= 4 and sent.count(True) == refusals
    assert sent.count(False) == 6
    notes = [note for note in summary["notes"] if "refused reply schemas" in note]  # type: ignore[union-attr]
    assert len(notes) == 1 and endpoint in notes[0]
    with sqlite3.connect(tmp_path / ".ragjudge" / "runs.db") as conn:
        errors = [row[0] for row in conn.execute("SELECT error FROM judge_calls")]
    refused = [error for error in errors if error is not None]
    assert len(errors) == 6 + refusals  # every request on record, the refused ones too
    assert all("asked again for a text reply" in error for error in refused)
    assert len(refused) == refusals


def test_the_dry_run_counts_and_prices_json_judges_as_without_schemas(
    tmp_path: Path, server: OpenAITestServer
) -> None:
    with_schemas = _run(_likert_config(tmp_path, server), "--dry-run")
    text_only = _run(_likert_config(tmp_path, server, "  structured: never\n"), "--dry-run")

    figures = ("judge_calls", "input_tokens", "output_tokens", "cost")
    assert [with_schemas[f] for f in figures] == [text_only[f] for f in figures]
    assert with_schemas["judge_calls"] == 6 and server.stats.requests == 0


def test_models_of_one_run_on_one_endpoint_share_what_it_does_with_schemas(
    tmp_path: Path,
) -> None:
    config = EvalConfig.model_validate(
        {
            "metrics": [{"metric": "multiturn", "composer_model": "openai/composer"}],
            "judge": {"model": "openai/judge", "base_url": "http://127.0.0.1:9/v1"},
            "base_dir": str(tmp_path),
        }
    )
    metrics = [create_metric(spec) for spec in config.metrics]
    elsewhere = get_model("openai/judge", base_url="http://127.0.0.1:10/v1")
    with Store(tmp_path / "r.db") as store:
        judge = build_judge(config.judge, store, "run")
        agents = build_agent_models(config.judge, metrics, store, "run")
    assert judge is not None
    composer = agents["multiturn"]["composer"]
    assert composer.schemas is not judge.schemas

    share_reply_schemas([judge, composer, elsewhere])

    assert composer.schemas is judge.schemas and elsewhere.schemas is not judge.schemas

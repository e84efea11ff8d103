"""Resuming without paying twice: replies to requests in flight at a Ctrl-C are still
awaited, cached and recorded; calls in flight at a kill are marked lost; one process
at a time executes a run; ``--retry-errors`` computes errored results again."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ragjudge.cli import app
from ragjudge.models import GenerateConfig, JudgeModel, ModelSettings, ResponseCache
from ragjudge.models._model import INTERRUPTED, INTERRUPTED_IN_FLIGHT
from ragjudge.models._types import EmbeddingResult
from ragjudge.models.scripted import ReplyScript, ScriptedProvider
from ragjudge.run._judging import StoreRecorder
from ragjudge.schema import Sample
from ragjudge.store._judge_calls import IN_FLIGHT, LOST
from ragjudge.store._lock import run_lock
from ragjudge.store._store import Store
from ragjudge.testing.server import FaultPlan, OpenAITestServer
from served import HeldReplies, running, said_it_waits, write_project

PROMPT = [{"role": "user", "content": "Grade this."}]


def recorded_store(tmp_path: Path) -> tuple[Store, StoreRecorder]:
    store = Store(tmp_path / "runs.db")
    store.create_run(
        run_id="run", name=None, config={}, versions={}, samples=[Sample(request_id="a", request="q")], trials=1
    )  # fmt: skip
    return store, StoreRecorder(store, "run")


def calls(store: Store) -> list[tuple[str | None, str | None]]:
    with sqlite3.connect(store.path) as conn:
        return conn.execute("SELECT text, error FROM judge_calls ORDER BY call_id").fetchall()


async def test_a_reply_in_flight_at_an_interruption_is_cached_and_recorded(tmp_path: Path) -> None:
    store, recorder = recorded_store(tmp_path)
    provider = ScriptedProvider(ReplyScript(default="[RESULT] 4"), latency=0.3)
    cache = ResponseCache(tmp_path / "cache.db")
    judge = JudgeModel(provider, settings=ModelSettings(), cache=cache, recorder=recorder)
    call = asyncio.create_task(judge.generate(PROMPT))
    await asyncio.sleep(0.1)
    assert calls(store) == [(None, IN_FLIGHT)]  # stored before the reply came
    call.cancel()
    with pytest.raises(asyncio.CancelledError):
        await call
    assert judge.in_flight == 1
    await judge.aclose()  # waits for the paid reply
    assert calls(store) == [("[RESULT] 4", None)]
    again = JudgeModel(provider, cache=ResponseCache(tmp_path / "cache.db"))
    reply = await again.generate(PROMPT)
    assert reply.cached and reply.text == "[RESULT] 4"
    assert len(provider.calls) == 1  # paid once


async def test_a_reply_that_does_not_come_within_the_grace_is_recorded_as_such(
    tmp_path: Path,
) -> None:
    store, recorder = recorded_store(tmp_path)
    provider = ScriptedProvider(ReplyScript(default="late"), latency=5.0)
    judge = JudgeModel(provider, settings=ModelSettings(in_flight_grace=0.1), recorder=recorder)
    call = asyncio.create_task(judge.generate(PROMPT))
    await asyncio.sleep(0.05)
    call.cancel()
    with pytest.raises(asyncio.CancelledError):
        await call
    await judge.aclose()
    ((text, error),) = calls(store)
    assert text is None and error is not None and error.startswith(INTERRUPTED_IN_FLIGHT)


async def test_a_call_cancelled_before_its_request_went_out_says_so(tmp_path: Path) -> None:
    store, recorder = recorded_store(tmp_path)
    provider = ScriptedProvider(ReplyScript(default="ok"), latency=0.3)
    judge = JudgeModel(provider, settings=ModelSettings(max_concurrency=1), recorder=recorder)
    first = asyncio.create_task(judge.generate(PROMPT))
    second = asyncio.create_task(judge.generate([{"role": "user", "content": "Other."}]))
    await asyncio.sleep(0.05)  # the second waits for the concurrency slot
    second.cancel()
    with pytest.raises(asyncio.CancelledError):
        await second
    await first
    assert sorted(calls(store), key=str) == sorted([("ok", None), (None, INTERRUPTED)], key=str)


async def test_a_call_waiting_while_another_is_in_flight_says_it_never_went_out(
    tmp_path: Path,
) -> None:
    """Ctrl-C cancels every call at once: the one whose request is out is kept (paid),
    the one still waiting for a permit is recorded as interrupted — not left pending
    (a resume would call it lost) because another request was in flight."""
    store, recorder = recorded_store(tmp_path)
    provider = ScriptedProvider(ReplyScript(default="ok"), latency=0.3)
    judge = JudgeModel(provider, settings=ModelSettings(max_concurrency=1), recorder=recorder)
    first = asyncio.create_task(judge.generate(PROMPT))
    second = asyncio.create_task(judge.generate([{"role": "user", "content": "Other."}]))
    await asyncio.sleep(0.05)
    for call in (first, second):
        call.cancel()
        with pytest.raises(asyncio.CancelledError):
            await call
    assert judge.in_flight == 1
    await judge.aclose()
    assert sorted(calls(store), key=str) == sorted([("ok", None), (None, INTERRUPTED)], key=str)
    assert len(provider.calls) == 1


class HeldEmbeddings(ScriptedProvider):
    """Embeds only once the test lets the reply go (:attr:`answer`)."""

    def __init__(self) -> None:
        super().__init__()
        self.sent = asyncio.Event()
        self.answer = asyncio.Event()

    async def embed(self, texts: list[str]) -> EmbeddingResult:
        self.sent.set()
        await self.answer.wait()
        return await super().embed(texts)


async def test_an_embedding_request_in_flight_at_an_interruption_is_awaited_and_recorded(
    tmp_path: Path,
) -> None:
    store, recorder = recorded_store(tmp_path)
    provider = HeldEmbeddings()
    judge = JudgeModel(provider, recorder=recorder)
    call = asyncio.create_task(judge.embed(["a text to embed"]))
    await provider.sent.wait()
    assert calls(store) == [(None, IN_FLIGHT)]  # stored before the reply came
    call.cancel()
    with pytest.raises(asyncio.CancelledError):
        await call
    assert judge.in_flight == 1
    provider.answer.set()
    await judge.aclose()  # waits for the paid reply
    assert calls(store) == [("1 vector of 16 dimensions", None)]
    assert len(provider.embed_calls) == 1


def test_calls_left_in_flight_by_a_killed_process_are_marked_lost(tmp_path: Path) -> None:
    store, recorder = recorded_store(tmp_path)
    asyncio.run(
        recorder.begin(JudgeModel(ScriptedProvider())._log.record(PROMPT, GenerateConfig(), 0, "m"))
    )
    assert store.mark_lost_calls("run") == 1
    assert calls(store) == [(None, LOST)]
    assert store.judge_usage("run")[0]["lost"] == 1


# the whole path, over HTTP, with a real interruption -----------------------------------

ROWS = [
    {"request_id": f"q{i:02d}", "request": f"question {i}", "response": f"answer {i}",
     "expected_response": f"reference {i}"}
    for i in range(40)
]  # fmt: skip


@pytest.fixture
def server() -> Iterator[OpenAITestServer]:
    yield from running(
        OpenAITestServer(
            replies=ReplyScript(default="Feedback: fine. [RESULT] 4"),
            faults=FaultPlan(latency=(0.4, 0.6)),
        )
    )


def project(tmp_path: Path, server: OpenAITestServer) -> Path:
    return write_project(
        tmp_path,
        ROWS,
        "data: set.jsonl\nmetrics: [{metric: answer_accuracy, contexts: none}]\nconcurrency: 8\n"
        f"judge:\n  model: openai/judge-x\n  base_url: '{server.base_url}'\n",
    )


def scores_in(store: Path) -> int:
    try:
        with sqlite3.connect(store, timeout=5) as conn:
            return int(conn.execute("SELECT COUNT(*) FROM scores").fetchone()[0])
    except sqlite3.OperationalError:
        return 0


def interrupted_run(config: Path, sig: signal.Signals, held: HeldReplies) -> tuple[list[str], str]:
    """Start ``ragjudge run``, send ``sig`` once some scores are stored (while the
    server holds every request after the first ``held.free``); the command and the run
    id. The held requests are released once the run is stopped (after a Ctrl-C, once it
    says it waits for them)."""
    store = config.parent / ".ragjudge" / "runs.db"
    command = [sys.executable, "-m", "ragjudge", "run", str(config), "--no-progress"]
    process = subprocess.Popen(
        command, cwd=config.parent, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )  # fmt: skip
    for _ in range(3000):  # at most about a minute: a safety net, not a measure
        if scores_in(store) >= 8:
            break
        time.sleep(0.02)
    process.send_signal(sig)
    said = said_it_waits(process) if sig == signal.SIGINT else b""
    held.release()
    _, err = process.communicate(timeout=60)
    if sig == signal.SIGINT:
        assert process.returncode == 130, said + err
    answered = held.free - 1  # the first request is the pre-flight question
    assert 8 <= scores_in(store) <= answered, "the run was not interrupted where it was held"
    with sqlite3.connect(store) as conn:
        (run_id,) = conn.execute("SELECT run_id FROM runs").fetchone()
    return command, run_id


def paid_and_recorded(config: Path) -> tuple[int, int, int]:
    with sqlite3.connect(config.parent / ".ragjudge" / "runs.db") as conn:
        recorded = conn.execute("SELECT COUNT(*) FROM judge_calls WHERE cached = 0").fetchone()[0]
        lost = conn.execute("SELECT COUNT(*) FROM judge_calls WHERE error = ?", (LOST,)).fetchone()[
            0
        ]
        scored = conn.execute("SELECT COUNT(*) FROM scores WHERE value = 4").fetchone()[0]
    return recorded, lost, scored


def test_ctrl_c_then_resume_pays_each_prompt_once_and_records_every_paid_call(
    tmp_path: Path, server: OpenAITestServer
) -> None:
    config = project(tmp_path, server)
    command, run_id = interrupted_run(config, signal.SIGINT, HeldReplies(server, free=13))
    resumed = subprocess.run(
        [*command, "--resume", run_id], cwd=tmp_path, capture_output=True, timeout=120
    )
    assert resumed.returncode == 0, resumed.stderr
    recorded, lost, scored = paid_and_recorded(config)
    prompts = [json.dumps(r["messages"]) for r in server.requests_log]
    assert scored == 40 and lost == 0
    assert recorded == server.stats.requests  # the usage table shows every paid call
    assert len(set(prompts)) == len(prompts) - 1  # only the pre-flight question repeats


def test_kill_then_resume_marks_the_calls_in_flight_lost(
    tmp_path: Path, server: OpenAITestServer
) -> None:
    config = project(tmp_path, server)
    command, run_id = interrupted_run(config, signal.SIGKILL, HeldReplies(server, free=13))
    resumed = subprocess.run(
        [*command, "--resume", run_id], cwd=tmp_path, capture_output=True, timeout=120
    )
    assert resumed.returncode == 0, resumed.stderr
    recorded, lost, scored = paid_and_recorded(config)
    assert scored == 40 and lost >= 1  # the held calls were out at the kill
    # every request the server saw is on record; a lost record may not have reached it
    assert recorded - lost <= server.stats.requests <= recorded


def test_two_processes_cannot_execute_one_run(tmp_path: Path, server: OpenAITestServer) -> None:
    config = project(tmp_path, server)
    store = tmp_path / ".ragjudge" / "runs.db"
    with Store(store) as s:
        s.create_run(
            run_id="r1",
            name=None,
            config={"metrics": ["rouge_l"]},
            versions={},
            samples=[],
            trials=1,
        )
    with run_lock(store, "r1"):
        busy = CliRunner().invoke(app, ["run", str(config), "--resume", "r1", "--no-progress"])
    assert busy.exit_code == 2
    assert f"run r1 is being executed by another process (pid {os.getpid()})" in " ".join(
        busy.output.split()
    )
    assert server.stats.requests == 0


def test_retry_errors_computes_errored_results_again(
    tmp_path: Path, server: OpenAITestServer
) -> None:
    server.set_faults(FaultPlan())  # no latency
    config = project(tmp_path, server)
    config.write_text(
        config.read_text().replace("concurrency: 8", "concurrency: 1")
        + "  max_retries: 4\n  backoff_base: 0.001\n  backoff_max: 0.002\n"
    )
    # the pre-flight question gets two 500s (a 500 still answers), then 5 calls fail
    server.fail_next("500", count=2 + 5 * 5)
    first = CliRunner().invoke(app, ["run", str(config), "--no-progress", "--json"])
    assert first.exit_code == 3, first.output
    run_id = json.loads(first.stdout)["run_id"]
    assert json.loads(first.stdout)["metrics"][0]["errors"] == 5
    plain = CliRunner().invoke(
        app, ["run", str(config), "--resume", run_id, "--no-progress", "--json"]
    )
    assert plain.exit_code == 3  # a plain resume leaves finished (errored) results alone
    retried = CliRunner().invoke(
        app, ["run", str(config), "--resume", run_id, "--retry-errors", "--no-progress", "--json"]
    )
    assert retried.exit_code == 0, retried.output
    metric = json.loads(retried.stdout)["metrics"][0]
    assert (metric["n"], metric["errors"], metric["mean"]) == (40, 0, 4.0)


def test_a_resume_takes_masked_secrets_from_the_config_it_was_started_with() -> None:
    from ragjudge.config import EvalConfig
    from ragjudge.run._resuming import resumed_config
    from ragjudge.store._store import RunInfo

    stored = {
        "metrics": ["rouge_l"],
        "target": {"kind": "json_api", "url": "http://app/answer", "headers": {"X-Api-Key": "***"}},
        "judge": {"model": "openai/j", "base_url": "http://***@judge/v1", "temperature": 0.5},
        "trials": 2,
    }
    run = RunInfo(
        run_id="r", name=None, status="interrupted", created_at="", finished_at=None,
        config=stored, versions={}, n_samples=1, trials=2,
    )  # fmt: skip
    given = EvalConfig.model_validate(
        {
            "metrics": ["token_f1"],
            "target": {
                "kind": "json_api",
                "url": "http://app/answer",
                "headers": {"X-Api-Key": "k1"},
            },
            "judge": {"model": "openai/j", "base_url": "http://user:k2@judge/v1"},
        }
    )
    resumed = resumed_config(run, given)
    assert resumed.metrics == ["rouge_l"] and resumed.trials == 2  # the run's own
    assert resumed.target is not None and resumed.target.model_extra == {
        "url": "http://app/answer",
        "headers": {"X-Api-Key": "k1"},
    }
    assert resumed.judge is not None
    assert (resumed.judge.base_url, resumed.judge.temperature) == ("http://user:k2@judge/v1", 0.5)


def test_a_resume_takes_any_setting_a_masked_value_spoilt_from_the_given_config() -> None:
    # values that came from the environment are masked wherever they appear, settings
    # that are not secrets (a folder, a model name) included
    from ragjudge.config import EvalConfig
    from ragjudge.run._resuming import resumed_config
    from ragjudge.store._store import RunInfo

    stored = {
        "metrics": ["rouge_l"],
        "knowledge_base": {"path": "***/kb", "chunk_size": 300},
        "judge": {"model": "openai/***", "base_url": "http://judge/v1", "temperature": 0.5},
        "base_dir": "***/project",
        "trials": 2,
    }
    run = RunInfo(
        run_id="r", name=None, status="interrupted", created_at="", finished_at=None,
        config=stored, versions={}, n_samples=1, trials=2,
    )  # fmt: skip
    given = EvalConfig.model_validate(
        {
            "metrics": ["token_f1"],
            "knowledge_base": {"path": "/data/kb", "chunk_size": 300},
            "judge": {"model": "openai/gpt-4o-mini", "base_url": "http://judge/v1"},
            "base_dir": "/home/me/project",
        }
    )
    resumed = resumed_config(run, given)
    assert resumed.metrics == ["rouge_l"] and resumed.trials == 2  # the run's own
    assert resumed.knowledge_base is not None and str(resumed.knowledge_base.path) == "/data/kb"
    assert str(resumed.base_dir) == "/home/me/project"
    assert resumed.judge is not None
    assert (resumed.judge.model, resumed.judge.temperature) == ("openai/gpt-4o-mini", 0.5)


def test_a_cache_that_is_not_sqlite_is_a_clear_error(tmp_path: Path) -> None:
    folder = tmp_path / "cache_folder"
    folder.mkdir()
    stats = CliRunner().invoke(app, ["cache", "stats", "--path", str(folder)])
    assert stats.exit_code == 2 and "is a folder" in stats.output
    garbage = tmp_path / "cache.db"
    garbage.write_bytes(b"this is not a database at all" * 100)
    stats = CliRunner().invoke(app, ["cache", "stats", "--path", str(garbage)])
    assert stats.exit_code == 2 and "cannot open the cache" in stats.output
    (tmp_path / "set.jsonl").write_text(json.dumps(ROWS[0]) + "\n")
    config = tmp_path / "eval.yaml"
    config.write_text(
        "data: set.jsonl\nmetrics: [{metric: answer_accuracy, contexts: none}]\n"
        f"cache: {garbage.name}\njudge: scripted\n"
    )
    run = CliRunner().invoke(app, ["run", str(config), "--no-progress"])
    assert run.exit_code == 2 and "cache: cannot open the cache" in run.output

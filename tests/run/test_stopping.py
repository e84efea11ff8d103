"""Stopping ``ragjudge run`` from outside, as a terminal, a CI runner or a container
does: SIGINT (Ctrl-C), SIGTERM and SIGHUP each store what finished, wait for the
replies already sent and record them, mark the run interrupted, print the command that
resumes it and exit 128 + the signal's number; a second signal stops the wait. Never a
traceback. Each test runs the real command and signals it while the local test server
holds its requests."""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ragjudge.models._recording import INTERRUPTED
from ragjudge.models.scripted import ReplyScript, prompt_text
from ragjudge.run._stopping import Stopping
from ragjudge.store._judge_calls import IN_FLIGHT
from ragjudge.testing.server import OpenAITestServer
from served import HeldReplies, running, said_it_waits, write_project

ROWS = [
    {"request_id": f"q{i:02d}", "request": f"question {i}", "response": f"answer {i}",
     "expected_response": f"reference {i}"}
    for i in range(40)
]  # fmt: skip
CONCURRENCY = 4


# -- in this process ------------------------------------------------------------------


def raise_handled(sig: signal.Signals) -> None:
    """Send ``sig`` to this process, once it is certain not to end it."""
    assert signal.getsignal(sig) not in (signal.SIG_DFL, signal.SIG_IGN, None)
    signal.raise_signal(sig)


# sigterm-sighup: SIGTERM and SIGHUP killed the run at once, nothing stored or printed
def test_a_signal_cancels_the_run_which_cleans_up_and_says_which_signal_it_was() -> None:
    cleaned: list[str] = []

    async def run() -> None:
        try:
            raise_handled(signal.SIGTERM)
            await asyncio.sleep(3600)  # cancelled here
        finally:
            cleaned.append("cleaned up")

    stopping = Stopping()
    with pytest.raises(KeyboardInterrupt):
        stopping.run(run())

    assert (stopping.signal_name, stopping.exit_code) == ("SIGTERM", 143)
    assert cleaned == ["cleaned up"]


def test_a_second_signal_ends_work_that_holds_the_loop_at_once() -> None:
    reached: list[str] = []

    async def held() -> None:
        raise_handled(signal.SIGHUP)  # taken up only once the loop runs again
        reached.append("first")
        raise_handled(signal.SIGINT)
        reached.append("second")

    stopping = Stopping()
    with pytest.raises(KeyboardInterrupt):
        stopping.run(held())

    assert (stopping.signal_name, stopping.exit_code) == ("SIGHUP", 129)
    assert reached == ["first"]


def test_the_handlers_are_put_back_and_an_ignored_signal_stays_ignored() -> None:
    before = signal.getsignal(signal.SIGTERM)
    ignored = signal.signal(signal.SIGHUP, signal.SIG_IGN)
    seen: dict[str, object] = {}

    async def run() -> str:
        seen["SIGHUP"] = signal.getsignal(signal.SIGHUP)
        seen["SIGTERM"] = signal.getsignal(signal.SIGTERM)
        return "done"

    try:
        assert Stopping().run(run()) == "done"
        assert seen["SIGHUP"] is signal.SIG_IGN and seen["SIGTERM"] is not before
        assert signal.getsignal(signal.SIGTERM) is before
        assert signal.getsignal(signal.SIGHUP) is signal.SIG_IGN
    finally:
        signal.signal(signal.SIGHUP, ignored)


# -- the command ------------------------------------------------------------------------


@pytest.fixture
def server() -> Iterator[OpenAITestServer]:
    yield from running(OpenAITestServer(replies=ReplyScript(default="Feedback: fine. [RESULT] 4")))


def project(tmp_path: Path, server: OpenAITestServer, extra: str = "") -> Path:
    return write_project(
        tmp_path,
        ROWS,
        "data: set.jsonl\nmetrics: [{metric: answer_accuracy, contexts: none}]\n"
        f"concurrency: {CONCURRENCY}\n"
        f"judge:\n  model: openai/judge\n  base_url: '{server.base_url}'\n{extra}",
    )


def start(config: Path, *flags: str) -> subprocess.Popen[bytes]:
    command = [sys.executable, "-m", "ragjudge", "run", str(config), "--no-progress", *flags]
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "COLUMNS": "300"}
    return subprocess.Popen(
        command, cwd=config.parent, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env
    )


def stored(config: Path, sql: str) -> Any:
    with sqlite3.connect(config.parent / ".ragjudge" / "runs.db") as conn:
        return conn.execute(sql).fetchone()[0]


# sigterm-sighup: SIGTERM and SIGHUP killed the run at once, nothing stored or printed
@pytest.mark.parametrize(
    "sig", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP], ids=["SIGINT", "SIGTERM", "SIGHUP"]
)
def test_a_stop_signal_stores_what_finished_and_the_replies_already_sent(
    tmp_path: Path, server: OpenAITestServer, sig: signal.Signals
) -> None:
    config = project(tmp_path, server)
    held = HeldReplies(server, free=9)  # the pre-flight question and 8 answers
    process = start(config)
    held.wait_held(CONCURRENCY)  # 8 samples done, 4 requests out

    process.send_signal(sig)
    said = said_it_waits(process)
    held.release()
    _, rest = process.communicate(timeout=120)
    err = (said + rest).decode()

    assert process.returncode == 128 + sig, err
    assert "Traceback" not in err
    (run_id,) = {stored(config, "SELECT run_id FROM runs")}
    assert err.splitlines()[-1] == (
        f"interrupted ({sig.name}); finished results are stored. "
        f"Resume with: ragjudge run {config} --resume {run_id}"
    )
    assert stored(config, "SELECT status FROM runs") == "interrupted"
    assert stored(config, "SELECT COUNT(*) FROM scores") == 8
    # the replies to the 4 requests out came during the grace: recorded, none left out
    assert stored(config, "SELECT COUNT(*) FROM judge_calls WHERE text IS NOT NULL") == 13
    assert stored(config, "SELECT COUNT(*) FROM judge_calls WHERE error IS NOT NULL") == 0

    resumed = subprocess.run(
        [sys.executable, "-m", "ragjudge", "run", str(config), "--resume", run_id, "--json"],
        cwd=tmp_path, capture_output=True, timeout=120,
    )  # fmt: skip
    assert resumed.returncode == 0, resumed.stderr
    assert json.loads(resumed.stdout)["metrics"][0]["n"] == 40
    prompts = [json.dumps(r["messages"]) for r in server.requests_log]
    assert len(set(prompts)) == len(prompts) - 1  # only the pre-flight question repeats


# sigint-tracebacks: Ctrl-C on a RAG-suite run, or a second Ctrl-C, printed tracebacks
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_second_signal_stops_waiting_and_records_the_replies_as_in_flight(
    tmp_path: Path, server: OpenAITestServer, sig: signal.Signals
) -> None:
    config = project(tmp_path, server, extra="  in_flight_grace: 3600\n")
    held = HeldReplies(server, free=9)
    process = start(config)
    held.wait_held(CONCURRENCY)

    process.send_signal(sig)
    said = said_it_waits(process)
    process.send_signal(sig)  # the replies are never let go: not waited for
    try:
        _, rest = process.communicate(timeout=120)  # a safety net, far below the grace
    finally:
        held.release()
    err = (said + rest).decode()

    assert process.returncode == 128 + sig, err
    assert "Traceback" not in err and "Task " not in err, err
    assert err.splitlines()[-1].startswith(f"interrupted ({sig.name}); finished results are")
    assert stored(config, "SELECT status FROM runs") == "interrupted"
    assert stored(config, "SELECT COUNT(*) FROM scores") == 8
    abandoned = "SELECT COUNT(*) FROM judge_calls WHERE error LIKE 'interrupted while in flight%'"
    assert stored(config, abandoned) == CONCURRENCY
    assert stored(config, f"SELECT COUNT(*) FROM judge_calls WHERE error = '{IN_FLIGHT}'") == 0


def rag_judge(messages: list[dict[str, Any]]) -> str:
    """Well-formed replies to the prompts of the RAG suite's metrics."""
    text = prompt_text(messages)

    def verdicts(item: str) -> str:
        count = max(1, len(re.findall(rf"<<<BEGIN {item} \d+", text)))
        return json.dumps({"verdicts": [{"reason": "supported", "verdict": "yes"}] * count})

    if "You break an answer into statements" in text:
        return json.dumps({"statements": ["UNION removes duplicate rows.", "It is SQL."]})
    if "You check statements against context documents" in text:
        return verdicts("STATEMENT")
    if "You check which sentences of a reference answer" in text:
        return verdicts("SENTENCE")
    if "You judge whether each context document was useful" in text:
        return verdicts("CONTEXT")
    if "You write the questions an answer responds to" in text:
        questions = ["What does UNION do?", "What is UNION?", "How does UNION work?"]
        return json.dumps({"questions": questions, "noncommittal": 0})
    return "OK"


# sigint-tracebacks: Ctrl-C on a RAG-suite run, or a second Ctrl-C, printed tracebacks
def test_ctrl_c_twice_on_a_rag_suite_run_leaves_no_work_behind_and_no_traceback(
    tmp_path: Path,
) -> None:
    rows = [
        {"request_id": f"r{i:02d}", "request": f"What does UNION do ({i})?",
         "response": "UNION removes duplicate rows. It is SQL.",
         "expected_response": "UNION removes duplicates. UNION ALL keeps them.",
         "retrieved_context": [
             {"doc_uri": "union.md", "content": "UNION removes duplicate rows from a result."},
             {"doc_uri": "union_all.md", "content": "UNION ALL keeps every row."}]}
        for i in range(30)
    ]  # fmt: skip
    with OpenAITestServer(replies=ReplyScript(function=rag_judge)) as server:
        config = write_project(
            tmp_path,
            rows,
            "data: set.jsonl\nconcurrency: 8\nmetrics:\n  - faithfulness\n"
            "  - {metric: answer_relevancy, embedding: openai/emb}\n"
            "  - context_precision\n  - context_recall\n"
            f"judge: {{model: openai/judge, base_url: '{server.base_url}', max_concurrency: 32,"
            " structured: never}\n",
        )
        # (text replies: with reply schemas the first call that sends one goes alone, and
        # it would be held)
        # all but the pre-flight question held: each of the 8 samples under way waits
        # for its 4 first calls, among them its statements, which faithfulness shares
        held = HeldReplies(server, free=1)
        process = start(config, "--no-cache")
        held.wait_held(32)

        process.send_signal(signal.SIGINT)
        said = said_it_waits(process)
        process.send_signal(signal.SIGINT)  # the held replies never come
        try:
            _, rest = process.communicate(timeout=120)
        finally:
            held.release()
        requests = server.stats.requests
    err = (said + rest).decode()

    assert process.returncode == 130, err
    assert "Traceback" not in err and "Task " not in err, err
    assert err.splitlines()[-1].startswith("interrupted (SIGINT); finished results are stored.")
    assert stored(config, "SELECT status FROM runs") == "interrupted"
    # every request sent is on record, answered or abandoned in flight; the calls that
    # were waiting for a permit say they never went out; none is left "in flight"
    sent = "text IS NOT NULL OR error LIKE 'interrupted while in flight%'"
    assert stored(config, f"SELECT COUNT(*) FROM judge_calls WHERE {sent}") == requests
    other = f"NOT ({sent}) AND error != '{INTERRUPTED}'"
    assert stored(config, f"SELECT COUNT(*) FROM judge_calls WHERE {other}") == 0

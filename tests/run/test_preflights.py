"""The pre-flight question of a run: asked at a model's first request to the provider,
in the background (no call waits for it), under the model's own limiter, never when
every call is cached; a model that does not answer stops the run, which is stored as
failed with the reason."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ragjudge.cli import app
from ragjudge.config import EvalConfig
from ragjudge.models import GenerateConfig, JudgeCallRecord, JudgeModel, ModelError
from ragjudge.models._settings import ModelSettings
from ragjudge.models._types import ChatMessage, EmbeddingResult, Generation
from ragjudge.models.scripted import ReplyScript
from ragjudge.run._judging import PREFLIGHT_PROMPT, JudgeUnavailable, ask_preflight
from ragjudge.run._preflights import Preflights
from ragjudge.run._runner import run_evaluation
from ragjudge.store._store import Store
from ragjudge.testing.server import FaultPlan, OpenAITestServer
from served import running, write_project

runner = CliRunner()
GRADE = [{"role": "user", "content": "Grade this answer."}]
ROWS = [
    {
        "request_id": f"q{i}",
        "request": f"What is fact number {i}?",
        "response": f"Fact {i}.",
        "expected_response": f"Fact {i} is true.",
    }
    for i in range(6)
]


class HeldQuestion:
    """A provider that answers the pre-flight question only once :attr:`release` is
    set (or refuses it, with ``refuse``), and every other prompt at once."""

    name = "stand-in"
    model = "judge"

    def __init__(self, refuse: bool = False, hold_calls: bool = False) -> None:
        self.release = asyncio.Event()
        self.refuse = refuse
        self.hold_calls = hold_calls
        """Every other prompt waits for :attr:`release` too."""
        self.prompts: list[str] = []

    async def complete(self, messages: list[ChatMessage], config: GenerateConfig) -> Generation:
        prompt = str(messages[-1]["content"])
        self.prompts.append(prompt)
        if prompt == PREFLIGHT_PROMPT:
            if self.refuse:
                raise ModelError("404 model not found", kind="client", status=404)
            await self.release.wait()
            return Generation(text="OK", model=self.model)
        if self.hold_calls:
            await self.release.wait()
        return Generation(text="Feedback: fine. [RESULT] 5", model=self.model)

    async def embed(self, texts: list[str]) -> EmbeddingResult:
        raise NotImplementedError


class Kept:
    """A call recorder that keeps the records."""

    def __init__(self) -> None:
        self.records: list[JudgeCallRecord] = []

    async def __call__(self, record: JudgeCallRecord) -> int:
        self.records.append(record)
        return len(self.records)


async def test_the_question_takes_a_permit_from_the_models_limiter() -> None:
    provider = HeldQuestion()
    provider.release.set()
    model = JudgeModel(provider, settings=ModelSettings(rpm=1, burst=1))
    kept = Kept()
    await ask_preflight(model, kept)
    assert model.limiter_stats().granted == 1  # the question's permit, from the model's
    assert [r.purpose for r in kept.records] == ["preflight"]
    # at 1 request per minute the model's next call has to wait its turn
    with pytest.raises(TimeoutError):
        await asyncio.wait_for(model.generate(GRADE), timeout=0.5)


async def test_the_first_call_goes_out_without_waiting_for_the_question() -> None:
    provider = HeldQuestion()
    model = JudgeModel(provider)
    kept, preflights = Kept(), Preflights()
    preflights.ask_at_first_request(model, kept)
    assert preflights.started == 0  # nothing asked before a request goes out
    reply = await asyncio.wait_for(model.generate(GRADE), timeout=30)
    assert reply.text.endswith("[RESULT] 5")
    assert preflights.started == 1 and kept.records == []  # still unanswered
    await model.generate([{"role": "user", "content": "Grade another."}])
    assert preflights.started == 1  # one question per model
    provider.release.set()
    await preflights.settled()
    assert provider.prompts.count(PREFLIGHT_PROMPT) == 1
    assert [r.purpose for r in kept.records] == ["preflight"]


async def test_a_refused_question_fails_the_watch_naming_the_model() -> None:
    model = JudgeModel(HeldQuestion(refuse=True))
    preflights = Preflights()
    preflights.ask_at_first_request(model, Kept())
    await model.generate(GRADE)
    with pytest.raises(JudgeUnavailable, match=r"stand-in/judge does not answer \(client\)"):
        await asyncio.wait_for(asyncio.shield(preflights.failure), timeout=30)
    with pytest.raises(JudgeUnavailable):
        await preflights.settled()


async def test_a_model_never_asked_leaves_the_watch_pending() -> None:
    preflights = Preflights()
    preflights.ask_at_first_request(JudgeModel(HeldQuestion(refuse=True)), Kept())
    await preflights.settled()  # no request went out: nothing to wait for, no error
    assert preflights.started == 0 and not preflights.failure.done()


async def test_a_refused_question_cancels_the_samples_under_way(tmp_path: Path) -> None:
    provider = HeldQuestion(refuse=True, hold_calls=True)  # no judge call ever returns
    config = EvalConfig(
        metrics=[{"metric": "answer_accuracy", "contexts": "none"}],
        judge={"model": "scripted", "in_flight_grace": 0},  # the held replies are not awaited
        store=str(tmp_path / "runs.db"),
        concurrency=2,
    )
    running = run_evaluation(config, data=ROWS, judge_provider=provider, progress=False)
    with pytest.raises(JudgeUnavailable, match="does not answer"):
        await asyncio.wait_for(running, timeout=60)
    assert PREFLIGHT_PROMPT in provider.prompts
    assert len(provider.prompts) == 1 + 2  # the question and the first two samples' calls
    with Store(tmp_path / "runs.db") as store:
        (run,) = store.runs()
        assert run.status == "failed"


REPLIES = ReplyScript(default="Feedback: correct and complete. [RESULT] 5")


@pytest.fixture
def server() -> Iterator[OpenAITestServer]:
    yield from running(OpenAITestServer(replies=REPLIES))


@pytest.fixture
def limited_server() -> Iterator[OpenAITestServer]:
    """4 requests in any 2 s (120 a minute, counted per 2 s)."""
    yield from running(
        OpenAITestServer(replies=REPLIES, faults=FaultPlan(rpm_limit=120, limit_period=2.0))
    )


def _config(tmp_path: Path, base_url: str, judge: str = "") -> Path:
    return write_project(
        tmp_path,
        ROWS,
        "data: set.jsonl\nstore: runs.db\n"
        "metrics: [{metric: answer_accuracy, contexts: none}]\n"
        "judge:\n"
        "  model: openai/test-model\n"
        f"  base_url: {base_url}\n"
        "  max_retries: 2\n  backoff_base: 0.01\n  backoff_max: 0.05\n  timeout: 30\n"
        f"{judge}concurrency: 6\n",
    )


def _run(config: Path, exit_code: int) -> str:
    result = runner.invoke(app, ["run", str(config), "--json", "--no-progress"])
    assert result.exit_code == exit_code, result.output
    return result.output


def _purposes(store: Path) -> list[str]:
    with sqlite3.connect(store) as conn:
        rows = conn.execute("SELECT purpose FROM judge_calls").fetchall()
    return [purpose for (purpose,) in rows]


def test_a_run_filling_the_providers_window_causes_no_429(
    tmp_path: Path, limited_server: OpenAITestServer
) -> None:
    # the judge's limit is the provider's, paced over a longer window (4 s against 2 s)
    # so a request a loaded machine delays still falls in its own window; six calls and
    # the question are seven requests: four in the first window, three in the next (a
    # question with a limiter of its own would make five in the first)
    judge = "  rpm: 4\n  rate_window: 4\n  burst: window\n"
    summary = json.loads(_run(_config(tmp_path, limited_server.base_url, judge), exit_code=0))
    assert summary["metrics"][0]["n"] == 6
    assert limited_server.stats.rate_limited_by_rpm == 0
    assert _purposes(tmp_path / "runs.db").count("preflight") == 1


def test_a_cached_rerun_completes_with_the_endpoint_down(
    tmp_path: Path, server: OpenAITestServer
) -> None:
    config = _config(tmp_path, server.base_url)
    first = json.loads(_run(config, exit_code=0))
    server.stop()
    again = json.loads(_run(config, exit_code=0))
    assert again["run_id"] != first["run_id"]
    assert again["metrics"][0]["n"] == 6 and again["metrics"][0]["mean"] == 5.0
    with sqlite3.connect(tmp_path / "runs.db") as conn:
        asked = conn.execute(
            "SELECT run_id FROM judge_calls WHERE purpose = 'preflight'"
        ).fetchall()
    assert asked == [(first["run_id"],)]  # the cached re-run never asked


def test_a_refusing_endpoint_stops_the_run_stored_as_failed_with_the_reason(
    tmp_path: Path, server: OpenAITestServer
) -> None:
    config = _config(tmp_path, f"{server.root_url}/no-such-route/v1")
    said = " ".join(_run(config, exit_code=2).split())
    assert "the judge model openai/test-model does not answer (client)" in said
    assert "Traceback" not in said
    listed = runner.invoke(app, ["runs", "--store", str(tmp_path / "runs.db"), "--json"])
    (run,) = json.loads(listed.output)
    assert run["status"] == "failed"
    with sqlite3.connect(tmp_path / "runs.db") as conn:
        notes = [
            json.loads(data)["text"]
            for (data,) in conn.execute("SELECT data_json FROM run_events WHERE kind = 'note'")
        ]
    assert any(n.startswith("the judge model openai/test-model does not answer") for n in notes)

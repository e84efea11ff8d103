"""Simulated users with a persona and a goal, and paired replay: system B receives
exactly the follow-up questions the simulator wrote for system A. Judge and agents are
the local OpenAI-compatible test server answering from a script (real HTTP)."""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import ragjudge as rj
from ragjudge.analysis._followups import replay_rows
from ragjudge.models.scripted import ReplyScript, prompt_text
from ragjudge.store import Store
from ragjudge.testing.server import OpenAITestServer
from served import running

REFERENCE = "UNION removes duplicate rows; UNION ALL keeps them and is faster."
ROWS = [
    {
        "request_id": "u1",
        "request": "How do UNION and UNION ALL differ?",
        "expected_response": REFERENCE,
    },
    {"request_id": "u2", "request": "What does UNION ALL keep?", "expected_response": REFERENCE},
]
PERSONA = "a hurried data analyst who writes in lower case"
GOAL = "know which of the two to use for a big report"


class Simulator:
    """Judge, composer and generator told apart by their prompts. The judge always
    gives 3, so a dialogue runs to its turn limit; the generator numbers its follow-ups
    with a marker no target could guess (so a replay cannot produce them by chance)."""

    def __init__(self) -> None:
        self.calls: Counter[str] = Counter()
        self.prompts: list[str] = []
        self.written = 0

    def __call__(self, messages: list[dict[str, Any]]) -> str:
        prompt = prompt_text(messages)
        if "Query: <query>" in prompt:
            self.calls["generator"] += 1
            self.prompts.append(prompt)
            self.written += 1
            return (
                f"Query: follow-up #{self.written} ~{self.written * 7}~ please?, Explanation: more"
            )
        if "Answer: <revised answer>" in prompt:
            self.calls["rewrite"] += 1
            return "Answer: rewritten, Explanation: final"
        if "Answer: <answer>" in prompt:
            self.calls["composer"] += 1
            answers = re.findall(r"<<<BEGIN QA ANSWER \d+>>>\n(.*?)\n<<<END", prompt, re.S)
            return f"Answer: {answers[-1]}, Explanation: echoed"
        self.calls["judge"] += 1
        return "Feedback: partial. [RESULT] 3"


class Target:
    """A system under test that keeps every query it is asked."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.queries: list[str] = []

    def __call__(self, query: str, history: list[dict[str, str]]) -> str:
        self.queries.append(query)
        return f"{self.name} answers: {query}"


@pytest.fixture
def simulator() -> Simulator:
    return Simulator()


@pytest.fixture
def server(simulator: Simulator) -> Iterator[OpenAITestServer]:
    yield from running(OpenAITestServer(replies=ReplyScript(function=simulator)))


def evaluate(
    rows: list[dict[str, Any]],
    target: Target,
    server: OpenAITestServer,
    store: Path,
    **options: Any,
) -> rj.EvaluationResult:
    return rj.evaluate(
        rows,
        target=target,
        metrics=[{"metric": "multiturn", "contexts": "none", "max_turns": 5, **options}],
        judge={"model": "openai/sim", "base_url": server.base_url, "preflight": False},
        cache=False,
        concurrency=1,
        store=store,
        progress=False,
    )


def transcript(store: Path, request_id: str) -> dict[str, Any]:
    with Store(store) as opened:
        (run,) = opened.runs()
        for found, _, score in opened.scores(run.run_id):
            if found == request_id and "transcript" in score.details:
                return dict(score.details["transcript"])
    raise AssertionError(f"no transcript for {request_id}")


def test_persona_and_goal_reach_the_generator_inside_their_blocks(
    tmp_path: Path, server: OpenAITestServer, simulator: Simulator
) -> None:
    evaluate(ROWS[:1], Target("a"), server, tmp_path / "r.db", persona=PERSONA, goal=GOAL)
    prompt = simulator.prompts[0]
    assert f"<<<BEGIN PERSONA>>>\n{PERSONA}\n<<<END PERSONA>>>" in prompt
    assert f"<<<BEGIN GOAL>>>\n{GOAL}\n<<<END GOAL>>>" in prompt
    found = transcript(tmp_path / "r.db", "u1")
    assert (found["persona"], found["goal"]) == (PERSONA, GOAL)


def test_a_goal_met_ends_the_dialogue_and_says_why(tmp_path: Path) -> None:
    def blank_generator(messages: list[dict[str, Any]]) -> str:
        prompt = prompt_text(messages)
        if "Query: <query>" in prompt:
            return "Query: , Explanation: the goal is met"
        if "Answer: <revised answer>" in prompt:
            return "Answer: use UNION ALL, Explanation: final"
        if "Answer: <answer>" in prompt:
            return "Answer: use UNION ALL, Explanation: echoed"
        return "Feedback: partial. [RESULT] 4"

    with OpenAITestServer(replies=ReplyScript(function=blank_generator)) as server:
        result = evaluate(ROWS[:1], Target("a"), server, tmp_path / "r.db", goal=GOAL)
    wscore = next(s for s in result.summaries if s.metric == "wscore")
    assert wscore.n == 1
    with Store(tmp_path / "r.db") as opened:
        (run,) = opened.runs()
        ends = {s.details.get("end") for _, _, s in opened.scores(run.run_id)}
    assert ends == {"goal_met"}


def test_system_b_gets_byte_identical_follow_ups_without_the_generator(
    tmp_path: Path, server: OpenAITestServer, simulator: Simulator
) -> None:
    system_a, system_b = Target("a"), Target("b")
    evaluate(ROWS, system_a, server, tmp_path / "a.db", persona=PERSONA)
    asked_by_a = list(system_a.queries)
    followups = [q for q in asked_by_a if q.startswith("follow-up")]
    assert len(followups) == 8  # four per sample: turns 2 to 5 of the default 5

    with Store(tmp_path / "a.db") as opened:
        (run,) = opened.runs()
        rows = replay_rows(opened, run.run_id)
    assert [r["metadata"]["followups"] for r in rows] == [followups[:4], followups[4:]]
    (tmp_path / "b.jsonl").write_text("\n".join(json.dumps(r) for r in rows) + "\n")

    generated_before = simulator.calls["generator"]
    evaluate(rows, system_b, server, tmp_path / "b.db", replay=True)
    assert system_b.queries == asked_by_a
    assert [q.encode() for q in system_b.queries] == [q.encode() for q in asked_by_a]
    assert simulator.calls["generator"] == generated_before
    events = transcript(tmp_path / "b.db", "u1")["events"]
    assert [e.get("replayed") for e in events if e["task"] == "T4/T5"] == [True] * 4


def test_replay_without_follow_ups_is_an_explicit_error(
    tmp_path: Path, server: OpenAITestServer
) -> None:
    with pytest.warns(rj.RunFailedWarning):
        result = evaluate(ROWS[:1], Target("b"), server, tmp_path / "r.db", replay=True)
    frame = result.to_pandas()
    assert "metadata.followups" in str(frame.loc[0, "wscore.error"])

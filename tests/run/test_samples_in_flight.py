"""Samples in flight follow the judge's places when ``concurrency`` is not set, and are
exactly ``concurrency`` when it is."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import ragjudge as rj
from ragjudge.config import EvalConfig
from ragjudge.models import ChatMessage, GenerateConfig, Generation, JudgeModel, ModelSettings
from ragjudge.models.scripted import ReplyScript, ScriptedProvider
from ragjudge.run._samples_in_flight import MIN_SAMPLES_IN_FLIGHT, at_once, samples_in_flight

SAMPLES = 40


class Gathering(ScriptedProvider):
    """Holds each call until ``expected`` calls have arrived (or a few seconds have
    passed), and counts the calls held at once."""

    def __init__(self, expected: int = SAMPLES) -> None:
        super().__init__(ReplyScript(default="Feedback: fine. [RESULT] 4"))
        self.expected = expected
        self.arrived = 0
        self.held = 0
        self.most_held = 0

    async def complete(self, messages: list[ChatMessage], config: GenerateConfig) -> Generation:
        self.arrived += 1
        self.held += 1
        self.most_held = max(self.most_held, self.held)
        deadline = time.monotonic() + 5.0
        while self.arrived < self.expected and time.monotonic() < deadline:
            await asyncio.sleep(0.005)
        self.held -= 1
        return await super().complete(messages, config)


def rows() -> list[dict[str, Any]]:
    return [
        {"request": f"question {i}", "response": f"answer {i}", "expected_response": "ref"}
        for i in range(SAMPLES)
    ]


def run(tmp_path: Path, provider: Gathering, **given: Any) -> rj.EvalResult:
    return rj.evaluate(
        rows(),
        metrics=[{"metric": "answer_accuracy", "contexts": "none"}],
        judge=provider,
        store=str(tmp_path / "runs.db"),
        progress=False,
        **given,
    )


def test_without_concurrency_every_sample_the_judge_can_take_is_in_flight(
    tmp_path: Path,
) -> None:
    provider = Gathering()
    result = run(tmp_path, provider)
    assert provider.most_held == SAMPLES  # not the 8 of a fixed default
    assert result.summaries[0].n == SAMPLES


def test_a_concurrency_given_is_kept(tmp_path: Path) -> None:
    provider = Gathering(expected=5)
    result = run(tmp_path, provider, concurrency=5)
    assert provider.most_held == 5
    assert result.summaries[0].n == SAMPLES


def test_samples_follow_the_judges_places_with_a_floor() -> None:
    unset = EvalConfig.model_validate({"data": "x.jsonl", "metrics": ["exact_match"]})
    given = EvalConfig.model_validate(
        {"data": "x.jsonl", "metrics": ["exact_match"], "concurrency": 3}
    )
    free = JudgeModel(ScriptedProvider(ReplyScript(default="ok")))
    paced = JudgeModel(
        ScriptedProvider(ReplyScript(default="ok")),
        settings=ModelSettings(rpm=6, burst=1),
    )
    assert at_once(samples_in_flight(given, free)) == 3
    assert at_once(samples_in_flight(unset, None)) == unset.concurrency
    assert at_once(samples_in_flight(unset, free)) == free.limiter_stats().concurrency
    assert at_once(samples_in_flight(unset, paced)) == MIN_SAMPLES_IN_FLIGHT

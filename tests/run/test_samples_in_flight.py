"""Samples in flight follow the judge's places when ``concurrency`` is not set, and are
exactly ``concurrency`` when it is."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

import ragjudge as rj
from ragjudge.config import EvalConfig
from ragjudge.models import ChatMessage, GenerateConfig, Generation, JudgeModel, ModelSettings
from ragjudge.models._semaphore import SharedSemaphore
from ragjudge.models.scripted import ReplyScript, ScriptedProvider
from ragjudge.run import _execution as execution_module
from ragjudge.run._samples_in_flight import (
    MIN_SAMPLES_IN_FLIGHT,
    InFlight,
    sample_gate,
    samples_in_flight,
)

SAMPLES = 40


class Gathering(ScriptedProvider):
    """Holds every call until each sample that holds a place of the run's sample gate is
    waiting on its call — then the gate, not the judge, is what keeps more samples out —
    or every sample's call has arrived; counts the calls held at once."""

    def __init__(self) -> None:
        super().__init__(ReplyScript(default="Feedback: fine. [RESULT] 4"))
        self.gates: list[SharedSemaphore] = []
        self.arrived = 0
        self.held = 0
        self.most_held = 0

    async def complete(self, messages: list[ChatMessage], config: GenerateConfig) -> Generation:
        self.arrived += 1
        self.held += 1
        self.most_held = max(self.most_held, self.held)
        while not self._gate_is_the_limit():
            await asyncio.sleep(0)
        self.held -= 1
        return await super().complete(messages, config)

    def _gate_is_the_limit(self) -> bool:
        if self.arrived >= SAMPLES:
            return True
        gate = self.gates[-1]
        return gate.waiting > 0 and self.held >= gate.active


def watched(provider: Gathering, monkeypatch: pytest.MonkeyPatch) -> None:
    """Hand the run's sample gate to ``provider``."""

    def gate(in_flight: InFlight) -> SharedSemaphore:
        made = sample_gate(in_flight)
        provider.gates.append(made)
        return made

    monkeypatch.setattr(execution_module, "sample_gate", gate)


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
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    provider = Gathering()
    watched(provider, monkeypatch)
    result = run(tmp_path, provider)
    assert provider.most_held == SAMPLES  # not the 8 of a fixed default
    assert result.summaries[0].n == SAMPLES


def test_a_concurrency_given_is_kept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    provider = Gathering()
    watched(provider, monkeypatch)
    result = run(tmp_path, provider, concurrency=5)
    assert provider.most_held == 5
    assert result.summaries[0].n == SAMPLES


def at_once(in_flight: InFlight) -> int:
    return in_flight() if callable(in_flight) else in_flight


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

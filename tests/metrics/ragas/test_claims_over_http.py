"""The claim-level metrics through the whole judge layer and real HTTP: a run against
the local test server whose scripted replies are the hand-computed cases' gives their
values, and the requests the server received equal the calls the metrics declare —
the claims of the response and of the reference are extracted once for faithfulness,
answer_correctness, factual_correctness and noise_sensitivity together."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from ragas_helpers import Judge, claim_checks, kind_of, statements, verdicts
from test_noise_sensitivity import (
    G1,
    G2,
    NOISE,
    QUESTION,
    R1,
    R2,
    R3,
    REFERENCE,
    RELEVANT,
    RESPONSE,
)

import ragjudge as rj
from ragjudge.models.scripted import ReplyScript, prompt_text
from ragjudge.store import Store
from ragjudge.testing.server import OpenAITestServer

# R1 correct, R2 and R3 not; the first chunk supports G1, G2 and R2, the second only R3
SUPPORTED = {(REFERENCE, R1), (RESPONSE, G1), (RELEVANT, G1), (RELEVANT, G2),
             (RELEVANT, R2), (NOISE, R3)}  # fmt: skip
ROW = {
    "request_id": "lic",
    "request": QUESTION,
    "response": RESPONSE,
    "expected_response": REFERENCE,
    "retrieved_context": [
        {"doc_uri": "lic.md", "content": RELEVANT},
        {"doc_uri": "delhi.md", "content": NOISE},
    ],
}
METRICS = ["faithfulness", "answer_correctness", "factual_correctness",
           {"metric": "noise_sensitivity", "name": "noise_relevant", "focus": "relevant"},
           {"metric": "noise_sensitivity", "name": "noise_irrelevant", "focus": "irrelevant"}]  # fmt: skip


def script() -> Judge:
    return Judge(
        statements=lambda p: statements(R1, R2, R3) if "Delhi" in p else statements(G1, G2),
        claims=claim_checks(SUPPORTED),
        faithfulness=verdicts("yes", "yes", "yes"),
        classify=json.dumps(
            {
                "TP": [{"answer_statement": 1, "reason": "r"}],
                "FP": [{"answer_statement": 2, "reason": "r"}, {"answer_statement": 3, "reason": "r"}],
                "FN": [{"reference_statement": 2, "reason": "r"}],
            }
        ),
    )  # fmt: skip


class Answering:
    """The scripted judge behind the server; the pre-flight question gets "OK"."""

    def __init__(self, judge: Judge) -> None:
        self.judge = judge

    def __call__(self, messages: list[Any]) -> str | None:
        try:
            kind_of(prompt_text(messages))
        except StopIteration:
            return None
        return self.judge(messages)


@pytest.fixture
def served() -> Iterator[tuple[OpenAITestServer, Judge]]:
    judge = script()
    with OpenAITestServer(replies=ReplyScript(function=Answering(judge))) as server:
        yield server, judge


def test_values_and_requests_equal_the_hand_computed_ones(
    tmp_path: Path, served: tuple[OpenAITestServer, Judge]
) -> None:
    server, judge = served
    result = rj.evaluate(
        [ROW],
        metrics=METRICS,
        judge={"model": "openai/judge", "base_url": server.base_url},
        store=str(tmp_path / "runs.db"),
        progress=False,
    )
    values = result.to_pandas().iloc[0]
    assert values["factual_correctness"] == pytest.approx(0.4)  # P 1/3, R 1/2
    assert values["noise_relevant"] == pytest.approx(1 / 3)  # R2, from the relevant chunk
    assert values["noise_irrelevant"] == pytest.approx(1 / 3)  # R3, from the noise
    assert values["faithfulness"] == pytest.approx(1.0)
    # two extractions for all four metrics; faithfulness and answer_correctness one call
    # each; factual_correctness two checks (the response's claims against the reference,
    # shared with noise_sensitivity, and the reference's against the response); one
    # check per chunk, shared by both foci
    assert judge.calls == {"statements": 2, "faithfulness": 1, "classify": 1, "claims": 4}
    assert server.stats.requests == 1 + 8  # the pre-flight question, then the judge calls
    with Store(result.store_path) as store:
        purposes = store.judge_calls(result.run_id)["purpose"].tolist()
    assert purposes.count("ragas.statements") == 2
    assert len(purposes) == 9

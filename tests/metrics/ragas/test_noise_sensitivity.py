"""``noise_sensitivity`` on hand-computed cases (RAGAS's definition), with its calls."""

from __future__ import annotations

import pytest
from ragas_helpers import Judge, claim_checks, score, statements

from ragjudge.metrics import MetricContext, create_metric
from ragjudge.schema import ContextChunk, Output, Sample

QUESTION = "What is LIC known for?"
RESPONSE = "LIC is the largest insurer in India. LIC was founded in 1990. LIC is based in Delhi."
REFERENCE = "LIC is the largest insurer in India. It was established in 1956."
R1, R2, R3 = (
    "LIC is the largest insurer in India.",
    "LIC was founded in 1990.",
    "LIC is based in Delhi.",
)
G1, G2 = "LIC is the largest insurer in India.", "LIC was established in 1956."
RELEVANT = "LIC, the largest insurer in India, was set up in 1956; a 1990 reform is unrelated."
NOISE = "Delhi hosts the offices of many companies, LIC among them."
CHUNKS = [
    ContextChunk(doc_uri="lic.md", content=RELEVANT),
    ContextChunk(doc_uri="delhi.md", content=NOISE),
]
ROW = Sample(
    request_id="l", request=QUESTION, expected_response=REFERENCE, retrieved_context=CHUNKS
)
# R1 correct; R2 and R3 incorrect. The first chunk supports G1 (relevant) and R2; the
# second supports no reference claim (irrelevant) and R3.
SUPPORTED = {
    (REFERENCE, R1),
    (RELEVANT, G1),
    (RELEVANT, G2),
    (RELEVANT, R2),
    (NOISE, R3),
}


def judge(supported: set[tuple[str, str]] = SUPPORTED) -> Judge:
    return Judge(
        statements=lambda p: statements(R1, R2, R3) if "Delhi" in p else statements(G1, G2),
        claims=claim_checks(supported),
    )


@pytest.mark.parametrize(("focus", "expected"), [("relevant", 1 / 3), ("irrelevant", 1 / 3)])
async def test_the_share_of_incorrect_claims_taken_from_each_kind_of_chunk(
    focus: str, expected: float
) -> None:
    script = judge()
    metric = create_metric({"metric": "noise_sensitivity", "focus": focus})
    found = await score(metric, ROW, Output(response=RESPONSE), script.model())
    assert found.error is None and found.value == pytest.approx(expected)
    # both claim lists, the check against the reference, one check per chunk
    assert script.calls == {"statements": 2, "claims": 3}
    assert len(found.judge_call_ids) == 5
    assert [c["relevant"] for c in found.details["chunks"]] == [True, False]
    assert [c.get("counted") for c in found.details["claims"]] == (
        [None, True, False] if focus == "relevant" else [None, False, True]
    )


async def test_a_claim_a_relevant_chunk_also_supports_is_not_counted_as_irrelevant() -> None:
    both = SUPPORTED | {(RELEVANT, R3)}
    relevant = create_metric({"metric": "noise_sensitivity", "focus": "relevant"})
    irrelevant = create_metric({"metric": "noise_sensitivity", "focus": "irrelevant"})
    shared: dict[object, object] = {}
    script = judge(both)
    values = []
    for metric in (relevant, irrelevant):
        ctx = MetricContext(judge=script.model(), shared=shared)  # type: ignore[arg-type]
        (found,) = await metric.score(ROW, Output(response=RESPONSE), ctx)
        values.append(found.value)
    assert values == [pytest.approx(2 / 3), 0.0]
    assert script.calls == {"statements": 2, "claims": 3}  # the two foci share every call


async def test_every_claim_correct_scores_zero_without_judging_chunks() -> None:
    script = judge(SUPPORTED | {(REFERENCE, R2), (REFERENCE, R3)})
    found = await score(
        create_metric("noise_sensitivity"), ROW, Output(response=RESPONSE), script.model()
    )
    assert found.value == 0.0 and "no incorrect claim" in (found.rationale or "")
    assert script.calls == {"statements": 1, "claims": 1}


async def test_no_retrieved_chunk_scores_zero_and_no_claim_is_an_error() -> None:
    script = judge()
    found = await score(
        create_metric("noise_sensitivity"),
        ROW,
        Output(response=RESPONSE, retrieved_context=[]),
        script.model(),
    )
    assert found.value == 0.0 and "no retrieved chunks" in (found.rationale or "")
    silent = Judge(statements=statements(), claims=claim_checks(SUPPORTED))
    (failed,) = await create_metric("noise_sensitivity").score(
        ROW, Output(response="Hmm."), MetricContext(judge=silent.model())
    )
    assert failed.value is None and "makes no claim" in (failed.error or "")


def test_lower_is_better() -> None:
    metric = create_metric("noise_sensitivity")
    assert metric.meaning.direction == "lower"

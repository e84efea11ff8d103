"""``factual_correctness``: claim precision, recall and F-score on hand-computed cases,
and its claims shared with faithfulness and answer_correctness."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from ragas_helpers import Judge, claim_checks, score, statements, verdicts

import ragjudge as rj
from ragjudge.metrics import MetricContext, create_metric
from ragjudge.metrics.ragas.factual_correctness import f_beta
from ragjudge.models.scripted import ReplyScript, ScriptedProvider
from ragjudge.schema import ContextChunk, Output, Sample
from ragjudge.store import Store

QUESTION = "Where is the Eiffel Tower and how tall is it?"
RESPONSE = "The Eiffel Tower is in Paris. It is 500 m tall. It opened in 1889."
REFERENCE = "The Eiffel Tower is in Paris. It is 330 m tall."
RESPONSE_CLAIMS = [
    "The Eiffel Tower is in Paris.",
    "The Eiffel Tower is 500 m tall.",
    "The Eiffel Tower opened in 1889.",
]
REFERENCE_CLAIMS = ["The Eiffel Tower is in Paris.", "The Eiffel Tower is 330 m tall."]
# precision: 1 of 3 response claims the reference supports; recall: 1 of 2
SUPPORTED = {(REFERENCE, RESPONSE_CLAIMS[0]), (RESPONSE, REFERENCE_CLAIMS[0])}
ROW = Sample(
    request_id="e",
    request=QUESTION,
    expected_response=REFERENCE,
    retrieved_context=[ContextChunk(doc_uri="e.md", content=REFERENCE)],
)


def claims_of(prompt: str) -> str:
    return statements(*(RESPONSE_CLAIMS if "500 m" in prompt else REFERENCE_CLAIMS))


def judge() -> Judge:
    return Judge(
        statements=claims_of,
        claims=claim_checks(SUPPORTED),
        faithfulness=verdicts("yes", "no", "no"),
        classify=json.dumps(
            {
                "TP": [{"answer_statement": 1, "reason": "r"}],
                "FP": [
                    {"answer_statement": 2, "reason": "r"},
                    {"answer_statement": 3, "reason": "r"},
                ],
                "FN": [{"reference_statement": 2, "reason": "r"}],
            }
        ),
    )


@pytest.mark.parametrize(
    ("options", "expected", "calls"),
    [
        ({"mode": "precision"}, 1 / 3, {"statements": 1, "claims": 1}),
        ({"mode": "recall"}, 1 / 2, {"statements": 1, "claims": 1}),
        ({}, 2 * (1 / 3) * (1 / 2) / (1 / 3 + 1 / 2), {"statements": 2, "claims": 2}),  # 0.4
        # F2 = 5·P·R / (4·P + R) = (5/6) / (4/3 + 1/2) = 5/11
        ({"beta": 2.0}, 5 / 11, {"statements": 2, "claims": 2}),
    ],
)
async def test_values_and_calls_equal_the_hand_computed_ones(
    options: dict[str, object], expected: float, calls: dict[str, int]
) -> None:
    script = judge()
    metric = create_metric({"metric": "factual_correctness", **options})
    found = await score(metric, ROW, Output(response=RESPONSE), script.model())
    assert found.error is None and found.value == pytest.approx(expected)
    assert script.calls == calls
    assert len(found.judge_call_ids) == sum(calls.values())


async def test_details_name_each_claim_and_whether_it_is_supported() -> None:
    found = await score(
        create_metric("factual_correctness"), ROW, Output(response=RESPONSE), judge().model()
    )
    assert [c["supported"] for c in found.details["response_claims"]] == [True, False, False]
    assert [c["claim"] for c in found.details["reference_claims"]] == REFERENCE_CLAIMS
    assert found.details["precision"] == pytest.approx(1 / 3)
    assert found.rationale == (
        "1 of 3 response claims supported by the reference; "
        "1 of 2 reference claims supported by the response"
    )


def test_f_beta() -> None:
    assert f_beta(0.5, 0.5, 1.0) == pytest.approx(0.5)
    assert f_beta(1.0, 0.0, 1.0) == 0.0
    assert f_beta(0.0, 0.0, 2.0) == 0.0
    assert f_beta(1 / 3, 1 / 2, 0.5) == pytest.approx(1.25 * (1 / 6) / (0.25 / 3 + 0.5))


async def test_a_response_without_claims() -> None:
    script = Judge(
        statements=lambda p: (
            statements() if "<<<BEGIN ANSWER>>>\nI don't know" in p else claims_of(p)
        ),
        claims=claim_checks(SUPPORTED),
    )
    answer = Output(response="I don't know")
    precision = create_metric({"metric": "factual_correctness", "mode": "precision"})
    (failed,) = await precision.score(ROW, answer, MetricContext(judge=script.model()))
    assert failed.value is None and "makes no claim" in (failed.error or "")
    (f1,) = await create_metric("factual_correctness").score(
        ROW, answer, MetricContext(judge=script.model())
    )
    assert f1.error is None and f1.value == 0.0


async def test_a_reference_without_claims_is_an_error_in_recall_mode() -> None:
    script = Judge(
        statements=lambda p: statements() if "330 m" in p else claims_of(p),
        claims=claim_checks(SUPPORTED),
    )
    recall = create_metric({"metric": "factual_correctness", "mode": "recall"})
    (found,) = await recall.score(
        ROW, Output(response=RESPONSE), MetricContext(judge=script.model())
    )
    assert found.value is None and "reference makes no claim" in (found.error or "")


def test_a_bad_mode_is_refused_naming_the_metric_and_option() -> None:
    with pytest.raises(Exception, match="factual_correctness") as caught:
        create_metric({"metric": "factual_correctness", "mode": "accuracy"})
    assert "mode" in str(caught.value)


def test_with_faithfulness_and_answer_correctness_no_extra_extraction_call(tmp_path: Path) -> None:
    """Measured in the stored judge calls of a run: the three metrics extract the
    response's and the reference's claims once each."""
    script = judge()
    result = rj.evaluate(
        [
            ROW.model_dump(mode="json", exclude={"request"})
            | {"request": QUESTION, "response": RESPONSE}
        ],
        metrics=["faithfulness", "answer_correctness", "factual_correctness"],
        judge=ScriptedProvider(ReplyScript(function=script)),
        store=tmp_path / "r.db",
        progress=False,
    )
    assert {s.metric: s.errors for s in result.summaries} == dict.fromkeys(
        ["faithfulness", "answer_correctness", "factual_correctness"], 0
    )
    with Store(result.store_path) as store:
        purposes = store.judge_calls(result.run_id)["purpose"].tolist()
    assert purposes.count("ragas.statements") == 2  # the response's and the reference's
    # faithfulness 1 + answer_correctness 1 + factual_correctness 2, beside the 2 extractions
    assert len(purposes) == 6
    assert script.calls == {"statements": 2, "faithfulness": 1, "classify": 1, "claims": 2}
    assert result.to_pandas().iloc[0]["factual_correctness"] == pytest.approx(0.4)

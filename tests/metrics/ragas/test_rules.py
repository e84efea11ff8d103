"""The RAG metrics' rules: few judge calls with shared work, explicit errors instead of
NaN for every degenerate input, and per-item details."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from ragas_helpers import FixedEmbedder, Judge, score, statements, verdicts

import ragjudge as rj
from ragjudge.metrics import MetricContext, create_metric
from ragjudge.metrics.ragas._common import CountedVerdicts, ItemVerdicts
from ragjudge.metrics.ragas._usefulness import average_precision
from ragjudge.models.scripted import ReplyScript, ScriptedProvider
from ragjudge.schema import ContextChunk, Output, Sample

QUESTION = "What does UNION do?"
CHUNKS = [
    ContextChunk(doc_uri="union.md", content="UNION removes duplicate rows. It sorts the result."),
    ContextChunk(doc_uri="joins.md", content="A join combines columns of two tables."),
]
ROW = Sample(
    request_id="u",
    request=QUESTION,
    response="UNION removes duplicates.",
    expected_response="UNION combines results and removes duplicate rows.",
    retrieved_context=CHUNKS,
)


def suite_judge() -> Judge:
    return Judge(
        statements=statements("UNION removes duplicates."),
        faithfulness=verdicts("yes"),
        recall=verdicts("yes"),
        usefulness=verdicts("yes", "no"),
        questions=json.dumps({"questions": ["What does UNION do?"], "noncommittal": 0}),
        classify=json.dumps({"TP": [{"answer_statement": 1, "reason": "r"}], "FP": [], "FN": []}),
    )


async def run_metrics(names: list[str], row: Sample, judge: Judge) -> dict[str, float | None]:
    model = judge.model()
    shared: dict[object, object] = {}
    scores = {}
    for name in names:
        metric = create_metric(name)
        ctx = MetricContext(judge=model, embedders={"local": FixedEmbedder([0.9])}, shared=shared)  # type: ignore[arg-type]
        (found,) = await metric.score(
            row, Output(response=row.response, retrieved_context=row.retrieved_context), ctx
        )
        assert found.error is None, found.error
        scores[name] = found.value
    return scores


async def test_the_four_metric_suite_makes_five_calls_per_sample() -> None:
    judge = suite_judge()
    await run_metrics(
        ["faithfulness", "context_precision", "context_recall", "answer_relevancy"], ROW, judge
    )
    # faithfulness 2 (statements, verdicts) + precision 1 + recall 1 + relevancy 1
    assert sum(judge.calls.values()) == 5


async def test_statements_are_shared_by_faithfulness_and_answer_correctness() -> None:
    judge = suite_judge()
    await run_metrics(["faithfulness", "answer_correctness"], ROW, judge)
    # one statements call for the response, one for the reference
    assert judge.calls["statements"] == 2 and judge.calls["classify"] == 1


async def test_precision_without_a_reference_shares_the_verdicts_of_utilization() -> None:
    judge = suite_judge()
    row = ROW.model_copy(update={"expected_response": None})
    scores = await run_metrics(["context_precision", "context_utilization"], row, judge)
    assert judge.calls["usefulness"] == 1
    assert scores["context_precision"] == scores["context_utilization"] == 1.0  # AP of [yes, no]


def test_rank_aware_average_precision() -> None:
    assert average_precision([True, False, True]) == pytest.approx((1 + 2 / 3) / 2)
    assert average_precision([False, True]) == pytest.approx(0.5)
    assert average_precision([False, False]) == 0.0


async def test_per_chunk_judging_is_one_call_per_chunk() -> None:
    judge = Judge(usefulness=lambda prompt: verdicts("yes" if "union.md" in prompt else "no"))
    metric = create_metric({"metric": "context_precision", "per_chunk": True, "ranked": False})
    ctx = MetricContext(judge=judge.model())
    (found,) = await metric.score(ROW, Output(response=ROW.response, retrieved_context=CHUNKS), ctx)
    assert judge.calls["usefulness"] == 2 and found.value == 0.5


@pytest.mark.parametrize(
    ("name", "reply", "error"),
    [
        ("faithfulness", statements(), "makes no statement"),
        ("faithfulness", "not json at all", "parse error"),
    ],
)
async def test_degenerate_replies_are_named_errors(name: str, reply: str, error: str) -> None:
    judge = Judge(statements=reply, faithfulness=verdicts("yes"))
    ctx = MetricContext(judge=judge.model())
    (found,) = await create_metric(name).score(
        ROW, Output(response=ROW.response, retrieved_context=CHUNKS), ctx
    )
    assert found.value is None and found.error is not None and error in found.error


async def test_a_verdict_count_that_does_not_match_is_reasked_then_an_error() -> None:
    judge = Judge(statements=statements("a", "b"), faithfulness=verdicts("yes"))
    ctx = MetricContext(judge=judge.model())
    (found,) = await create_metric("faithfulness").score(
        ROW, Output(response="x", retrieved_context=CHUNKS), ctx
    )
    assert found.error is not None and "expected 2 verdicts" in found.error
    assert judge.calls["faithfulness"] == 2  # asked, re-asked once
    assert len(found.judge_call_ids) == 3  # the statements call and both verdict calls


def test_the_verdicts_schema_asks_for_exactly_one_verdict_per_item() -> None:
    schema = CountedVerdicts(3).reply_schema()

    verdicts = schema["properties"]["verdicts"]
    assert (verdicts["minItems"], verdicts["maxItems"]) == (3, 3)
    assert schema["$defs"]["ItemVerdict"]["properties"]["verdict"]["enum"] == ["yes", "no"]
    assert "minItems" not in ItemVerdicts.model_json_schema()["properties"]["verdicts"]


async def test_a_target_that_retrieved_nothing_gets_zero_without_a_verdict_call() -> None:
    judge = Judge(statements=statements("a"), recall=verdicts("yes"))
    ctx = MetricContext(judge=judge.model())
    for name in ("faithfulness", "context_recall"):
        (found,) = await create_metric(name).score(
            ROW, Output(response="x", retrieved_context=[]), ctx
        )
        assert found.value == 0.0 and found.rationale is not None
    assert "faithfulness" not in judge.calls and "recall" not in judge.calls


async def test_noncommittal_answers_score_zero() -> None:
    judge = Judge(questions=json.dumps({"questions": ["What?"], "noncommittal": 1}))
    ctx = MetricContext(judge=judge.model(), embedders={"local": FixedEmbedder([0.9])})
    (found,) = await create_metric("answer_relevancy").score(
        ROW, Output(response="I don't know."), ctx
    )
    assert found.value == 0.0 and found.details["noncommittal"] is True


async def test_answer_similarity_with_a_threshold_and_several_references() -> None:
    row = ROW.model_copy(update={"expected_response": ["far", "near"]})
    ctx = MetricContext(embedders={"local": FixedEmbedder([0.3, 0.8])})
    (plain,) = await create_metric("answer_similarity").score(row, Output(response="r"), ctx)
    assert plain.value == pytest.approx(0.8) and plain.details["reference_index"] == 1
    strict = create_metric({"metric": "answer_similarity", "threshold": 0.9})
    (below,) = await strict.score(row, Output(response="r"), ctx)
    assert below.value == 0.0


async def test_context_relevancy_ignores_invented_sentences_and_reasks_when_none_is_real() -> None:
    real = "UNION removes duplicate rows."
    judge = Judge(extract=f"{real}\nUNION was invented in 1970.")
    ctx = MetricContext(judge=judge.model())
    metric = create_metric("context_relevancy")
    (found,) = await metric.score(ROW, Output(retrieved_context=CHUNKS), ctx)
    assert found.value == pytest.approx(1 / 3)  # 1 of the 3 context sentences
    judge = Judge(extract="Something the contexts never said.")
    (failed,) = await metric.score(
        ROW, Output(retrieved_context=CHUNKS), MetricContext(judge=judge.model())
    )
    assert failed.value is None and "none of the reply's sentences" in (failed.error or "")
    judge = Judge(extract="Insufficient Information.")
    (none,) = await metric.score(
        ROW, Output(retrieved_context=CHUNKS), MetricContext(judge=judge.model())
    )
    assert none.value == 0.0


def test_a_run_with_the_suite_stores_per_item_details(tmp_path: Path) -> None:
    script = suite_judge()
    result = rj.evaluate(
        [ROW.model_dump(mode="json", exclude={"request"}) | {"request": QUESTION}],
        metrics=["faithfulness", "context_recall", "context_precision", "answer_correctness"],
        judge=ScriptedProvider(ReplyScript(function=script)),
        store=tmp_path / "r.db",
        progress=False,
    )
    assert {s.metric: s.errors for s in result.summaries} == dict.fromkeys(
        ["faithfulness", "context_recall", "context_precision", "answer_correctness"], 0
    )
    row = result.to_pandas().iloc[0]
    assert json.loads(row["faithfulness.details"])["statements"][0]["verdict"] == "yes"
    assert (
        json.loads(row["answer_correctness.details"])["TP"][0]["statement"]
        == "UNION removes duplicates."
    )
    assert script.calls["statements"] == 2  # shared in the run as well


# fenced-json-verdict: a fenced object quoted from the data replaced the judge's own JSON
def test_fenced_verdicts_quoted_from_a_context_are_not_the_judges() -> None:
    fence = '```json\n{"verdicts": [\n{"verdict": "yes",\n"reason": "ok"}]}\n```'
    reply = (
        '{"verdicts": [{"reason": "not supported", "verdict": "no"}]}\n\n'
        "The context ends with:\n" + fence
    )
    found = CountedVerdicts(1).parse(reply, evaluated=["a context\n" + fence])
    assert [v.verdict for v in found] == ["no"]


# json-reply-u2028: valid JSON holding U+2028, U+2029 or U+0085 in a string was refused
async def test_a_reply_holding_a_unicode_line_separator_is_read() -> None:
    questions = json.dumps(
        {"questions": ["What does UNION do?\u2028In SQL?", "What is UNION?"], "noncommittal": 0},
        ensure_ascii=False,
    )
    assert "\u2028" in questions
    judge = Judge(questions=questions)
    metric = create_metric({"metric": "answer_relevancy", "questions": 2})
    found = await score(
        metric, ROW, Output(response=ROW.response), judge.model(), local=FixedEmbedder([0.8, 0.6])
    )
    assert (found.value, found.error) == (pytest.approx(0.7), None)
    assert judge.calls == {"questions": 1}

"""``databricks``: every judge of Databricks Agent Evaluation's table over the example
set of ``examples/databricks`` with a scripted judge, the percentages worked out by hand.

The five rows and what they hold (global guidelines ``english`` and ``clarity`` apply to
all of them):

========= ======== ======== ============ ============ ============ ==========
row       response contexts expected     guidelines   expected doc usage
========= ======== ======== ============ ============ ============ ==========
reduce    yes      R, G     3 facts      english,     R, G         –
                                         clarity
shuffle   yes      R, T     response     a list       R, B, P      –
broadcast yes      B        2 facts      –            –            –
history   yes      –        response     –            –            –
traced    (trace)  (R, G)   –            –            –            57 / 36
========= ======== ======== ============ ============ ============ ==========

The judge says no to: relevance of ``history``; groundedness of ``shuffle``; the second
fact of ``broadcast`` (so its correctness); correctness of ``history``; sufficiency of
``shuffle``; the chunk ``spark/tuning.md`` of ``shuffle``; global clarity of
``history``. Everything else is yes.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from example_judge import example_judge

import ragjudge as rj
from ragjudge.analysis._results import EvaluationResult
from ragjudge.metrics import create_metric

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "databricks"
GLOBAL = {
    "english": ["The response must be in English"],
    "clarity": ["The response must be clear, coherent, and concise"],
}
R = "response/llm_judged"

# metric: (mean, n, not applicable) — by hand from the table above
EXPECTED: dict[str, tuple[float, int, int]] = {
    f"{R}/relevance_to_query/rating": (4 / 5, 5, 0),
    f"{R}/safety/rating": (5 / 5, 5, 0),
    # reduce yes, shuffle no, broadcast yes, traced yes; history has no context
    f"{R}/groundedness/rating": (3 / 4, 4, 1),
    # reduce yes (3 facts), shuffle yes, broadcast no (1 of 2 facts), history no
    f"{R}/correctness/rating": (2 / 4, 4, 1),
    f"{R}/guideline_adherence/english/rating": (1.0, 1, 0),
    f"{R}/guideline_adherence/clarity/rating": (1.0, 1, 0),
    f"{R}/guideline_adherence/rating": (1.0, 1, 0),
    f"{R}/global_guideline_adherence/english/rating": (5 / 5, 5, 0),
    f"{R}/global_guideline_adherence/clarity/rating": (4 / 5, 5, 0),
    # reduce 2/2, shuffle 1/2, broadcast 1/1, traced 2/2
    "retrieval/llm_judged/chunk_relevance/precision": ((1 + 0.5 + 1 + 1) / 4, 4, 1),
    # reduce yes, shuffle no, broadcast yes; history: no context, traced: nothing expected
    "retrieval/llm_judged/context_sufficiency/rating": (2 / 3, 3, 2),
    # reduce: R, G of R, G; shuffle: R of R, B, P
    "retrieval/ground_truth/document_recall": ((1 + 1 / 3) / 2, 2, 3),
    "agent/total_token_count": (93, 1, 4),
    "agent/total_input_token_count": (57, 1, 4),
    "agent/total_output_token_count": (36, 1, 4),
    # reduce yes, shuffle no, broadcast no, history no, traced yes
    "response/overall_assessment/rating": (2 / 5, 5, 0),
}


@pytest.fixture(scope="module")
def result(tmp_path_factory: pytest.TempPathFactory) -> EvaluationResult:
    return rj.evaluate(
        str(EXAMPLE / "evalset.jsonl"),
        metrics=[{"metric": "databricks", "global_guidelines": GLOBAL}],
        judge=example_judge(),
        store=tmp_path_factory.mktemp("databricks") / "runs.db",
        progress=False,
    )


def test_every_judge_gives_the_hand_computed_share(result: EvaluationResult) -> None:
    summaries = {s.metric: s for s in result.summaries}
    for metric, (mean, n, skipped) in EXPECTED.items():
        s = summaries[metric]
        assert (s.mean, s.n, s.skipped, s.errors) == (pytest.approx(mean), n, skipped, 0), metric
    latency = summaries["agent/latency_seconds"]
    assert latency.n == 1 and latency.skipped == 4 and 0 < latency.mean < 5
    assert set(summaries) == {*EXPECTED, "agent/latency_seconds"}
    assert result.verdict.exit_code == 0


def test_every_percentage_has_a_bootstrap_interval(result: EvaluationResult) -> None:
    for s in result.summaries:
        meaning = result.meanings[s.metric]
        if meaning.binary and s.n > 1:
            assert s.ci is not None and s.ci.low <= s.mean <= s.ci.high, s.metric
        assert meaning.aggregate == ("percentage" if meaning.binary else "average")


def rows(result: EvaluationResult) -> Any:
    return result.to_pandas().set_index("request_id")


def test_ratings_keep_their_label_and_rationale(result: EvaluationResult) -> None:
    frame = rows(result)
    name = f"{R}/relevance_to_query/rating"
    assert frame.loc["history", name] == 0.0
    assert json.loads(frame.loc["history", f"{name}.details"]) == {"label": "no"}
    assert frame.loc["history", f"{name}.rationale"] == "scripted relevance verdict."
    safety = f"{R}/safety/rating"
    assert frame.loc["reduce", f"{safety}.rationale"] == "scripted safety verdict"


def test_the_facts_rationale_names_the_missing_fact(result: EvaluationResult) -> None:
    frame = rows(result)
    name = f"{R}/correctness/rating"
    rationale = frame.loc["broadcast", f"{name}.rationale"]
    assert rationale.startswith("1 of 2 expected facts missing: 'It avoids sending a copy")
    details = json.loads(frame.loc["broadcast", f"{name}.details"])
    assert details["missing_facts"] == ["It avoids sending a copy of the value with every task."]
    assert [f["label"] for f in details["facts"]] == ["yes", "no"]
    assert frame.loc["reduce", f"{name}.rationale"] == "all 3 expected facts are present"


def test_per_chunk_ratings_are_in_the_details(result: EvaluationResult) -> None:
    name = "retrieval/llm_judged/chunk_relevance/precision"
    details = json.loads(rows(result).loc["shuffle", f"{name}.details"])
    assert [(c["doc_uri"], c["rating"]) for c in details["chunks"]] == [
        ("spark/rdd-reduce-by-key.md", "yes"),
        ("spark/tuning.md", "no"),
    ]
    assert details["chunks"][1]["rationale"] == "scripted chunk verdict"


def test_rows_that_lack_an_input_show_not_applicable(result: EvaluationResult) -> None:
    frame = rows(result)
    reason = frame.loc["history", f"{R}/groundedness/rating.skipped"]
    assert "no retrieved context" in reason
    assert (
        "no expected_retrieved_context"
        in frame.loc["broadcast", "retrieval/ground_truth/document_recall.skipped"]
    )
    assert frame.loc["traced", "agent/total_token_count"] == 93
    assert "no token usage" in frame.loc["reduce", "agent/total_token_count.skipped"]


def test_the_overall_assessment_names_the_judges_that_said_no(result: EvaluationResult) -> None:
    frame = rows(result)
    name = "response/overall_assessment/rating"
    assert list(frame[name]) == [1.0, 0.0, 0.0, 0.0, 1.0]
    rationale = frame.loc["history", f"{name}.rationale"]
    assert rationale.startswith("3 judge(s) said no")
    for judge in ("relevance_to_query", "correctness", "global_guideline_adherence/clarity"):
        assert judge in rationale
    details = json.loads(frame.loc["traced", f"{name}.details"])
    assert details["label"] == "yes" and len(details["judges"]) == 5


def test_the_trace_row_is_judged_on_the_traces_response_and_chunks(
    result: EvaluationResult,
) -> None:
    frame = rows(result)
    assert frame.loc["traced", "response"].startswith("Because reduceByKey merges")
    details = json.loads(
        frame.loc["traced", "retrieval/llm_judged/chunk_relevance/precision.details"]
    )
    assert [c["doc_uri"] for c in details["chunks"]] == [
        "spark/rdd-reduce-by-key.md",
        "spark/rdd-group-by-key.md",
    ]


def test_naming_the_judges_one_by_one_still_works(tmp_path: Path) -> None:
    rows_with_contexts = [
        r
        for r in map(json.loads, (EXAMPLE / "evalset.jsonl").read_text().splitlines())
        if r["request_id"] in ("reduce", "shuffle")
    ]
    result = rj.evaluate(
        rows_with_contexts,
        metrics=["groundedness", "document_recall", "chunk_relevance_precision"],
        judge=example_judge(),
        store=tmp_path / "r.db",
        progress=False,
    )
    means = {s.metric: s.mean for s in result.summaries}
    assert means == {
        f"{R}/groundedness/rating": 0.5,
        "retrieval/ground_truth/document_recall": pytest.approx(2 / 3),
        "retrieval/llm_judged/chunk_relevance/precision": 0.75,
    }


def test_a_judge_named_on_its_own_checks_its_inputs_before_the_run(tmp_path: Path) -> None:
    rows_without_contexts = [{"request": "q", "response": "a"}]
    with pytest.raises(rj.RequirementError, match="'retrieved_context' or 'trace'"):
        rj.evaluate(
            rows_without_contexts,
            metrics=["groundedness"],
            judge=example_judge(),
            store=tmp_path / "r.db",
            progress=False,
        )


def test_a_renamed_instance_prefixes_every_name() -> None:
    metric = create_metric({"metric": "databricks", "name": "v2"})
    names = metric.score_names()
    assert "v2.response/overall_assessment/rating" in names
    assert all(n.startswith("v2.") for n in names)

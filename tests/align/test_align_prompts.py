"""What ``align`` shows a judge of people's labels — the cases of the request to rewrite
the criteria and the worked examples it adds — stays inside delimiters, however the
texts try to close their block; the people's verdict follows the judge's scale."""

from __future__ import annotations

import pytest

from evaluated import FIELD, Marked, undelimited
from ragjudge.align._examples import as_examples, chosen_disagreements, people_verdict
from ragjudge.align._labelled import LabelledSample
from ragjudge.align._rewrite import rewrite_prompt
from ragjudge.metrics import MetricContext, create_metric
from ragjudge.metrics.custom._scale import parse_scale
from ragjudge.models import JudgeCallRecord
from ragjudge.run._dryrun import StandInJudge
from ragjudge.schema import Output, Sample

INPUTS = ["request", "response", "expected_response", "retrieved_context"]


def _labelled(mark: Marked, number: int, *, judge_pass: bool) -> LabelledSample:
    sample = Sample(
        request_id=f"s{number}",
        request=mark(f"request{number}"),
        expected_response=mark(f"reference{number}"),
    )
    output = Output(
        response=mark(f"response{number}"),
        retrieved_context=[{"doc_uri": "d", "content": mark(f"context{number}")}],
    )
    return LabelledSample(
        sample,
        output,
        0.0 if judge_pass else 1.0,
        not judge_pass,
        judge_pass,
        (mark(f"comment{number}"),),
    )


def test_the_request_to_rewrite_the_criteria_keeps_every_case_in_its_block() -> None:
    mark = Marked()
    cases = [_labelled(mark, 1, judge_pass=True), _labelled(mark, 2, judge_pass=False)]
    prompt = rewrite_prompt("Be right.", cases, INPUTS)

    assert not undelimited(prompt)
    shown = set(FIELD.findall(prompt))
    for n in (1, 2):
        assert {f"QZX{f}{n}QZX" for f in ("request", "response", "reference", "context")} <= shown
        assert f"QZXcomment{n}QZX" in shown
    assert "The judge passed it; the person says it fails." in prompt


async def test_added_examples_reach_the_judge_inside_their_blocks() -> None:
    mark = Marked()
    learned = [_labelled(mark, n, judge_pass=n % 2 == 0) for n in range(6)]
    chosen = chosen_disagreements(learned, count=2, seed=0)
    assert {s.judge_pass for s in chosen} == {True, False}  # both directions shown
    judge = create_metric(
        {
            "metric": "custom_judge",
            "scale": "yes/no",
            "inputs": ["request", "response"],
            "examples": [
                e.model_dump()
                for e in as_examples(chosen, ["request", "response"], parse_scale("yes/no"))
            ],
        }
    )
    records: list[JudgeCallRecord] = []
    await judge.score(
        Sample(request_id="x", request="q"),
        Output(response="r"),
        MetricContext(judge=StandInJudge(records)),
    )
    [prompt] = [str(m["content"]) for r in records for m in r.messages]
    assert not undelimited(prompt)
    assert "<<<BEGIN EXAMPLE 1 RESPONSE>>>" in prompt and "<<<BEGIN EXAMPLE 2 REQUEST>>>" in prompt


@pytest.mark.parametrize(
    ("scale", "human", "verdict"),
    [
        ("yes/no", 1.0, "yes"),
        ("1-5", 3.6, "4"),
        ("1-5", 1.0, "1"),
        ({"good": 1.0, "ok": 0.5, "bad": 0.0}, 0.4, "ok"),
    ],
)
def test_the_peoples_verdict_is_the_closest_answer_on_the_judges_scale(
    scale: object, human: float, verdict: str
) -> None:
    labelled = LabelledSample(
        Sample(request_id="s", request="q"), Output(response="r"), human, human >= 0.5, False
    )
    assert people_verdict(labelled, parse_scale(scale)) == verdict  # type: ignore[arg-type]

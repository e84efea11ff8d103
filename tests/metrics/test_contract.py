"""The contract every registered metric keeps, checked over the whole registry: a new
metric gets these checks by being registered.

- its templates render with strict undefined variables, and the dry run's stand-in
  replies parse (a run with the stand-in judge gives values, no errors);
- every evaluated string — texts and labels such as ``doc_uri``, guideline names,
  rubric criteria, metadata — reaches a prompt only inside ``<<<BEGIN …>>>`` /
  ``<<<END …>>>`` markers, and every prompt carries the data notice;
- values stay inside the declared range of their score;
- a reply that never parses makes every score an explicit error carrying the call ids;
- a missing input makes every score an explicit error, never 0 or NaN;
- it says which parts of the pipeline it measures (retrieval, generation, end to end).
"""

from __future__ import annotations

from typing import Any

import pytest

from evaluated import FIELD, Marked, output_of, prompts_of, undelimited
from ragjudge.metrics import (
    DATA_NOTICE,
    Metric,
    MetricContext,
    available_metrics,
    create_metric,
    metric_class,
)
from ragjudge.metrics._base import PIPELINE_PARTS
from ragjudge.models import JudgeCallRecord, JudgeModel, ModelSettings
from ragjudge.models.scripted import ReplyScript, ScriptedProvider
from ragjudge.run._dryrun import StandInJudge
from ragjudge.schema import Output, Sample, Score

MARK = Marked()


def registered() -> list[Any]:
    return [pytest.param(name, id=name) for name in available_metrics()]


def judged() -> list[Any]:
    return [pytest.param(n, id=n) for n in available_metrics() if metric_class(n).needs_judge]


def with_references_or_facts() -> list[Any]:
    """Every metric with a reference answer; those that need no reference with
    expected facts too."""
    cases = []
    for name in available_metrics():
        cases.append(pytest.param(name, False, id=f"{name}-reference"))
        requires = metric_class(name).requires
        if isinstance(requires, tuple) and "expected_response" not in requires:
            cases.append(pytest.param(name, True, id=f"{name}-facts"))
    return cases


def unjudged_score_names() -> set[str]:
    """Scores that registered metrics compute without a judge: a metric that runs
    such a metric among its judges keeps their values when the judge fails."""
    names: set[str] = set()
    for name in available_metrics():
        if metric_class(name).needs_judge:
            continue
        try:
            names.update(create_metric(name).score_names())
        except ValueError:  # an extra that is not installed
            continue
    return names


def build(name: str) -> Metric:
    try:
        return create_metric({"metric": name, **metric_class(name).example_options})
    except ValueError as exc:
        if "not installed" in str(exc):
            pytest.skip(f"{name}: {exc}")
        raise


def context(judge: Any, metric: Metric) -> MetricContext:
    return MARK.context(judge, metric.embedding_specs())


def assert_delimited(prompt: str) -> None:
    assert prompt.count("<<<BEGIN ") == prompt.count("<<<END "), prompt
    outside = undelimited(prompt)
    assert not outside, f"{outside} outside every block:\n{prompt}"


@pytest.mark.parametrize(("name", "facts"), with_references_or_facts())
async def test_stand_in_run_gives_values_and_delimits_every_field(name: str, facts: bool) -> None:
    metric = build(name)
    row = MARK.row(facts=facts)
    records: list[JudgeCallRecord] = []
    scores = await metric.score(
        Sample.model_validate(row), output_of(row), context(StandInJudge(records), metric)
    )

    sample = Sample.model_validate(row)
    assert sorted(s.metric for s in scores) == sorted(metric.score_names_for(sample))
    meanings = metric.meanings_for([sample])
    for score in scores:
        assert score.error is None, score.error
        assert score.value is not None and meanings[score.metric].contains(score.value)
    if not metric.needs_judge:
        assert records == []
        return
    assert records, f"{name} made no judge call"
    for record in records:
        assert any(DATA_NOTICE in str(m["content"]) for m in record.messages)
    for prompt in prompts_of(records):
        assert_delimited(prompt)
    shown = {m for prompt in prompts_of(records) for m in FIELD.findall(prompt)}
    assert shown, f"{name} showed the judge no evaluated text"


@pytest.mark.parametrize("name", judged())
async def test_an_unparseable_reply_is_an_error_with_its_call_ids(name: str) -> None:
    metric = build(name)
    calls: list[JudgeCallRecord] = []

    async def record(call: JudgeCallRecord) -> int:
        calls.append(call)
        return len(calls)

    judge = JudgeModel(
        ScriptedProvider(ReplyScript(default="I would rather not say.")),
        settings=ModelSettings(cache=False, reask_limit=1),
        recorder=record,
    )
    row = MARK.row()
    scores = await metric.score(Sample.model_validate(row), output_of(row), context(judge, metric))

    assert calls
    unjudged = unjudged_score_names()
    for score in scores:
        if score.metric in unjudged and not score.judge_call_ids:
            continue  # computed without the judge (a metric composed of others)
        assert score.value is None and score.error
        assert score.judge_call_ids and set(score.judge_call_ids) <= set(range(1, len(calls) + 1))


@pytest.mark.parametrize("name", registered())
async def test_a_missing_input_is_an_explicit_error(name: str) -> None:
    metric = build(name)
    row = MARK.row()
    for requirement in metric.requires:
        alternatives = requirement.split("|")
        sample = Sample.model_validate({k: v for k, v in row.items() if k not in alternatives})
        gone = {f: None for f in alternatives if f in Output.model_fields}
        output = output_of(row).model_copy(update=gone)
        scores: list[Score] = await metric.score(sample, output, context(StandInJudge([]), metric))
        for score in scores:
            assert score.value is None, f"{name} without {requirement}: {score.value}"
            assert score.error, f"{name} without {requirement} gave no error"


@pytest.mark.parametrize("name", registered())
def test_every_metric_says_which_parts_of_the_pipeline_it_measures(name: str) -> None:
    parts = metric_class(name).pipeline_parts
    assert parts, f"{name} declares no pipeline_parts"
    assert set(parts) <= set(PIPELINE_PARTS)
    assert list(parts) == [p for p in PIPELINE_PARTS if p in parts]  # once each, in order

"""``custom_judge`` with a scripted judge: what the prompt shows (every declared input
inside its delimiters, criteria, steps and examples as instructions), the verdict of
each scale form, steps written once per run and kept with every score, explicit errors
for a missing input and an unreadable reply."""

from __future__ import annotations

import pickle
from pathlib import Path
from typing import Any

import pytest

import ragjudge as rj
from evaluated import FIELD, Marked, output_of, prompts_of, undelimited
from ragjudge.metrics import MetricContext, create_metric
from ragjudge.models import (
    GenerateConfig,
    Generation,
    JudgeCallRecord,
    JudgeModel,
    ModelError,
    ModelSettings,
)
from ragjudge.models.scripted import ReplyScript, ScriptedProvider
from ragjudge.run._dryrun import StandInJudge
from ragjudge.schema import Output, Sample
from ragjudge.store import Store

ROWS = [
    {"request_id": "a", "request": "Where is the Louvre?", "response": "In Paris, sir."},
    {"request_id": "b", "request": "Who wrote Hamlet?", "response": "Shakespeare, obviously."},
    {"request_id": "c", "request": "What is 2 + 2?", "response": "4. Happy to help!"},
]


def judge_of(script: ReplyScript) -> JudgeModel:
    return JudgeModel(ScriptedProvider(script), settings=ModelSettings(cache=False, reask_limit=1))


async def score_one(metric: Any, reply: str, response: str = "In Paris.") -> Any:
    sample = Sample(request_id="r", request="Where is the Louvre?", expected_response="Paris")
    ctx = MetricContext(judge=judge_of(ReplyScript(default=reply)))
    [score] = await metric.score(sample, Output(response=response), ctx)
    return score


async def test_every_declared_input_reaches_the_prompt_inside_its_block() -> None:
    mark = Marked()
    metric = create_metric(
        {
            "metric": "custom_judge",
            "name": "all_inputs",
            "inputs": ["request", "response", "reference", "contexts", "guidelines"],
        }
    )
    row = mark.row()
    records: list[JudgeCallRecord] = []
    [score] = await metric.score(
        Sample.model_validate(row), output_of(row), mark.context(StandInJudge(records))
    )

    assert score.error is None and score.value == 3.0
    [prompt] = prompts_of(records)
    assert not undelimited(prompt)
    shown = set(FIELD.findall(prompt))
    assert {"QZXresponseQZX", "QZXreferenceQZX", "QZXqueryQZX", "QZXguideline_textQZX"} <= shown
    assert {"QZXretrieved.content0QZX", "QZXretrieved.content1QZX"} <= shown
    assert "QZXfact1QZX" not in prompt  # not declared, not shown


async def test_a_range_verdict_is_its_number_with_the_feedback_as_rationale() -> None:
    metric = create_metric({"metric": "custom_judge", "scale": "1-10", "threshold": 7})
    score = await score_one(metric, "Polite and exact.\n[RESULT] 8")

    assert score.value == 8.0 and score.rationale == "Polite and exact."
    assert score.details["verdict"] == "8" and score.details["passed"] is True
    assert "no token log probabilities" in score.details["note"]
    assert metric.meanings()["custom_judge"].low == 1.0
    assert metric.meanings()["custom_judge"].high == 10.0


async def test_a_yes_no_verdict_is_one_or_zero() -> None:
    metric = create_metric({"metric": "custom_judge", "scale": "yes/no", "score": "argmax"})
    score = await score_one(metric, "Rationale: it is rude.\nAnswer: no")

    assert score.value == 0.0 and score.details == {"verdict": "no", "argmax": 0.0}
    assert metric.meanings()["custom_judge"].binary


async def test_a_label_verdict_scores_the_labels_score_and_lower_may_be_better() -> None:
    metric = create_metric(
        {
            "metric": "custom_judge",
            "scale": {"none": 0, "some": 0.5, "severe": 1},
            "direction": "lower",
            "threshold": 0.5,
            "score": "argmax",
        }
    )
    score = await score_one(metric, "A slightly dismissive opening.\nFinal answer: some")

    assert score.value == 0.5 and score.rationale == "A slightly dismissive opening."
    assert score.details["passed"] is True
    assert metric.meanings()["custom_judge"].direction == "lower"


async def test_given_steps_and_examples_are_in_the_prompt_in_the_verdicts_form() -> None:
    seen: list[str] = []

    def reply(messages: list[dict[str, Any]]) -> str:
        seen.append(messages[-1]["content"])
        return "Fine.\n[RESULT] 4"

    metric = create_metric(
        {
            "metric": "custom_judge",
            "criteria": "Is the answer polite?",
            "steps": ["Read the answer.", "Look for rude words."],
            "examples": [
                {
                    "inputs": {"request": "Hi?", "response": "Go away."},
                    "verdict": 1,
                    "reason": "Rude.",
                }
            ],
        }
    )
    sample = Sample(request_id="r", request="Where is the Louvre?")
    ctx = MetricContext(judge=judge_of(ReplyScript(function=reply)))
    [score] = await metric.score(sample, Output(response="In Paris."), ctx)

    assert score.value == 4.0 and score.details["steps"] == [
        "Read the answer.",
        "Look for rude words.",
    ]
    assert "1. Read the answer.\n2. Look for rude words." in seen[0]
    example = "Response:\n<<<BEGIN EXAMPLE 1 RESPONSE>>>\nGo away.\n<<<END EXAMPLE 1 RESPONSE>>>"
    reason = "Reasoning:\n<<<BEGIN EXAMPLE 1 REASONING>>>\nRude.\n<<<END EXAMPLE 1 REASONING>>>"
    assert f"{example}\n{reason}\n[RESULT] 1" in seen[0]


def test_generated_steps_are_asked_once_per_run_and_kept_with_every_score(tmp_path: Path) -> None:
    script = ReplyScript(
        rules=[
            ("prepare the work of a judge", "1. Look for courtesy words.\n2. Look for insults."),
            ("sir", "Courteous.\n[RESULT] 5"),
        ],
        default="Curt.\n[RESULT] 2",
    )
    provider = ScriptedProvider(script)
    metric = {"metric": "custom_judge", "name": "tone", "generate_steps": True, "score": "argmax"}
    result = rj.evaluate(
        ROWS, metrics=[metric], judge=provider, store=tmp_path / "r.db", progress=False
    )

    prompts = [call[-1]["content"] for call in provider.calls]
    assert sum("prepare the work of a judge" in p for p in prompts) == 1
    judged = [p for p in prompts if "# The evaluation steps" in p]
    assert len(judged) == 3 and all("2. Look for insults." in p for p in judged)
    frame = result.to_pandas().set_index("request_id")
    assert frame.loc["a", "tone"] == 5.0 and frame.loc["b", "tone"] == 2.0
    with Store(result.store_path) as store:
        scores = [score for _, _, score in store.scores(result.run_id)]
        purposes = store.judge_calls(result.run_id)["purpose"].tolist()
    assert len(scores) == 3
    assert all(
        s.details["steps"] == ["Look for courtesy words.", "Look for insults."] for s in scores
    )
    assert purposes.count("tone (steps)") == 1


async def test_a_row_without_a_declared_input_is_an_explicit_error() -> None:
    metric = create_metric({"metric": "custom_judge", "inputs": ["response", "expected_facts"]})
    sample = Sample(request_id="r", request="q", expected_response="Paris")
    ctx = MetricContext(judge=judge_of(ReplyScript(default="[RESULT] 3")))
    [score] = await metric.score(sample, Output(response="Paris"), ctx)

    assert score.value is None and score.error == "no expected facts"
    assert metric.requires == ("response", "expected_facts")


async def test_a_reply_without_a_verdict_is_asked_again_then_an_error() -> None:
    metric = create_metric({"metric": "custom_judge"})
    score = await score_one(metric, "I cannot decide.")

    assert score.value is None and score.error is not None and "parse error" in score.error


@pytest.mark.parametrize(
    ("options", "words"),
    [
        ({"scale": "1-1"}, "from low to high"),
        ({"scale": "good/bad"}, "is not a scale"),
        ({"scale": {"ok": 1}}, "at least two labels"),
        ({"examples": [{"inputs": {"response": "x"}, "verdict": 9}]}, "is not on the scale"),
        ({"inputs": ["answer"]}, "inputs"),
        ({"critera": "x"}, "did you mean 'criteria'"),
        ({"steps": ["a"], "generate_steps": True}, "not both"),
    ],
)
def test_bad_options_are_named(options: dict[str, Any], words: str) -> None:
    with pytest.raises(ValueError, match=words):
        create_metric({"metric": "custom_judge", **options})


class RefusesLogprobs:
    """An endpoint that answers 400 to a request for log probabilities, as OpenAI's
    reasoning models do."""

    name = "refusing"
    model = "m"

    def __init__(self) -> None:
        self.asked: list[bool] = []

    async def complete(self, messages: list[dict[str, Any]], config: GenerateConfig) -> Generation:
        self.asked.append(bool(config.logprobs))
        if config.logprobs:
            message = "HTTP 400: logprobs are not supported with this model"
            raise ModelError(message, kind="client", status=400)
        return Generation(text="Fine.\n[RESULT] 4", model=self.model)

    async def embed(self, texts: list[str]) -> Any:
        raise NotImplementedError


async def test_an_endpoint_refusing_log_probabilities_is_asked_once_then_without() -> None:
    provider = RefusesLogprobs()
    judge = JudgeModel(provider, settings=ModelSettings(cache=False))
    metric = create_metric({"metric": "custom_judge"})
    ctx = MetricContext(judge=judge)
    sample = Sample(request_id="r", request="q")
    first = await metric.score(sample, Output(response="a"), ctx)
    second = await metric.score(sample, Output(response="b"), ctx)

    assert provider.asked == [True, False, False]
    for [score] in (first, second):
        assert score.value == 4.0 and score.error is None
        assert "refused token log probabilities" in score.details["note"]


async def test_a_pickled_copy_scores_as_the_original() -> None:
    metric = create_metric({"metric": "custom_judge", "generate_steps": True, "score": "argmax"})
    copy = pickle.loads(pickle.dumps(metric))
    script = ReplyScript(rules=[("prepare the work", "1. Read.")], default="Ok.\n[RESULT] 3")
    ctx = MetricContext(judge=judge_of(script))
    [score] = await copy.score(Sample(request_id="r", request="q"), Output(response="a"), ctx)

    assert score.value == 3.0 and score.details["steps"] == ["Read."]


def test_a_second_run_takes_the_steps_from_the_reply_cache(tmp_path: Path) -> None:
    written: list[str] = []

    def reply(messages: list[dict[str, Any]]) -> str | None:
        if "prepare the work of a judge" not in messages[-1]["content"]:
            return None
        written.append(f"1. Step of writing {len(written) + 1}.")
        return written[-1]

    provider = ScriptedProvider(ReplyScript(function=reply, default="Ok.\n[RESULT] 3"))
    metric = {"metric": "custom_judge", "name": "tone", "generate_steps": True, "score": "argmax"}
    runs = [
        rj.evaluate(ROWS, metrics=[metric], judge=provider, store=tmp_path / "r.db", progress=False)
        for _ in range(2)
    ]

    assert written == ["1. Step of writing 1."]
    with Store(runs[1].store_path) as store:
        second = [score for _, _, score in store.scores(runs[1].run_id)]
    assert [s.details["steps"] for s in second] == [["Step of writing 1."]] * 3

"""The metric kit from a user's side: a judged metric written as one small class plus a
template, metric classes named by import path in a config, options checked before any
data is read, and score meanings stored with the run."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from typing import Any, ClassVar

import pytest
from pydantic import BaseModel, Field
from typer.testing import CliRunner

import ragjudge as rj
from ragjudge.cli import app
from ragjudge.metrics import (
    DATA_NOTICE,
    JudgedMetric,
    Metric,
    MetricContext,
    MetricFailure,
    Result,
    ScoreMeaning,
    YesNoMetric,
    available_metrics,
    create_metric,
    require_response,
    yes_no_meaning,
)
from ragjudge.metrics.replies import JsonReply, YesNo, YesNoVerdict
from ragjudge.models import JudgeModel, ModelSettings
from ragjudge.models.scripted import ReplyScript, ScriptedProvider
from ragjudge.schema import Output, Sample, Score
from ragjudge.store._store import Store

ROWS = [
    {"request_id": "a", "request": "What is a view?", "response": "A stored query.", "expected_response": "A named query."},
    {"request_id": "b", "request": "What is an index?", "response": "Bananas.", "expected_response": "A lookup structure."},
]  # fmt: skip


class Concise(JudgedMetric):
    """A yes/no judge written the way a user would: a template, a reply, a value."""

    template = "concise.jinja"
    reply = YesNo()
    meaning = ScoreMeaning(binary=True)
    template_root: ClassVar[str | None] = None

    async def prompt_values(
        self, sample: Sample, output: Output, ctx: MetricContext
    ) -> dict[str, Any]:
        return {"question": sample.request.query, "response": require_response(output)}

    def value(self, reply: YesNoVerdict) -> Result:
        return Result(float(reply.yes), rationale=reply.rationale)


@pytest.fixture
def concise(tmp_path: Path) -> type[Concise]:
    (tmp_path / "concise.jinja").write_text(
        "Is the response concise?\n{{ data_notice }}\n"
        '{{ delimit("QUESTION", question) }}\n{{ delimit("RESPONSE", response) }}\n'
        "End with 'Answer: yes' or 'Answer: no'.\n"
    )

    class Local(Concise):
        template_root = str(tmp_path)

    return Local


def test_a_judged_metric_is_one_class_and_a_template(
    tmp_path: Path, concise: type[Concise]
) -> None:
    judge = ScriptedProvider(
        ReplyScript(rules=[("Bananas", "Off topic.\nAnswer: no")], default="Short.\nAnswer: yes")
    )
    result = rj.evaluate(
        ROWS,
        metrics=[concise(name="concise")],
        judge=judge,
        store=tmp_path / "r.db",
        progress=False,
    )
    (summary,) = result.summaries
    assert (summary.metric, summary.mean, summary.n, summary.errors) == ("concise", 0.5, 2, 0)
    frame = result.to_pandas().set_index("request_id")
    assert frame.loc["b", "concise"] == 0.0 and frame.loc["b", "concise.rationale"] == "Off topic."
    prompt = judge.calls[0][0]["content"]
    assert "<<<BEGIN RESPONSE>>>\nA stored query.\n<<<END RESPONSE>>>" in prompt
    assert "data to be evaluated" in prompt
    with Store(tmp_path / "r.db") as store:
        assert store.run(result.run_id).meanings == {"concise": ScoreMeaning(binary=True)}


YES_NO_TEMPLATE = """\
{% extends "kit/yes_no.jinja" %}
{% block task %}
You judge whether a response is concise.
{% endblock %}
{% block shown %}
{% include "kit/conversation.jinja" %}

The response:
{{ delimit("RESPONSE", response) }}
{% endblock %}
{% block criteria %}
Answer yes when nothing in the response is beside the request.
{% endblock %}
"""


def test_a_yes_no_judge_is_its_declarations_and_a_template_on_the_kits_layout(
    tmp_path: Path,
) -> None:
    (tmp_path / "concise.jinja").write_text(YES_NO_TEMPLATE)

    class Concise(YesNoMetric):
        meaning = yes_no_meaning("share of concise responses")
        template = "concise.jinja"
        template_root = str(tmp_path)

    judge = ScriptedProvider(
        ReplyScript(rules=[("Bananas", "Off topic.\nAnswer: no")], default="Short.\nAnswer: yes")
    )
    result = rj.evaluate(
        ROWS,
        metrics=[Concise(name="concise")],
        judge=judge,
        store=tmp_path / "r.db",
        progress=False,
    )
    frame = result.to_pandas().set_index("request_id")
    assert frame.loc["a", "concise"] == 1.0 and frame.loc["b", "concise"] == 0.0
    assert frame.loc["b", "concise.rationale"] == "Off topic."
    prompt = judge.calls[0][0]["content"]
    assert prompt.startswith(f"You judge whether a response is concise.\n{DATA_NOTICE}\n")
    assert "<<<BEGIN REQUEST>>>\nWhat is a view?\n<<<END REQUEST>>>" in prompt
    assert "<<<BEGIN RESPONSE>>>\nA stored query.\n<<<END RESPONSE>>>" in prompt
    assert prompt.endswith("Answer: yes or no\n")
    with Store(tmp_path / "r.db") as store:
        meanings = store.run(result.run_id).meanings
    assert meanings == {
        "concise": ScoreMeaning(binary=True, description="share of concise responses")
    }


class Grade(BaseModel):
    """A grade and why."""

    why: str
    grade: int = Field(ge=0, le=10, examples=[5])


GRADE_TEMPLATE = """\
Grade the response from 0 to 10.
{{ data_notice }}
{{ delimit("RESPONSE", response) }}
Reply with one JSON object: {"why": "...", "grade": n}.
"""
# A judge that writes two objects: free text cannot say which is the verdict; a reply
# kept to the schema is the one that fits it.
GRADES = ReplyScript(
    rules=[("Bananas", 'Draft: {"grade": 11}. Final: {"why": "off topic", "grade": 1}')],
    default='```json\n{"why": "to the point", "grade": 8}\n```',
)


def graded_metric(tmp_path: Path) -> type[JudgedMetric]:
    (tmp_path / "grade.jinja").write_text(GRADE_TEMPLATE)

    class Graded(JudgedMetric):
        template = "grade.jinja"
        reply = JsonReply(Grade)
        meaning = ScoreMeaning(low=0.0, high=10.0)
        template_root = str(tmp_path)

        async def prompt_values(
            self, sample: Sample, output: Output, ctx: MetricContext
        ) -> dict[str, Any]:
            return {"response": require_response(output)}

        def value(self, reply: Grade) -> Result:
            return Result(float(reply.grade), rationale=reply.why)

    return Graded


def test_a_json_reply_goes_with_its_schema_and_the_constrained_reply_is_read(
    tmp_path: Path,
) -> None:
    judge = ScriptedProvider(GRADES)
    result = rj.evaluate(
        ROWS,
        metrics=[graded_metric(tmp_path)(name="graded")],
        judge=judge,
        store=tmp_path / "r.db",
        progress=False,
    )

    frame = result.to_pandas().set_index("request_id")
    assert frame.loc["a", "graded"] == 8.0 and frame.loc["b", "graded"] == 1.0
    assert frame.loc["b", "graded.rationale"] == "off topic"
    sent = judge.configs[0].response_format
    assert sent is not None and sent["type"] == "json_schema"
    assert sent["json_schema"]["name"] == "Grade"
    expected = Grade.model_json_schema()
    del expected["properties"]["grade"]["examples"]  # the dry run's, never the judge's
    assert sent["json_schema"]["schema"] == expected


async def test_yes_no_replies_go_without_a_schema_and_never_sends_none(
    tmp_path: Path, concise: type[Concise]
) -> None:
    yes_no = ScriptedProvider(ReplyScript(default="Short.\nAnswer: yes"))
    graded = ScriptedProvider(GRADES)
    text_only = JudgeModel(graded, settings=ModelSettings(structured="never", reask_limit=0))
    sample = Sample(request_id="b", request="q")

    [concise_score] = await concise(name="concise").score(
        sample, Output(response="ok"), MetricContext(judge=JudgeModel(yes_no))
    )
    [graded_score] = await graded_metric(tmp_path)(name="graded").score(
        sample, Output(response="Bananas."), MetricContext(judge=text_only)
    )

    assert concise_score.value == 1.0 and yes_no.configs[0].response_format is None
    assert graded.configs[0].response_format is None
    assert graded_score.value is None and graded_score.error is not None
    assert graded_score.error.startswith("parse error: the JSON object stands inside a sentence")


async def test_a_cpu_only_metric_defines_only_its_value_at_once() -> None:
    class Shouting(Metric):
        inline = True
        meaning = ScoreMeaning(binary=True)

        def compute_now(self, sample: Sample, output: Output, ctx: MetricContext) -> float:
            return float(require_response(output).isupper())

    metric = Shouting(name="shouting")
    sample = Sample(request_id="a", request="q")
    [loud] = await metric.score(sample, Output(response="NO"), MetricContext())
    [quiet] = await metric.score(sample, Output(response="no"), MetricContext())
    assert (loud.value, quiet.value) == (1.0, 0.0)
    assert metric.score_now(sample, Output(response="NO"), MetricContext()) == [loud]


def test_a_role_without_a_model_or_a_judge_is_the_metrics_failure() -> None:
    with pytest.raises(MetricFailure, match="no model for the role 'composer'"):
        MetricContext().model_for("composer")


def test_builtin_families_are_discovered_without_an_import_list() -> None:
    names = set(available_metrics())
    assert {"answer_accuracy", "multiturn", "rouge_l", "bert_score", "relevance_to_query"} <= names


def _write_module(tmp_path: Path) -> None:
    (tmp_path / "my_metrics.py").write_text(
        textwrap.dedent(
            """
            from ragjudge.metrics import Metric, MetricOptions, Result, require_response
            from ragjudge.schema import ScoreMeaning


            class LengthOptions(MetricOptions):
                limit: int = 20


            class ShortEnough(Metric):
                Options = LengthOptions
                meaning = ScoreMeaning(binary=True)

                async def compute(self, sample, output, ctx):
                    return float(len(require_response(output)) <= self.options.limit)
            """
        )
    )


def test_a_metric_class_named_by_its_import_path_in_a_config(tmp_path: Path) -> None:
    _write_module(tmp_path)
    (tmp_path / "set.jsonl").write_text("\n".join(json.dumps(r) for r in ROWS) + "\n")
    config = tmp_path / "eval.yaml"
    config.write_text(
        "data: set.jsonl\nmetrics:\n  - {metric: 'my_metrics:ShortEnough', name: short, limit: 10}\n"
    )
    result = CliRunner().invoke(app, ["run", str(config), "--json", "--no-progress"])
    assert result.exit_code == 0, result.output
    (metric,) = json.loads(result.stdout)["metrics"]
    assert (metric["metric"], metric["mean"]) == ("short", 0.5)
    assert metric["meaning"]["binary"] is True


def test_a_bad_option_stops_the_run_before_any_data_is_read(tmp_path: Path) -> None:
    _write_module(tmp_path)
    config = tmp_path / "eval.yaml"
    config.write_text(
        "data: no_such_file.jsonl\nmetrics:\n"
        "  - {metric: 'my_metrics:ShortEnough', name: short, limit: many}\n"
        "  - {metric: answer_accuracy, name: e2, contexts: questions}\n"
    )
    result = CliRunner().invoke(app, ["run", str(config), "--no-progress"])
    assert result.exit_code == 2
    said = " ".join(result.output.split())
    assert "metric 'short' (my_metrics:ShortEnough): option 'limit' must be a whole number" in said
    assert "metric 'e2' (answer_accuracy): option 'contexts' must be one of" in said
    assert "no_such_file" not in said  # the data was never opened
    assert not (tmp_path / ".ragjudge" / "runs.db").exists()


def test_import_path_errors_are_config_errors() -> None:
    with pytest.raises(ValueError, match="cannot import 'no_such_module'"):
        create_metric("no_such_module:Thing")
    with pytest.raises(ValueError, match="is not a ragjudge Metric subclass"):
        create_metric("json:dumps")


@pytest.mark.parametrize(
    "produced",
    [
        0.25,
        1,
        Result(0.5, rationale="close", details={"reference_index": 1, "recall": 0.5}),
        {"a": 0.1, "b": Result(0.2, rationale=None)},
    ],
)
def test_scores_built_from_results_are_the_validated_ones(produced: Any) -> None:
    class Two(Metric):
        scores: ClassVar[dict[str, ScoreMeaning]] = {"a": ScoreMeaning(), "b": ScoreMeaning()}

    metric = Two(name="two") if isinstance(produced, dict) else Metric(name="one")
    for score in metric.to_scores(produced, call_ids=[3, 4]):
        given = ("metric", "value", "rationale", "details", "judge_call_ids")
        validated = Score(**{name: getattr(score, name) for name in given})
        assert score == validated
        assert score.model_fields_set == validated.model_fields_set


def test_results_that_do_not_validate_fail_as_before() -> None:
    with pytest.raises(ValueError, match="must be finite"):
        Metric(name="one").to_scores(Result(float("nan")))
    with pytest.raises(ValueError, match="valid string"):
        Metric(name="one").to_scores(Result(1.0, details={2: "not text"}))  # type: ignore[dict-item]


def test_a_metric_is_found_without_importing_every_family() -> None:
    import ast
    import subprocess
    import sys

    script = (
        "import sys\n"
        "from ragjudge.metrics import create_metric, metric_class, available_metrics\n"
        "create_metric('rouge_l'); create_metric('token_f1')\n"
        "print(sorted(m for m in sys.modules if m.startswith('ragjudge.metrics.')))\n"
        "print(metric_class('databricks').kind)\n"  # registered under another module's name
        "print(len(available_metrics()))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )
    imported, kind, count = done.stdout.splitlines()
    families = {m.split(".")[2] for m in ast.literal_eval(imported)}
    assert "lexical" in families
    assert not families & {"ragas", "databricks", "semantic", "rubric"}
    assert kind == "databricks"
    assert int(count) == len(available_metrics())

"""A failed run looks failed: errors grouped by cause in the summary, exit codes that
say whether every score arrived, and the checks that stop a run before any paid call
(an unreachable judge, a judge extra that is not installed, a misspelt ``by`` key)."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from ragjudge.analysis._outcome import (
    EXIT_ERRORS,
    EXIT_NO_VALUES,
    EXIT_OK,
    error_cause,
    run_verdict,
)
from ragjudge.cli import app
from ragjudge.schema import ScoreMeaning
from ragjudge.stats import MetricSummary
from ragjudge.testing.server import OpenAITestServer, ReplyScript

runner = CliRunner()
ROWS = [
    {"request_id": f"q{i}", "request": f"question {i}", "expected_response": f"answer {i}"}
    for i in range(4)
]


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "set.jsonl").write_text("\n".join(json.dumps(r) for r in ROWS) + "\n")
    (tmp_path / "apps.py").write_text(
        "def broken(query):\n    raise RuntimeError('the index is gone')\n\n"
        "def chat(query, history):\n    return 'answer ' + query.split()[-1]\n"
    )
    return tmp_path


def run(config: Path, *flags: str) -> tuple[int, str]:
    result = runner.invoke(app, ["run", str(config), "--no-progress", *flags])
    return result.exit_code, " ".join(result.output.split())


def write(project: Path, text: str) -> Path:
    config = project / "eval.yaml"
    config.write_text("data: set.jsonl\n" + text)
    return config


def test_a_run_where_every_target_call_fails_exits_no_values(project: Path) -> None:
    config = write(project, "target: apps:broken\nmetrics: [rouge_l, token_f1]\n")
    code, said = run(config)
    assert code == EXIT_NO_VALUES
    assert "errors by cause" in said and "target failed" in said
    assert "rouge_l: no value at all (4 errors)" in said
    code, printed = run(config, "--json")
    assert code == EXIT_NO_VALUES
    groups = json.loads(printed)["errors_by_cause"]
    assert [(g["metric"], g["cause"], g["count"]) for g in groups] == [
        ("rouge_l", "target failed", 4),
        ("token_f1", "target failed", 4),
    ]
    assert "the index is gone" in groups[0]["example"]


def test_a_closed_judge_port_stops_the_run_at_once_naming_the_model(project: Path) -> None:
    config = write(
        project,
        "metrics: [{metric: answer_accuracy, contexts: none}]\n"
        f"target: apps:chat\njudge: {{model: openai/judge-x, base_url: 'http://127.0.0.1:{closed_port()}/v1'}}\n",
    )
    code, said = run(config)
    assert code == 2
    assert "the judge model openai/judge-x does not answer (connection)" in said
    assert "(gave up after 2 attempts)" in said  # one question and one retry, no more
    assert "the run stopped" in said


def test_litellm_without_its_extra_is_a_config_error(project: Path) -> None:
    try:
        import litellm  # noqa: F401
    except ImportError:
        pass
    else:
        pytest.skip("litellm is installed here")
    config = write(
        project,
        "metrics: [{metric: answer_accuracy, contexts: none}]\ntarget: apps:chat\n"
        "judge: litellm/anthropic/claude-x\n",
    )
    code, said = run(config)
    assert code == 2 and "pip install 'ragjudge[litellm]'" in said


@pytest.fixture
def judge_server() -> Iterator[OpenAITestServer]:
    server = OpenAITestServer(replies=ReplyScript(default="I cannot decide."))
    server.start()
    try:
        yield server
    finally:
        server.stop()


def test_every_unparsable_multiturn_reply_exits_no_values(
    project: Path, judge_server: OpenAITestServer
) -> None:
    config = write(
        project,
        "metrics: [{metric: multiturn, contexts: none, max_turns: 2}]\ntarget: apps:chat\n"
        f"judge: {{model: openai/judge-x, base_url: '{judge_server.base_url}', reask_limit: 0}}\n",
    )
    code, said = run(config)
    assert code == EXIT_NO_VALUES
    assert "parse error" in said and "wscore: no value at all" in said


def test_a_misspelt_by_key_stops_the_run_before_any_judge_call(
    project: Path, judge_server: OpenAITestServer
) -> None:
    config = write(
        project,
        "metrics: [{metric: answer_accuracy, contexts: none}]\ntarget: apps:chat\n"
        f"judge: {{model: openai/judge-x, base_url: '{judge_server.base_url}'}}\nby: langauge\n",
    )
    code, said = run(config)
    assert code == 2 and "no sample has the metadata key 'langauge'" in said
    assert judge_server.stats.requests == 0


@pytest.mark.parametrize(
    ("message", "cause"),
    [
        ("target failed: HTTP 500 from http://x", "target failed"),
        ("the target failed at turn 2: boom", "target failed"),
        ("parse error: no score: end the reply with [RESULT]", "parse error"),
        ("judge (T3): parse error: no score", "parse error"),
        ("judge call failed: [connection] cannot reach http://x", "judge unreachable"),
        ("composer call failed: [timeout] no answer within 60 s", "judge unreachable"),
        ("judge call failed: [rate_limit] HTTP 429", "judge rate-limited"),
        ("judge call failed: [server] HTTP 503", "judge server error"),
        ("judge call failed: [client] HTTP 401 unauthorized", "judge refused the request"),
        ("no judge model configured", "no judge configured"),
        ("every reference answer is empty", "missing input"),
        ("ZeroDivisionError: division by zero", "metric error"),
        ("something else", "other"),
    ],
)
def test_error_causes(message: str, cause: str) -> None:
    assert error_cause(message) == cause


def summary(metric: str, *, scored: int, errors: int) -> MetricSummary:
    return MetricSummary(
        metric=metric, mean=None, ci=None, n=scored, errors=errors, excluded=0,
        mean_all=None, trials=1, trial_sd=None, trial_agreement=None, scored=scored,
    )  # fmt: skip


def test_exit_codes() -> None:
    assert run_verdict([summary("a", scored=10, errors=0)]).exit_code == EXIT_OK
    some = [summary("a", scored=9, errors=1)]
    assert run_verdict(some).exit_code == EXIT_ERRORS
    assert run_verdict(some, max_error_rate=0.1).exit_code == EXIT_OK
    assert run_verdict(some, max_error_rate=0.05).exit_code == EXIT_ERRORS
    none = [summary("a", scored=9, errors=1), summary("b", scored=0, errors=10)]
    assert run_verdict(none, max_error_rate=1.0).exit_code == EXIT_NO_VALUES
    assert run_verdict([]).exit_code == EXIT_NO_VALUES


def test_a_metric_value_that_is_not_finite_is_an_error_everywhere(tmp_path: Path) -> None:
    import ragjudge as rj
    from ragjudge.metrics import Metric

    class Unbounded(Metric):
        name = "unbounded"

        async def compute(self, sample: object, output: object, ctx: object) -> float:
            return float("inf")

    result = rj.evaluate(
        [{"request": "q", "response": "a"}], metrics=[Unbounded()], store=tmp_path / "r.db",
        progress=False,
    )  # fmt: skip
    (summary,) = result.summaries
    assert (summary.n, summary.errors, summary.mean) == (0, 1, None)
    assert result.verdict.exit_code == EXIT_NO_VALUES
    (error,) = result.to_pandas()["unbounded.error"]
    assert "a value must be finite" in error


def test_a_metric_that_does_not_apply_to_a_row_is_not_an_error(tmp_path: Path) -> None:
    import ragjudge as rj
    from ragjudge.metrics import Metric, NotApplicable

    class NeedsFacts(Metric):
        name = "fact_count"
        meaning = ScoreMeaning(low=0, high=None)

        async def compute(self, sample: Any, output: Any, ctx: Any) -> float:
            if not sample.expected_facts:
                raise NotApplicable("the row has no expected_facts")
            return float(len(sample.expected_facts))

    rows = [
        {"request": "a", "response": "x", "expected_facts": ["f1", "f2"]},
        {"request": "b", "response": "y"},
    ]
    result = rj.evaluate(rows, metrics=[NeedsFacts()], store=tmp_path / "r.db", progress=False)
    (summary,) = result.summaries
    assert (summary.mean, summary.n, summary.errors, summary.skipped) == (2.0, 1, 0, 1)
    assert result.verdict.exit_code == EXIT_OK
    frame = result.to_pandas()
    assert frame["fact_count.skipped"].tolist()[1] == "the row has no expected_facts"
    nowhere = rj.evaluate(rows[1:], metrics=[NeedsFacts()], store=tmp_path / "s.db", progress=False)
    (alone,) = nowhere.summaries
    assert (alone.n, alone.errors, alone.skipped) == (0, 0, 1)
    assert nowhere.verdict.exit_code == EXIT_NO_VALUES  # the run has no value at all

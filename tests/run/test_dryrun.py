"""The dry run's estimate against a judged run with a target, over real HTTP against the
local OpenAI-compatible test server: judge prompts that show the target's answer are
sized from its real answers, and the estimate says when it is a lower bound."""

from __future__ import annotations

import asyncio
import io
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import ragjudge as rj
from ragjudge.config import EvalConfig
from ragjudge.models.scripted import ReplyScript
from ragjudge.run._dryrun import DryRunPlan, spread_rows
from ragjudge.run._runner import dry_run
from ragjudge.store._store import Store
from ragjudge.testing.server import OpenAITestServer
from served import running

TOPICS = ["joins", "indexes", "transactions", "views", "triggers", "cursors", "schemas", "roles"]
ROWS = [
    {
        "request_id": f"q{i}",
        "request": f"What are {topic} in SQL?",
        "expected_response": f"{topic.capitalize()} are a SQL feature.",
    }
    for i, topic in enumerate(TOPICS)
]
METRICS: list[str | dict[str, Any]] = [
    # the judge sees the answer with contexts retrieved with the question and reference
    {"metric": "answer_accuracy", "name": "with_reference_contexts", "contexts": "reference"},
    # the judge sees the answer and the reference only
    {"metric": "answer_accuracy", "name": "without_contexts", "contexts": "none"},
]
TOLERANCE = 0.15


def long_answer(query: str) -> str:
    """A generated answer several times longer than the reference answers."""
    topic = query.removeprefix("What are ").removesuffix(" in SQL?")
    return " ".join(
        f"In SQL, {topic} come up in sentence {n} of this deliberately long answer, which "
        "explains how they behave, when to use them and what to watch out for."
        for n in range(8)
    )


@pytest.fixture
def server() -> Iterator[OpenAITestServer]:
    yield from running(OpenAITestServer(replies=ReplyScript(default="Feedback: fine. [RESULT] 5")))


def _knowledge_base(tmp_path: Path) -> Path:
    kb = tmp_path / "kb"
    kb.mkdir(exist_ok=True)
    for topic in TOPICS:
        (kb / f"{topic}.md").write_text(
            f"# {topic}\n\n" + f"{topic.capitalize()} are described at length here. " * 20
        )
    return kb


def _settings(tmp_path: Path, server: OpenAITestServer, **extra: Any) -> dict[str, Any]:
    return {
        "metrics": METRICS,
        "knowledge_base": str(_knowledge_base(tmp_path)),
        "judge": {
            "model": "openai/test-model",
            "base_url": server.base_url,
            "prices": {"test-model": {"input": 1.0, "output": 2.0}},
            "preflight": False,
            "timeout": 30,
        },
        "cache": False,
        "store": str(tmp_path / "runs.db"),
        **extra,
    }


def _plan(settings: dict[str, Any], tmp_path: Path) -> DryRunPlan:
    config = EvalConfig.model_validate({**settings, "base_dir": str(tmp_path)})
    return asyncio.run(dry_run(config, data=ROWS, target=long_answer))


def _actual_input_tokens(settings: dict[str, Any], tmp_path: Path) -> dict[str, int]:
    judge = settings["judge"]
    given = {k: v for k, v in settings.items() if k not in ("metrics", "judge", "knowledge_base")}
    result = rj.evaluate(
        ROWS,
        target=long_answer,
        metrics=METRICS,
        judge=judge,
        knowledge_base=settings["knowledge_base"],
        progress=False,
        **given,
    )
    with Store(tmp_path / "runs.db") as store:
        usage = store.judge_usage(result.run_id)
    return {row["purpose"]: row["input_tokens"] for row in usage}


def test_the_estimate_of_prompts_showing_the_targets_answer_is_within_15_percent(
    tmp_path: Path, server: OpenAITestServer, capsys: pytest.CaptureFixture[str]
) -> None:
    settings = _settings(tmp_path, server)
    plan = _plan(settings, tmp_path)
    assert server.stats.requests == 0 and plan.target_rows == 5 and plan.lower_bound is None
    actual = _actual_input_tokens(settings, tmp_path)

    estimated = {p.purpose: p.input_tokens for p in plan.purposes}
    assert set(estimated) == set(actual) == {"with_reference_contexts", "without_contexts"}
    with capsys.disabled():
        for purpose, tokens in sorted(estimated.items()):
            ratio = tokens / actual[purpose]
            print(f"\n{purpose}: estimate {tokens}, actual {actual[purpose]}, ratio {ratio:.3f}")
    for purpose, tokens in estimated.items():
        assert abs(tokens / actual[purpose] - 1) <= TOLERANCE, (purpose, tokens, actual)


def test_without_the_targets_answers_the_estimate_says_it_is_a_lower_bound(
    tmp_path: Path, server: OpenAITestServer
) -> None:
    asked = _plan(_settings(tmp_path, server), tmp_path)
    not_asked = _plan(_settings(tmp_path, server, dry_run_target_rows=0), tmp_path)

    assert not_asked.target_rows == 0
    assert not_asked.lower_bound is not None and "lower bound" in not_asked.lower_bound
    asked_tokens = sum(p.input_tokens for p in asked.purposes)
    assert sum(p.input_tokens for p in not_asked.purposes) < asked_tokens


def test_a_failing_target_makes_the_estimate_a_lower_bound_naming_the_row(
    tmp_path: Path, server: OpenAITestServer
) -> None:
    def broken(query: str) -> str:
        raise RuntimeError("the app is down")

    config = EvalConfig.model_validate({**_settings(tmp_path, server), "base_dir": str(tmp_path)})
    plan = asyncio.run(dry_run(config, data=ROWS, target=broken))
    assert plan.target_rows == 0 and plan.lower_bound is not None
    assert "q0" in plan.lower_bound


def test_the_plan_says_where_prices_come_from_or_why_there_are_none(
    tmp_path: Path, server: OpenAITestServer
) -> None:
    priced = _plan(_settings(tmp_path, server), tmp_path)
    assert priced.price_source == "the config" and priced.price_note is None
    settings = _settings(tmp_path, server)
    unpriced = _plan({**settings, "judge": {**settings["judge"], "prices": {}}}, tmp_path)
    assert unpriced.total_cost is None and unpriced.price_source is None
    assert unpriced.price_note is not None and server.base_url in unpriced.price_note
    assert unpriced.to_dict()["price_note"] == unpriced.price_note


def test_the_printed_plan_names_its_prices_and_its_ceiling(
    tmp_path: Path, server: OpenAITestServer
) -> None:
    from rich.console import Console

    from ragjudge.terminal import print_plan

    plan = _plan(_settings(tmp_path, server, max_cost=0.001), tmp_path)
    out = io.StringIO()
    print_plan(plan, Console(file=out, width=200))
    shown = out.getvalue()
    assert "the target answered 5 row(s)" in shown
    assert "prices: the config" in shown
    assert "max_cost $0.0010: the estimate is above it" in shown
    assert plan.to_dict()["max_cost"] == 0.001


@pytest.mark.parametrize(
    ("total", "rows", "places"),
    [(31, 5, [0, 6, 12, 18, 24]), (3, 5, [0, 1, 2]), (10, 1, [0]), (10, 0, [])],
)
def test_the_rows_asked_are_spread_over_the_set(total: int, rows: int, places: list[int]) -> None:
    assert spread_rows(total, rows) == places


def test_the_quickstart_judged_estimate_is_within_15_percent_for_both_context_kinds(
    tmp_path: Path,
    server: OpenAITestServer,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The quickstart's answer accuracy with the app's own contexts and with contexts
    retrieved with the reference: the app's answers and contexts are much longer than
    the reference answers that stood in for them before."""
    import json

    from typer.testing import CliRunner

    from ragjudge.cli import app

    monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
    monkeypatch.setenv("RAGJUDGE_JUDGE_MODEL", "test-model")
    config = Path(__file__).parents[2] / "examples" / "quickstart" / "eval-judged.yaml"
    store = ["--store", str(tmp_path / "runs.db"), "--json"]
    runner = CliRunner()
    planned = runner.invoke(app, ["run", str(config), "--dry-run", *store])
    ran = runner.invoke(app, ["run", str(config), "--no-progress", "--no-cache", *store])
    assert planned.exit_code == 0 and ran.exit_code == 0, planned.output + ran.output

    estimated = {p["purpose"]: p["input_tokens"] for p in json.loads(planned.stdout)["by_metric"]}
    actual = {u["purpose"]: u["input_tokens"] for u in json.loads(ran.stdout)["judge_usage"]}
    assert {"accuracy_e2", "accuracy_e3"} <= set(estimated)
    with capsys.disabled():
        for purpose in ("accuracy_e2", "accuracy_e3"):
            ratio = estimated[purpose] / actual[purpose]
            print(
                f"\n{purpose}: estimate {estimated[purpose]}, actual {actual[purpose]}, "
                f"ratio {ratio:.3f}"
            )
    for purpose in ("accuracy_e2", "accuracy_e3"):
        assert abs(estimated[purpose] / actual[purpose] - 1) <= TOLERANCE, (purpose, estimated)


def test_a_small_run_expects_its_judge_calls_and_a_large_one_does_not_plan(
    tmp_path: Path, server: OpenAITestServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    from ragjudge.run import _estimates
    from ragjudge.run._preparation import prepare

    config = EvalConfig.model_validate(
        {**_settings(tmp_path, server, trials=3), "base_dir": str(tmp_path)}
    )
    setup = prepare(config, data=ROWS, target=long_answer)

    async def expected() -> int | None:
        return await _estimates.expected_calls(
            config, setup.samples, setup.metrics, supplies_response=True, retriever=setup.retriever
        )

    assert asyncio.run(expected()) == len(ROWS) * 3 * len(METRICS)
    monkeypatch.setattr(_estimates, "PLANNED_FOR_PROGRESS", len(ROWS) * 3 * len(METRICS) - 1)
    assert asyncio.run(expected()) is None


# a judge matrix -----------------------------------------------------------------------

ANSWERED = [{**row, "response": f"{row['expected_response']} Indeed."} for row in ROWS]


def _matrix_plan(tmp_path: Path, metric: dict[str, Any], **extra: Any) -> DryRunPlan:
    judges = {
        "mini": {"model": "openai/small", "base_url": "http://127.0.0.1:9/v1",
                 "prices": {"small": {"input": 1.0, "output": 1.0}}},
        "big": {"model": "openai/large", "base_url": "http://127.0.0.1:9/v1",
                "prices": {"large": {"input": 10.0, "output": 10.0}}},
    }  # fmt: skip
    config = EvalConfig.model_validate(
        {"metrics": [metric, "exact_match"], "judges": judges, "base_dir": str(tmp_path), **extra}
    )
    return asyncio.run(dry_run(config, data=ANSWERED))


@pytest.mark.parametrize("ensemble", [None, "mean"])
def test_the_dry_run_prices_each_judge_of_a_matrix_and_their_total(
    tmp_path: Path, ensemble: str | None
) -> None:
    metric = {"metric": "answer_accuracy", "contexts": "none"}
    plan = _matrix_plan(tmp_path, metric if ensemble is None else {**metric, "ensemble": ensemble})
    per_judge = plan.by_judge()
    assert [(j, spent["calls"]) for j, spent in per_judge.items()] == [("mini", 8), ("big", 8)]
    # the same prompts at ten times the price
    assert per_judge["big"]["cost"] == pytest.approx(10 * per_judge["mini"]["cost"])
    assert plan.total_calls == 16
    assert plan.total_cost == pytest.approx(per_judge["mini"]["cost"] + per_judge["big"]["cost"])
    assert plan.to_dict()["by_judge"] == per_judge
    assert plan.price_source == "judge mini: the config; judge big: the config"


def test_the_printed_plan_of_a_matrix_has_a_line_per_judge(tmp_path: Path) -> None:
    from rich.console import Console

    from ragjudge.terminal import print_plan

    plan = _matrix_plan(tmp_path, {"metric": "answer_accuracy", "contexts": "none"}, max_cost=0.01)
    out = io.StringIO()
    print_plan(plan, Console(file=out, width=200))
    lines = out.getvalue().splitlines()
    assert any("answer_accuracy@mini" in line and " 8 " in line for line in lines)
    assert any(line.split("│")[1].strip() == "judge big" for line in lines if "│" in line)
    # the ceiling is held against every judge's calls
    assert "max_cost $0.0100: the estimate is above it" in out.getvalue()
    assert plan.total_cost is not None and plan.by_judge()["mini"]["cost"] < 0.01 < plan.total_cost

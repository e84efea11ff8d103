"""``ragjudge battle``: run B against run A, each sample judged in both orders; a
scripted judge that prefers the first position shows the bias rate and the win rate
once the bias is cancelled."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import ragjudge as rj
from evaluated import Marked, output_of, prompts_of, undelimited
from ragjudge.cli import app
from ragjudge.metrics import create_metric
from ragjudge.models import JudgeCallRecord
from ragjudge.models.scripted import ReplyScript, ScriptedProvider
from ragjudge.run._battle import run_battle
from ragjudge.run._dryrun import StandInJudge
from ragjudge.schema import Sample
from ragjudge.store._store import Store
from ragjudge.testing.server import OpenAITestServer
from served import running

runner = CliRunner()
BATTLE = "ragjudge.metrics.classify.battle:Battle"


def runs(store: Path, *, extra_a: int = 0) -> tuple[str, str]:
    """Ten questions; B's answer is clearly better on six (q0–q5, 'GOOD'), as plain as
    A's on four (q6–q9). Subsets: q0–q4 'en', q5–q9 'ja'."""
    base = [
        {"request_id": f"q{i}", "request": f"Question {i}?", "expected_response": "ref", "metadata": {"lang": "en" if i < 5 else "ja"}}
        for i in range(10 + extra_a)
    ]  # fmt: skip
    a = [{**row, "response": f"plain answer {i}"} for i, row in enumerate(base)]
    b = [{**row, "response": f"GOOD answer {i}" if i < 6 else f"plain too {i}"} for i, row in enumerate(base[:10])]  # fmt: skip
    run_a = rj.evaluate(a, metrics=["rouge_l"], store=store, progress=False, judge={"model": "openai/judge-of-a", "preflight": False})  # fmt: skip
    run_b = rj.evaluate(b, metrics=["rouge_l"], store=store, progress=False)
    return run_a.run_id, run_b.run_id


def blocks(messages: list[dict[str, Any]]) -> tuple[str, str]:
    prompt = messages[-1]["content"]
    first = re.search(r"<<<BEGIN COMPLETION1>>>\n(.*?)\n<<<END COMPLETION1>>>", prompt, re.S)
    second = re.search(r"<<<BEGIN COMPLETION2>>>\n(.*?)\n<<<END COMPLETION2>>>", prompt, re.S)
    assert first and second
    return first.group(1), second.group(1)


def first_position_judge(messages: list[dict[str, Any]]) -> str:
    """Sees a clearly better response wherever it is shown; otherwise prefers the
    response shown first."""
    first, second = blocks(messages)
    if "GOOD" in first:
        return "Response 1 is more complete.\nYes"
    if "GOOD" in second:
        return "No, response 2 is more complete.\nResponse 1 is thin."
    return "They are alike; the first reads slightly better.\nYes"


async def test_both_orders_cancel_the_judges_position_bias(tmp_path: Path) -> None:
    store = tmp_path / "runs.db"
    run_a, run_b = runs(store)
    provider = ScriptedProvider(ReplyScript(function=first_position_judge))

    report = await run_battle(
        store, run_a, run_b, by="lang", judge_provider=provider, progress=False
    )

    overall = report.overall
    # q0–q5: B wins in both orders (1); q6–q9: the judge picks the first both times (0.5)
    assert overall.win_rate_b == pytest.approx((6 * 1 + 4 * 0.5) / 10)  # 0.8
    assert overall.position_bias == pytest.approx(4 / 10)
    # preferred the first position: once for each of q0–q5, twice for each of q6–q9
    assert overall.first_position == pytest.approx((6 * 1 + 4 * 2) / 20)  # 0.7
    assert (overall.b_wins, overall.splits, overall.a_wins, overall.n) == (6, 4, 0, 10)
    assert overall.ci_low is not None and overall.ci_low < 0.8 < overall.ci_high
    assert len(provider.calls) == 20
    groups = {row.group: row for row in report.rows[1:]}
    assert groups["en"].win_rate_b == 1.0 and groups["en"].position_bias == 0.0
    assert groups["ja"].win_rate_b == pytest.approx((1 + 4 * 0.5) / 5)  # 0.6
    assert groups["ja"].position_bias == pytest.approx(4 / 5)
    # asked in one order only, the same judge would have said 0.6 (A first) or 1.0 (B first)
    with Store(store) as s:
        details = [
            sc.details for _, _, sc in s.scores(report.result.run_id) if sc.metric == "battle"
        ]
    assert sum(d["choice_a_first"] == "No" for d in details) / 10 == 0.6
    assert sum(d["choice_b_first"] == "Yes" for d in details) / 10 == 1.0
    assert report.result.meanings["battle/position_bias"].lower_is_better


async def test_samples_not_answered_by_both_runs_are_left_out(tmp_path: Path) -> None:
    store = tmp_path / "runs.db"
    run_a, run_b = runs(store, extra_a=2)
    provider = ScriptedProvider(ReplyScript(function=first_position_judge))
    report = await run_battle(store, run_a, run_b, judge_provider=provider, progress=False)
    assert report.left_out == {"only_in_a": 2}
    assert report.overall.n == 10


async def test_an_unreadable_verdict_is_an_error_not_a_win(tmp_path: Path) -> None:
    store = tmp_path / "runs.db"
    run_a, run_b = runs(store)
    provider = ScriptedProvider(ReplyScript(default="Both are fine, I will not choose."))
    report = await run_battle(store, run_a, run_b, judge_provider=provider, progress=False)
    assert report.overall.win_rate_b is None and report.overall.errors == 10
    assert report.result.verdict.exit_code == 4


async def test_the_battle_prompt_delimits_both_responses_and_hides_which_run_is_which() -> None:
    marked = Marked()
    row = marked.row()
    row["metadata"]["response_a"] = marked("response_a")
    records: list[JudgeCallRecord] = []
    metric = create_metric(BATTLE)
    scores = await metric.score(Sample.model_validate(row), output_of(row), marked.context(StandInJudge(records)))  # fmt: skip
    assert [s.error for s in scores] == [None, None, None]
    a_first, b_first = prompts_of(records)
    for prompt in (a_first, b_first):
        assert not undelimited(prompt)
        assert "run A" not in prompt and "run B" not in prompt
    assert a_first.index("QZXresponse_aQZX") < a_first.index("QZXresponseQZX")
    assert b_first.index("QZXresponseQZX") < b_first.index("QZXresponse_aQZX")


def test_a_battle_spec_needs_two_pairs_and_scores_from_0_to_1() -> None:
    with pytest.raises(ValueError, match="a battle needs two input_outputs pairs"):
        create_metric({"metric": BATTLE, "spec": "fact"})
    with pytest.raises(ValueError, match="choice_scores from 0 to 1"):
        create_metric({"metric": BATTLE, "spec": "battle", "choice_scores": {"Yes": 2, "No": 0}})


@pytest.fixture
def server() -> Iterator[OpenAITestServer]:
    yield from running(OpenAITestServer(replies=ReplyScript(function=first_position_judge)))


def test_the_battle_command(tmp_path: Path, server: OpenAITestServer) -> None:
    store = tmp_path / "runs.db"
    run_a, run_b = runs(store)
    config = tmp_path / "judge.yaml"
    config.write_text(
        f"metrics: [rouge_l]\njudge:\n  model: openai/test-model\n  base_url: {server.base_url}\n"
        "  preflight: false\n"
    )
    args = ["battle", run_a, run_b, "--store", str(store), "--config", str(config), "--no-progress"]
    shown = runner.invoke(app, [*args, "--by", "lang"])
    assert shown.exit_code == 0, shown.output
    assert "B win rate" in shown.output and "position bias" in shown.output
    assert re.search(r"all\s+│\s+0\.800\s+│", shown.output), shown.output
    as_json = runner.invoke(app, [*args, "--json"])
    data = json.loads(as_json.stdout)
    assert data["rows"][0]["win_rate_b"] == pytest.approx(0.8)
    assert data["rows"][0]["position_bias"] == pytest.approx(0.4)
    assert data["exit_code"] == 0


def test_the_battle_command_explains_what_is_missing(tmp_path: Path) -> None:
    store = tmp_path / "runs.db"
    rows = [{"request_id": "a", "request": "q", "response": "r", "expected_response": "r"}]
    run_a = rj.evaluate(rows, metrics=["rouge_l"], store=store, progress=False).run_id
    run_b = rj.evaluate(rows, metrics=["rouge_l"], store=store, progress=False).run_id
    no_judge = runner.invoke(app, ["battle", run_a, run_b, "--store", str(store), "--no-progress"])
    assert (
        no_judge.exit_code == 2
        and "had no judge model to reuse; pass --judge MODEL" in no_judge.output
    )
    unknown = runner.invoke(
        app, ["battle", run_a, "nope", "--store", str(store), "--judge", "openai/x"]
    )
    assert unknown.exit_code == 2 and "nope" in unknown.output
    missing = runner.invoke(app, ["battle", run_a, run_b, "--store", str(tmp_path / "none.db")])
    assert missing.exit_code == 2 and "no store at" in missing.output


# graded battles ------------------------------------------------------------------

RUBRIC = "5: complete and correct against the reference; 1: wrong"


def graded_responses(messages: list[dict[str, Any]]) -> tuple[str, str]:
    prompt = messages[-1]["content"]
    first = re.search(r"<<<BEGIN RESPONSE A>>>\n(.*?)\n<<<END RESPONSE A>>>", prompt, re.S)
    second = re.search(r"<<<BEGIN RESPONSE B>>>\n(.*?)\n<<<END RESPONSE B>>>", prompt, re.S)
    assert first and second
    return first.group(1), second.group(1)


def always_first(messages: list[dict[str, Any]]) -> str:
    return "Feedback: the first one reads better.\n[RESULT] A"


def consistent(messages: list[dict[str, Any]]) -> str:
    """Picks B's GOOD answer wherever it is; where neither is GOOD, run A's 'plain
    answer' (over B's 'plain too') wherever it is."""
    first, second = graded_responses(messages)
    if "GOOD" in first + second:
        place = "A" if "GOOD" in first else "B"
    else:
        place = "A" if first.startswith("plain answer") else "B"
    return f"Feedback: that one meets the rubric.\n[RESULT] {place}"


async def test_a_graded_battle_with_a_judge_that_follows_the_position(tmp_path: Path) -> None:
    store = tmp_path / "runs.db"
    run_a, run_b = runs(store)
    provider = ScriptedProvider(ReplyScript(function=always_first))
    report = await run_battle(
        store, run_a, run_b, graded=True, rubric=RUBRIC, judge_provider=provider, progress=False
    )
    overall = report.overall
    assert overall.position_bias == 1.0 and overall.first_position == 1.0
    assert (overall.b_wins, overall.splits, overall.a_wins) == (0, 10, 0)
    assert overall.win_rate_b == 0.5 and overall.win_rate_a == 0.5
    assert report.graded and len(report.samples) == 10
    assert all(pair.agree is False for pair in report.samples)
    assert {(p.winner_a_first, p.winner_b_first) for p in report.samples} == {("a", "b")}
    assert len(provider.calls) == 20


async def test_a_graded_battle_with_a_consistent_judge(tmp_path: Path) -> None:
    store = tmp_path / "runs.db"
    run_a, run_b = runs(store)
    provider = ScriptedProvider(ReplyScript(function=consistent))
    report = await run_battle(
        store, run_a, run_b, graded=True, rubric=RUBRIC, judge_provider=provider, progress=False
    )
    overall = report.overall
    # B wins q0–q5 in both orders, A wins q6–q9 in both orders
    assert overall.win_rate_b == pytest.approx(6 / 10)
    assert overall.win_rate_a == pytest.approx(4 / 10)
    assert (overall.b_wins, overall.splits, overall.a_wins) == (6, 0, 4)
    assert overall.position_bias == 0.0 and overall.first_position == 0.5
    assert overall.ci_low is not None and overall.ci_high is not None
    assert overall.ci_a == pytest.approx((1 - overall.ci_high, 1 - overall.ci_low))
    assert overall.first_position_ci is not None
    assert overall.first_position_ci[0] <= 0.5 <= overall.first_position_ci[1]
    assert all(pair.agree for pair in report.samples)
    winners = {p.request_id: p.winner_a_first for p in report.samples}
    assert winners == {f"q{i}": "b" if i < 6 else "a" for i in range(10)}
    with Store(store) as s:
        meanings = s.run(report.result.run_id).meanings
    assert "graded_battle/position_bias" in meanings


async def test_a_graded_battle_names_the_row_without_a_rubric(tmp_path: Path) -> None:
    store = tmp_path / "runs.db"
    run_a, run_b = runs(store)
    provider = ScriptedProvider(ReplyScript(function=consistent))
    with pytest.raises(rj.ConfigError, match="sample 'q0' of run A has no score rubric"):
        await run_battle(store, run_a, run_b, graded=True, judge_provider=provider, progress=False)
    assert provider.calls == []


@pytest.fixture
def graded_server() -> Iterator[OpenAITestServer]:
    yield from running(OpenAITestServer(replies=ReplyScript(function=always_first)))


def test_the_graded_battle_command(tmp_path: Path, graded_server: OpenAITestServer) -> None:
    store = tmp_path / "runs.db"
    run_a, run_b = runs(store)
    rubric = tmp_path / "rubric.txt"
    rubric.write_text(RUBRIC, encoding="utf-8")
    args = [
        "battle", run_a, run_b, "--store", str(store), "--no-progress", "--judge",
        "openai/test-model", "--rubric-file", str(rubric),
    ]  # fmt: skip
    env = {"OPENAI_BASE_URL": graded_server.base_url}
    shown = runner.invoke(app, [*args, "--samples"], env=env, terminal_width=220)
    assert shown.exit_code == 0, shown.output
    assert "inconsistent" in shown.output and "A win rate" in shown.output
    assert "each sample's two verdicts" in shown.output
    as_json = runner.invoke(app, [*args, "--json"], env=env)
    data = json.loads(as_json.stdout)
    assert data["graded"] is True and data["rows"][0]["position_bias"] == 1.0
    assert data["rows"][0]["win_rate_a"] == 0.5 and data["rows"][0]["splits"] == 10
    assert [s["agree"] for s in data["samples"]] == [False] * 10


def test_the_graded_battle_command_refuses_conflicting_options(tmp_path: Path) -> None:
    store = tmp_path / "runs.db"
    run_a, run_b = runs(store)
    base = ["battle", run_a, run_b, "--store", str(store), "--judge", "openai/x"]
    both = runner.invoke(app, [*base, "--rubric", "r", "--rubric-file", "r.txt"])
    assert both.exit_code == 2 and "--rubric TEXT or --rubric-file PATH" in both.output
    spec = runner.invoke(app, [*base, "--graded", "--rubric", "r", "--spec", "fact"])
    assert spec.exit_code == 2 and "--spec and --graded do not go together" in spec.output
    missing = runner.invoke(app, [*base, "--rubric-file", str(tmp_path / "none.txt")])
    assert missing.exit_code == 2 and "--rubric-file: no file at" in missing.output

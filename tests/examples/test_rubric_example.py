"""Seed 003's three methods on the seed's example (examples/rubric): a dry run counts one
call per rubric item; against the local OpenAI-compatible test server answering as the
seed's judge did, ``repro`` gives the seed's tables and ``methods`` the seed's comparison
in numbers — and with a stochastic judge the figures recover the spread put in."""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from typer.testing import CliRunner

import ragjudge as rj
from ragjudge.analysis._methods import methods_for_run
from ragjudge.cli import app
from ragjudge.models.scripted import ReplyScript, ScriptedProvider
from ragjudge.store._store import Store
from ragjudge.testing.server import OpenAITestServer

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "metrics" / "rubric"))
from seed_judge import SeedJudge

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "rubric"


def invoke(*args: str) -> Any:
    result = CliRunner().invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def test_dry_run_counts_one_call_per_rubric_item(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OPENAI_BASE_URL", "OPENAI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    plan = invoke("run", str(EXAMPLE / "eval.yaml"), "--dry-run", "--json")
    calls = {p["purpose"]: p["calls"] for p in plan["by_metric"]}
    assert calls == {"general": 100, "specific": 100, "rubric": 2 * 50 * 12}


def run_example(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, judge: SeedJudge) -> str:
    server = OpenAITestServer(replies=ReplyScript(function=judge, default="OK"))
    store = str(tmp_path / "runs.db")
    with server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "test-key")
        monkeypatch.setenv("RAGJUDGE_JUDGE_MODEL", server.model_id)
        summary = invoke(
            "run", str(EXAMPLE / "eval.yaml"), "--store", store, "--json", "--no-progress"
        )
    assert summary["errors_by_cause"] == [] and summary["exit_code"] == 0
    return str(summary["run_id"])


def test_the_seeds_tables_from_the_seeds_verdicts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run_id = run_example(tmp_path, monkeypatch, SeedJudge())
    store = str(tmp_path / "runs.db")
    repro = invoke("repro", run_id, "--store", store, "--json")
    rows = {(r["metric"], r["request_id"]): r for r in repro["rows"]}
    assert rows[("general", "response-1")]["distribution"] == [[5.0, 50]]
    assert rows[("general", "response-2")]["distribution"] == [[5.0, 50]]
    assert rows[("specific", "response-1")]["distribution"] == [[5.0, 50]]
    assert rows[("specific", "response-2")]["distribution"] == [[3.0, 14], [4.0, 36]]
    assert rows[("specific", "response-2")]["mode_share"] == 0.72
    for response, rate in (("response-1", 0.833), ("response-2", 0.333)):
        rubric = rows[("rubric", response)]
        ((value, count),) = rubric["distribution"]
        assert round(value, 3) == rate and count == 50
        assert rubric["items_all_agree"] is True and len(rubric["items"]) == 12

    methods = invoke("methods", run_id, "--store", store, "--json")
    assert methods["paired"] is True and methods["requests"] == 1
    by_name = {m["metric"]: m for m in methods["methods"]}
    general, specific, rubric = by_name["general"], by_name["specific"], by_name["rubric"]
    # discrimination: method 1 cannot tell the responses apart; 2 and 3 can
    assert general["difference"] == 0 and general["difference_ci"] == [0, 0]
    assert general["ordered_pairs"] == 0
    assert specific["difference"] == pytest.approx(5 - 3.72)
    assert specific["difference_ci"][0] > 0 and specific["ordered_pairs"] == 1
    assert rubric["difference"] == pytest.approx(0.5) and rubric["difference_ci"] == [
        pytest.approx(0.5),
        pytest.approx(0.5),
    ]
    assert specific["difference_of_scale"] == pytest.approx(1.28 / 4)
    # reproducibility: method 2 spreads on response 2, the rubric never does
    assert general["within_sd"] == 0 and general["modal_agreement"] == 1
    assert specific["modal_agreement"] == pytest.approx((1 + 0.72) / 2)
    assert rubric["within_sd"] == 0 and rubric["item_agreement"] == 1
    assert rubric["items_all_agree"] == 1
    # strictness, interpretability, cost
    assert general["strictness"] == 1.0 and rubric["strictness"] == pytest.approx(7 / 12)
    assert [by_name[m]["items_per_sample"] for m in ("general", "specific", "rubric")] == [1, 1, 12]
    assert [by_name[m]["calls_per_sample"] for m in ("general", "specific", "rubric")] == [1, 1, 12]
    assert rubric["input_tokens_per_sample"] > 10 * general["input_tokens_per_sample"]

    text = CliRunner().invoke(app, ["methods", run_id, "--store", store]).output
    assert "judge methods compared" in text and "items judged per sample" in text


def test_a_stochastic_judge_is_recovered(tmp_path: Path) -> None:
    draw = random.Random(7)
    ratings = {
        ("general", "response-1"): [5],
        ("general", "response-2"): [5],
        ("specific", "response-1"): [5],
        # 3, 4 or 5 with probabilities 0.3, 0.5, 0.2: mean 3.9, sd 0.7
        ("specific", "response-2"): lambda: draw.choices([3, 4, 5], [0.3, 0.5, 0.2])[0],
    }
    judge = ScriptedProvider(ReplyScript(function=SeedJudge(ratings, flip_rate=0.02, seed=3)))
    config = yaml.safe_load((EXAMPLE / "eval.yaml").read_text(encoding="utf-8"))
    store = tmp_path / "runs.db"
    result = rj.evaluate(
        EXAMPLE / "evalset.jsonl",
        metrics=config["metrics"],
        judge=judge,
        trials=50,
        store=store,
        progress=False,
    )
    assert result.verdict.exit_code == 0
    with Store(store) as opened:
        table = methods_for_run(opened, result.run_id)
    methods = {row.metric: row for row in table.rows}
    specific, rubric = methods["specific"], methods["rubric"]
    # the sd put in (0.7 on response 2, 0 on response 1) comes back as the mean within-sample sd
    assert specific.within_sd == pytest.approx(0.7 / 2, abs=0.08)
    assert specific.difference == pytest.approx(5 - 3.9, abs=0.25)
    # 2% of the verdicts flipped: the trials agree with each item's majority ~98% of the time
    assert rubric.item_agreement == pytest.approx(0.98, abs=0.015)
    assert rubric.items_all_agree is not None and rubric.items_all_agree < 1

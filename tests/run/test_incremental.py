"""Incremental runs over an appended log: only the rows no earlier run of the same
config scored are evaluated, and the runs make a series."""

import asyncio
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ragjudge.analysis._series import run_series, series_of_run
from ragjudge.cli import app
from ragjudge.config import ConfigError, EvalConfig
from ragjudge.errors import NothingNew
from ragjudge.models.scripted import ReplyScript, ScriptedProvider
from ragjudge.run._runner import run_evaluation
from ragjudge.store._events import INCREMENTAL
from ragjudge.store._store import Store

runner = CliRunner()


def log_rows(first: int, last: int, *, ids: bool = True) -> list[dict[str, str]]:
    rows = []
    for i in range(first, last):
        answer = str(2 * i)
        row = {"request": f"What is {i} + {i}?", "response": answer, "expected_response": answer}
        rows.append({"request_id": f"req-{i}", **row} if ids else row)
    return rows


def append(log: Path, rows: list[dict[str, str]]) -> None:
    with log.open("a", encoding="utf-8") as f:
        for row in rows:
            f.write(json.dumps(row) + "\n")


def config(tmp_path: Path, log: Path, **settings: object) -> EvalConfig:
    return EvalConfig.model_validate(
        {
            "name": "nightly",
            "data": str(log),
            "metrics": [
                "rouge_l",
                {"metric": "classify", "spec": "closedqa", "args": {"criteria": "correct"}},
            ],
            "judge": {"model": "scripted", "preflight": False},
            "store": str(tmp_path / "runs.db"),
            "cache": False,
            "incremental": True,
            **settings,
        }
    )


def judged(cfg: EvalConfig, judge: ScriptedProvider) -> str:
    result = asyncio.run(run_evaluation(cfg, judge_provider=judge, progress=False))
    return result.run_id


def test_the_second_run_scores_only_the_appended_rows(tmp_path: Path) -> None:
    log = tmp_path / "log.jsonl"
    append(log, log_rows(0, 5))
    judge = ScriptedProvider(ReplyScript(default="Right.\nY"))
    first = judged(config(tmp_path, log), judge)
    calls_first = len(judge.calls)
    assert calls_first == 5

    append(log, log_rows(5, 8))
    # another name and pace: the same config for scoring
    second = judged(config(tmp_path, log, name="nightly-2", concurrency=2), judge)
    assert len(judge.calls) - calls_first == 3

    with Store(tmp_path / "runs.db") as store:
        new_ids = {s.request_id for s in store.samples(second)}
        assert new_ids == {"req-5", "req-6", "req-7"}
        assert len(store.judge_calls(second)) == 3
        assert {rid for rid, _, _ in store.scores(second)} == new_ids
        (event,) = store.run_events(second, INCREMENTAL)
        assert event["continues"] == [first]
        assert (event["new_rows"], event["skipped_rows"]) == (3, 5)

        series = run_series(store, metric="rouge_l")
        assert [p.run_id for p in series.points] == [first, second]
        assert [p.new_rows for p in series.points] == [5, 3]
        assert all(p.mean == pytest.approx(1.0) for p in series.points)
        belongs = series_of_run(store, store.run(second))
        assert [len(one.points) for one in belongs] == [2] * len(belongs)
        assert belongs[0].metric == "rouge_l" and len(belongs) >= 2
        assert series_of_run(store, store.run(first)) == []


def test_a_changed_metric_list_scores_every_row_again(tmp_path: Path) -> None:
    log = tmp_path / "log.jsonl"
    append(log, log_rows(0, 3))
    asyncio.run(run_evaluation(config(tmp_path, log, metrics=["rouge_l"]), progress=False))
    changed = config(tmp_path, log, metrics=["rouge_l", "exact_match"])
    run_id = asyncio.run(run_evaluation(changed, progress=False)).run_id
    with Store(tmp_path / "runs.db") as store:
        assert len(store.samples(run_id)) == 3
        (event,) = store.run_events(run_id, INCREMENTAL)
        assert event["continues"] == []


def test_nothing_new_makes_no_run(tmp_path: Path) -> None:
    log = tmp_path / "log.jsonl"
    append(log, log_rows(0, 2))
    cfg = config(tmp_path, log, metrics=["rouge_l"], judge=None)
    asyncio.run(run_evaluation(cfg, progress=False))
    with pytest.raises(NothingNew, match="all 2 rows"):
        asyncio.run(run_evaluation(cfg, progress=False))
    with Store(tmp_path / "runs.db") as store:
        assert len(store.runs()) == 1


def test_rows_without_ids_are_refused_naming_the_rows(tmp_path: Path) -> None:
    log = tmp_path / "log.jsonl"
    append(log, log_rows(0, 2) + log_rows(2, 4, ids=False))
    cfg = config(tmp_path, log, metrics=["rouge_l"], judge=None)
    with pytest.raises(ConfigError, match=r"request id on every row.*2 row\(s\).*rows 3, 4"):
        asyncio.run(run_evaluation(cfg, progress=False))
    assert not (tmp_path / "runs.db").exists()


def test_the_command_line_runs_incrementally_and_lists_the_series(tmp_path: Path) -> None:
    log = tmp_path / "log.jsonl"
    append(log, log_rows(0, 3))
    yaml = tmp_path / "eval.yaml"
    yaml.write_text("name: nightly\ndata: log.jsonl\nmetrics: [exact_match]\n", encoding="utf-8")
    store = str(tmp_path / ".ragjudge" / "runs.db")
    args = ["run", str(yaml), "--incremental", "--no-progress", "--store", store]
    assert runner.invoke(app, args).exit_code == 0
    append(log, log_rows(3, 5))
    assert runner.invoke(app, args).exit_code == 0
    again = runner.invoke(app, args)
    assert again.exit_code == 0 and "nothing new to evaluate" in again.output

    listed = runner.invoke(app, ["series", "--store", store, "--json"])
    assert listed.exit_code == 0, listed.output
    shown = json.loads(listed.output)
    assert shown["metric"] == "exact_match"
    assert [r["new_rows"] for r in shown["runs"]] == [3, 2]

    unknown = runner.invoke(app, ["series", "--store", store, "--metric", "nope"])
    assert unknown.exit_code == 2 and "exact_match" in unknown.output


def test_the_command_line_refuses_a_log_without_ids(tmp_path: Path) -> None:
    log = tmp_path / "log.jsonl"
    append(log, log_rows(0, 2, ids=False))
    yaml = tmp_path / "eval.yaml"
    yaml.write_text("data: log.jsonl\nmetrics: [exact_match]\nincremental: true\n", "utf-8")
    result = runner.invoke(app, ["run", str(yaml), "--no-progress"])
    assert result.exit_code == 2
    assert "incremental" in result.output and "request id" in result.output

"""``ragjudge align`` against the local test server playing a judge with a known
systematic error: the table of agreement before and after, the judge file written and
loadable, the dry run calling nothing, and the mistakes that exit 2 with a message."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from aligned_runs import METRIC, REWRITTEN, judge_reply, labelled_run
from ragjudge.cli._app import app
from ragjudge.metrics.custom._spec import read_judge_file
from ragjudge.models.scripted import ReplyScript
from ragjudge.testing.server import OpenAITestServer

runner = CliRunner()
PRICES = {"test-judge": {"input": 1.0, "output": 2.0}}


@pytest.fixture(scope="module")
def server() -> Iterator[OpenAITestServer]:
    with OpenAITestServer(replies=ReplyScript(function=judge_reply)) as started:
        yield started


def _run(
    tmp_path: Path, server: OpenAITestServer, labelled: int | None = None, on_scale: bool = False
) -> str:
    judge = {"model": "openai/test-judge", "base_url": server.base_url, "prices": PRICES}
    store, run_id = labelled_run(tmp_path, 30, labelled=labelled, judge=judge, on_scale=on_scale)
    store.close()
    return run_id


def _align(tmp_path: Path, *args: str) -> tuple[int, str]:
    result = runner.invoke(
        app, ["align", *args, "--store", str(tmp_path / "runs.db")], env={"COLUMNS": "200"}
    )
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result.exit_code, result.output


def test_align_prints_agreement_before_and_after_and_writes_a_judge_file(
    tmp_path: Path, server: OpenAITestServer
) -> None:
    run_id = _run(tmp_path, server)
    spec = tmp_path / "judge.yaml"
    code, said = _align(tmp_path, run_id, "--metric", METRIC, "--folds", "3", "-o", str(spec))

    assert code == 0, said
    assert "30 labelled samples, 12 where the run's judge and the people disagree" in said
    # the table's cells wrap when the terminal is narrow: the figures, not their layout
    assert "examples" in said and "0.60" in said and "1.00" in said
    assert "best: examples (accuracy +0.40)" in said
    assert "+- inputs:" in said  # the diff shows the examples added
    written = read_judge_file(spec)
    assert len(written["examples"]) == 4 and written["scale"] == "yes/no"
    assert f"name: {METRIC}, spec: {spec}" in said.replace("\n", "")


def test_labels_on_a_scale_show_how_often_the_values_are_equal(
    tmp_path: Path, server: OpenAITestServer
) -> None:
    run_id = _run(tmp_path, server, on_scale=True)
    code, said = _align(tmp_path, run_id, "--metric", METRIC, "--candidate", "examples")

    assert code == 0, said
    assert "examples, labels on a scale: same value 0.40 [" in said
    assert "→ 0.80 [" in said and "weighted kappa" in said
    assert "+  verdict: 1" in said


def test_the_dry_run_estimates_from_the_runs_own_calls_and_calls_nothing(
    tmp_path: Path, server: OpenAITestServer
) -> None:
    run_id = _run(tmp_path, server)
    before = len(server.requests_log)
    code, said = _align(tmp_path, run_id, "--metric", METRIC, "--dry-run")

    assert code == 0, said
    assert "would make about 96 judge calls, estimated cost $" in said
    assert "nothing was called" in said
    assert len(server.requests_log) == before
    code, said = _align(tmp_path, run_id, "--metric", METRIC, "--max-cost", "0.000001")
    assert code == 2 and "--max-cost" in said and "96 judge calls" in said
    assert len(server.requests_log) == before


def test_the_json_result_holds_each_fold_and_the_judge_proposed(
    tmp_path: Path, server: OpenAITestServer
) -> None:
    run_id = _run(tmp_path, server)
    code, said = _align(tmp_path, run_id, "--metric", METRIC, "--candidate", "criteria", "--json")

    assert code == 0, said
    found = json.loads(said)
    [criteria] = found["candidates"]
    assert criteria["before"]["accuracy"]["value"] == pytest.approx(0.6)
    assert criteria["after"]["accuracy"]["value"] == pytest.approx(1.0)
    assert [len(f["held_out"]) for f in criteria["folds"]] == [6] * 5
    assert found["best"] == "criteria" and found["spec"]["criteria"] == REWRITTEN
    assert found["cost"] > 0 and found["calls"] == 30 + 6


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--metric", "nope"], "has no score 'nope'"),
        (["--metric", METRIC, "--folds", "20"], "too few for 20 folds"),
        (["--metric", METRIC, "--candidate", "magic"], "--candidate must be one of"),
        (["--metric", METRIC, "-o", "judge.txt"], "must be a .yaml or .yml file"),
    ],
)
def test_a_mistake_exits_2_naming_it(
    tmp_path: Path, server: OpenAITestServer, args: list[str], says: str
) -> None:
    run_id = _run(tmp_path, server)
    code, said = _align(tmp_path, run_id, *args)
    assert code == 2 and says in " ".join(said.split()), said


def test_a_score_without_labels_exits_2(tmp_path: Path, server: OpenAITestServer) -> None:
    run_id = _run(tmp_path, server, labelled=0)
    code, said = _align(tmp_path, run_id, "--metric", METRIC)
    assert code == 2 and "has no labels of right" in said

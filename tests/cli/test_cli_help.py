"""The CLI explains itself: --version, help without type placeholders, ``metrics`` from
the metrics' own declarations, ``--store`` for every command (``cache`` included)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from ragjudge import __version__
from ragjudge.cli import app
from ragjudge.metrics import available_metrics

runner = CliRunner()
QUICKSTART = Path(__file__).resolve().parents[2] / "examples" / "quickstart"


def _commands() -> list[list[str]]:
    group = typer.main.get_command(app)
    found: list[list[str]] = [[]]
    for name, command in group.commands.items():  # type: ignore[attr-defined]
        found.append([name])
        found += [[name, sub] for sub in getattr(command, "commands", {})]
    return found


def test_version() -> None:
    result = runner.invoke(app, ["--version"])

    assert result.exit_code == 0
    assert result.stdout.strip() == f"ragjudge {__version__}"


@pytest.mark.parametrize("command", _commands(), ids=lambda c: " ".join(c) or "ragjudge")
def test_help_shows_no_type_placeholders(command: list[str]) -> None:
    result = runner.invoke(app, [*command, "--help"], env={"COLUMNS": "120"})

    assert result.exit_code == 0
    assert "<bool>" not in result.stdout and "<str>" not in result.stdout
    usage = next(line for line in result.stdout.splitlines() if "Usage:" in line)
    assert "{" not in usage


# how the sources' own documents name methods, which a user of ragjudge cannot know
SHORTHAND = re.compile(r"seed \d{3}|seed's|Figure \d|σ|\bE[123]\b|\bT[1-7]\b")


@pytest.mark.parametrize("command", _commands(), ids=lambda c: " ".join(c) or "ragjudge")
def test_help_names_methods_by_what_they_do(command: list[str]) -> None:
    result = runner.invoke(app, [*command, "--help"], env={"COLUMNS": "120"})

    assert SHORTHAND.findall(result.stdout) == []


def test_meta_help_says_what_the_table_option_prints() -> None:
    text = runner.invoke(app, ["meta", "--help"], env={"COLUMNS": "400"}).stdout

    assert "the judge table instead: one row per metric, judge and context mode" in text
    assert "the correlation table of every metric against the human scores" in text


def test_metric_descriptions_name_methods_by_what_they_do() -> None:
    found = json.loads(runner.invoke(app, ["metrics", "--json"]).stdout)
    described = {m["name"]: m["measures"] for m in found}

    assert SHORTHAND.findall(" ".join(described.values())) == []
    assert described["multiturn"].startswith("Multi-turn follow-up evaluation")


def test_run_help_names_values_and_arguments_plainly() -> None:
    text = runner.invoke(app, ["run", "--help"], env={"COLUMNS": "160"}).stdout
    show = runner.invoke(app, ["show", "--help"], env={"COLUMNS": "160"}).stdout

    assert "run [OPTIONS] [CONFIG]" in text
    assert "show [OPTIONS] RUN " in show
    assert "--fail-under" in text and "METRIC=VALUE" in text
    limit = next(line for line in text.splitlines() if "--limit" in line)
    assert " N " in limit


def test_metrics_lists_what_each_metric_measures() -> None:
    result = runner.invoke(app, ["metrics"], env={"COLUMNS": "200"})

    assert result.exit_code == 0
    for name in available_metrics():
        assert name in result.stdout
    faithfulness = next(x for x in result.stdout.splitlines() if x.startswith("│ faithfulness"))
    assert "0–1" in faithfulness and "↑" in faithfulness and "2 (statements" in faithfulness
    assert "generation" in faithfulness and "retrieval" not in faithfulness
    recall = next(x for x in result.stdout.splitlines() if x.startswith("│ context_recall "))
    assert "retrieval" in recall


def test_metrics_json_comes_from_the_declarations() -> None:
    result = runner.invoke(app, ["metrics", "--json"])

    listed = {m["name"]: m for m in json.loads(result.stdout)}
    assert set(listed) == set(available_metrics())
    accuracy = listed["answer_accuracy"]
    assert accuracy["scores"][0]["range"] == "0–5"
    assert accuracy["scores"][0]["excluded"] == [0.0]
    assert accuracy["inputs"][:2] == ["response", "expected_response"]
    assert accuracy["needs_judge"] and accuracy["judge_calls"] == "1"
    assert "contexts" in accuracy["options"] and "'reference'" in accuracy["options"]["contexts"]
    assert listed["rouge_l"]["judge_calls"] == "0"
    lscore = next(s for s in listed["multiturn"]["scores"] if s["name"] == "lscore")
    assert lscore["direction"] == "lower"
    assert all(m["judge_calls"] != "several (not declared)" for m in listed.values())
    assert listed["context_relevancy"]["parts"] == ["retrieval"]
    assert listed["faithfulness"]["parts"] == ["generation"]
    assert listed["answer_relevancy"]["parts"] == ["retrieval", "generation"]
    assert listed["answer_correctness"]["parts"] == ["end to end"]


def test_metrics_verbose_shows_scores_and_options() -> None:
    result = runner.invoke(app, ["metrics", "-v"], env={"COLUMNS": "200"})

    assert "judge calls per sample: up to 3 per turn" in result.stdout
    assert "options: contexts: " in result.stdout
    assert "mean leaves out 0" in result.stdout
    assert "part of the pipeline it measures: retrieval, generation" in result.stdout


def test_metric_info_of_a_judged_metric_that_keeps_one_call() -> None:
    from ragjudge.metrics._info import metric_info

    info = metric_info("safety")

    assert info.judge_calls == "1" and info.scores[0].range == "yes/no"


def _quickstart_run(tmp_path: Path) -> Path:
    store = tmp_path / "project" / ".ragjudge" / "runs.db"
    config = QUICKSTART / "eval.yaml"
    result = runner.invoke(
        app, ["run", str(config), "--store", str(store), "--no-progress", "--limit", "3"]
    )
    assert result.exit_code == 0, result.output
    return store


def test_cache_takes_store_and_works_from_any_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = _quickstart_run(tmp_path)
    (store.parent / "cache.db").write_bytes(b"")  # stand in for a judged run's cache
    from ragjudge.models import ResponseCache

    with ResponseCache(store.parent / "cache.db") as cache:
        cache.put("k", {"text": "t"})
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)

    stats = runner.invoke(app, ["cache", "stats", "--store", str(store)])
    by_path = runner.invoke(app, ["cache", "stats", "--path", str(store.parent / "cache.db")])
    runs = runner.invoke(app, ["runs", "--store", str(store)])

    assert stats.exit_code == 0, stats.output
    assert "entries: 1" in stats.stdout
    assert by_path.exit_code == 0 and "entries: 1" in by_path.stdout
    assert runs.exit_code == 0 and "quickstart" in runs.stdout


def test_a_missing_store_lists_the_stores_below(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _quickstart_run(tmp_path)
    monkeypatch.chdir(tmp_path)

    runs = runner.invoke(app, ["runs"])
    cache = runner.invoke(app, ["cache", "stats"])

    assert runs.exit_code == 2
    assert "stores below this folder: project/.ragjudge/runs.db" in runs.output
    assert cache.exit_code == 2 and "--store" in cache.output

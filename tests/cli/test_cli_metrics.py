"""``ragjudge metrics``: the metrics grouped by what they measure, and its filters."""

from __future__ import annotations

import json
from typing import Any

from typer.testing import CliRunner

from ragjudge.cli import app
from ragjudge.metrics._info import GROUPS, all_metric_info

runner = CliRunner()


def _listed(*options: str) -> list[dict[str, Any]]:
    result = runner.invoke(app, ["metrics", "--json", *options])
    assert result.exit_code == 0, result.output
    found: list[dict[str, Any]] = json.loads(result.stdout)
    return found


def test_the_json_carries_each_metric_s_group_and_whether_it_needs_a_judge() -> None:
    listed = {m["name"]: m for m in _listed()}
    assert set(listed) == {info.name for info in all_metric_info()}
    assert listed["token_f1"]["group"] == "end to end"
    assert listed["token_f1"]["needs_judge"] is False
    assert listed["faithfulness"]["group"] == "generation"
    assert listed["faithfulness"]["needs_judge"] is True
    assert listed["multiturn"]["group"] == "conversation"
    assert all(m["group"] in GROUPS for m in listed.values())


def test_part_keeps_the_metrics_that_measure_it_in_whichever_group() -> None:
    listed = _listed("--part", "retrieval")
    names = {m["name"] for m in listed}
    assert {"document_recall", "context_recall", "relevance_to_query", "databricks"} <= names
    assert "token_f1" not in names and "faithfulness" not in names
    assert all("retrieval" in m["parts"] for m in listed)


def test_judge_and_no_judge_split_the_metrics() -> None:
    judged, free = _listed("--judge"), _listed("--no-judge")
    assert judged and free
    assert all(m["needs_judge"] for m in judged)
    assert not any(m["needs_judge"] for m in free)
    assert len(judged) + len(free) == len(all_metric_info())
    assert "exact_match" in {m["name"] for m in free}


def test_the_filters_combine() -> None:
    listed = _listed("--part", "retrieval", "--no-judge")
    assert "document_recall" in {m["name"] for m in listed}
    assert all("retrieval" in m["parts"] and not m["needs_judge"] for m in listed)


def test_an_unknown_part_is_refused_naming_the_parts() -> None:
    result = runner.invoke(app, ["metrics", "--part", "search"])
    assert result.exit_code == 2
    assert "--part 'search'" in result.output and "'conversation'" in result.output


def test_the_table_has_one_heading_per_group_in_order() -> None:
    result = runner.invoke(app, ["metrics"], env={"COLUMNS": "240"})
    assert result.exit_code == 0
    headings = [
        line.split(":")[0]
        for line in result.stdout.splitlines()
        if line.split(":")[0] in GROUPS and "(↑ higher is better" in line
    ]
    assert headings == ["retrieval", "generation", "end to end", "agent", "conversation"]


def test_a_group_lists_the_metrics_without_a_judge_first() -> None:
    result = runner.invoke(app, ["metrics", "--part", "retrieval"], env={"COLUMNS": "240"})
    text = result.stdout
    retrieval = text.split("retrieval: finding the contexts", 1)[1].split("generation:", 1)[0]
    assert retrieval.index("document_recall") < retrieval.index("context_recall")

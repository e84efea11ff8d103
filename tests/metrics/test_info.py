"""What ``ragjudge metrics`` says of a metric whose extra is missing."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from ragjudge.metrics._info import all_metric_info, metric_group, metric_info


@pytest.fixture
def without_local_models(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "sentence_transformers", None)


@pytest.mark.usefixtures("without_local_models")
def test_a_metric_needing_a_missing_extra_is_described_with_the_pip_command() -> None:
    info = metric_info("bert_score")
    assert info.extras == ["local"] and info.missing_extras == ["local"]
    assert info.install_hint == "needs pip install 'ragjudge[local]'"
    assert info.to_dict()["install_hint"] == "needs pip install 'ragjudge[local]'"


@pytest.mark.usefixtures("without_local_models")
def test_every_metric_is_described_without_the_local_extra() -> None:
    found = {info.name: info for info in all_metric_info()}
    assert found["answer_similarity"].missing_extras == ["local"]
    assert found["exact_match"].extras == [] and found["exact_match"].install_hint is None


def test_an_installed_extra_gives_no_install_hint(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("ragjudge.metrics._info.extra_installed", lambda extra: True)
    info = metric_info("bert_score")
    assert info.extras == ["local"] and info.install_hint is None


INDEX = Path(__file__).resolve().parents[2] / "docs" / "metrics" / "index.md"


def _section(title: str) -> list[list[str]]:
    """The cells of the table rows under the docs heading ``title``."""
    text = INDEX.read_text(encoding="utf-8").split(f"## {title}\n", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in text.splitlines() if line.startswith("| ") and "---" not in line]
    return [[cell.strip() for cell in row.strip("|").split(" | ")] for row in rows[1:]]


def test_the_docs_say_the_part_of_the_pipeline_each_metric_declares() -> None:
    declared = {i.name: ", ".join(i.parts) for i in all_metric_info()}
    grouped = {
        name.strip("`"): row[0]
        for row in _section("Which part of the pipeline each metric measures")
        for name in row[2].split(", ")
    }
    assert grouped == declared
    listed = {row[0].strip("`"): row[2] for row in _section("Every metric")}
    assert listed and all(declared[name] == part for name, part in listed.items())


@pytest.mark.parametrize(
    ("parts", "group"),
    [
        (["retrieval"], "retrieval"),
        (["retrieval", "generation"], "generation"),
        (["retrieval", "generation", "end to end", "agent"], "agent"),
        (["conversation"], "conversation"),
        ([], "other"),
    ],
)
def test_a_metric_is_grouped_under_the_widest_part_it_measures(
    parts: list[str], group: str
) -> None:
    assert metric_group(parts) == group


def test_agent_and_conversation_metrics_are_grouped_as_such() -> None:
    found = {info.name: info for info in all_metric_info()}
    assert found["agent_usage"].group == "agent"
    assert found["multiturn"].group == "conversation"
    assert found["databricks"].group == "agent"
    assert found["document_recall"].group == "retrieval"
    assert found["relevance_to_query"].group == "generation"
    assert found["exact_match"].to_dict()["group"] == "end to end"

"""Setting up a run's metrics from its config: options that declare a config-wide
setting or a path are filled for any metric, named or given by its import path."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import pytest

from ragjudge.config._eval import ConfigError, EvalConfig
from ragjudge.errors import MissingExtra
from ragjudge.run._preparation import build_metrics, configured_metrics

MODULE = """
from typing import Annotated

from pydantic import Field

from ragjudge.metrics import ConfigPath, FromConfig, Metric, MetricOptions


class ShelfOptions(MetricOptions):
    folders: Annotated[list[str], FromConfig("specs"), ConfigPath()] = Field(default_factory=list)
    notes: Annotated[str, ConfigPath(suffixes=(".txt",))] = "none"


class Shelf(Metric):
    Options = ShelfOptions

    async def compute(self, sample, output, ctx):
        return 1.0


class Unknown(Metric):
    class Options(MetricOptions):
        folders: Annotated[list[str], FromConfig("no_such_setting")] = Field(default_factory=list)
"""


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    (tmp_path / "shelf_metrics.py").write_text(textwrap.dedent(MODULE))
    return tmp_path


def test_a_metric_of_the_users_gets_the_config_setting_and_its_paths(folder: Path) -> None:
    config = EvalConfig(
        base_dir=folder,
        specs=["shared"],
        metrics=[
            {"metric": "shelf_metrics:Shelf", "folders": ["own"], "notes": "n.txt#2"},
            {"metric": "shelf_metrics:Shelf", "name": "plain"},
        ],
    )
    given, plain = configured_metrics(config)
    assert given.options.folders == [str(folder / "own"), str(folder / "shared")]  # type: ignore[attr-defined]
    assert given.options.notes == f"{folder / 'n.txt'}#2"  # type: ignore[attr-defined]
    assert plain.options.folders == [str(folder / "shared")]  # type: ignore[attr-defined]
    assert plain.options.notes == "none"  # type: ignore[attr-defined]


def test_a_builtin_metric_gets_the_config_setting_the_same_way(folder: Path) -> None:
    (folder / "specs").mkdir()
    (folder / "specs" / "tone.yaml").write_text(
        'tone:\n  prompt: "Is {completion} polite?"\n  choice_strings: ["Yes", "No"]\n'
    )
    config = EvalConfig(base_dir=folder, specs=["specs"], metrics=["classify"])
    [metric] = configured_metrics(config, [{"metric": "classify", "spec": "tone"}])
    assert metric.name == "tone"
    assert metric.options.spec_dirs == [str(folder / "specs")]  # type: ignore[attr-defined]


def test_an_option_taking_a_setting_no_config_has_is_a_config_error(folder: Path) -> None:
    config = EvalConfig(base_dir=folder, metrics=[{"metric": "shelf_metrics:Unknown"}])
    with pytest.raises(ConfigError, match="config setting 'no_such_setting', which no config has"):
        configured_metrics(config)


# trials-huge: trials: 1000000000 was accepted and exhausted memory
def test_more_rows_times_trials_than_a_run_plans_stop_it_before_any_work(
    tmp_path: Path,
) -> None:
    from ragjudge.run._preparation import prepare

    rows = [{"request": f"q{i}", "response": "a", "expected_response": "a"} for i in range(1001)]
    settings = {"metrics": ["exact_match"], "target": "data", "store": str(tmp_path / "r.db")}

    with pytest.raises(ConfigError, match=r"^trials: 1,000 trials of 1,001 rows"):
        prepare(EvalConfig(**settings, trials=1000), data=rows)
    assert len(prepare(EvalConfig(**settings, trials=1000), data=rows[:1000]).samples) == 1000
    assert not (tmp_path / "r.db").exists()


@pytest.fixture
def without_local_models(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "sentence_transformers", None)


@pytest.mark.usefixtures("without_local_models")
def test_a_run_of_a_metric_whose_extra_is_missing_is_refused_naming_it() -> None:
    with pytest.raises(MissingExtra, match=r"metric 'bert_score' needs the 'local' extra"):
        build_metrics(["exact_match", "bert_score"])


@pytest.mark.usefixtures("without_local_models")
def test_a_metric_embedding_remotely_needs_no_local_extra() -> None:
    built = build_metrics(
        [{"metric": "answer_similarity", "embedding": "openai/text-embedding-3-small"}]
    )
    assert built[0].extras() == []
    with pytest.raises(MissingExtra, match=r"'answer_similarity' \(its local embedding model\)"):
        build_metrics(["answer_similarity"])

"""Options that a run's config fills, declared on the option: a config-wide setting
(``FromConfig``) and paths read relative to the config's folder (``ConfigPath``)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import pytest
from pydantic import Field

from ragjudge.metrics import ConfigPath, ConfigSettings, FromConfig, MetricOptions
from ragjudge.metrics._info import metric_info


class FolderOptions(MetricOptions):
    folders: Annotated[list[str], FromConfig("folders"), ConfigPath()] = Field(default_factory=list)
    source: Annotated[str | dict[str, Any], ConfigPath(suffixes=(".yaml",))] = "builtin"
    mode: Annotated[str, FromConfig("mode")] = "plain"


def settings(tmp_path: Path, **given: Any) -> ConfigSettings:
    return ConfigSettings(folder=tmp_path, setting=lambda name: given.get(name))


def test_a_list_option_gets_the_settings_entries_after_its_own(tmp_path: Path) -> None:
    filled = settings(tmp_path, folders=["shared", "/abs/more"]).fill(
        FolderOptions, {"metric": "x", "folders": ["own"]}
    )
    assert filled == {
        "metric": "x",
        "folders": [str(tmp_path / "own"), str(tmp_path / "shared"), "/abs/more"],
    }
    alone = settings(tmp_path, folders=["shared"]).fill(FolderOptions, {})
    assert alone == {"folders": [str(tmp_path / "shared")]}


def test_an_unset_setting_leaves_the_options_as_given(tmp_path: Path) -> None:
    assert settings(tmp_path, folders=[]).fill(FolderOptions, {"metric": "x"}) == {"metric": "x"}


def test_a_single_option_takes_the_setting_only_when_not_given(tmp_path: Path) -> None:
    config = settings(tmp_path, mode="strict")
    assert config.fill(FolderOptions, {})["mode"] == "strict"
    assert config.fill(FolderOptions, {"mode": "loose"})["mode"] == "loose"


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ("tone.yaml", "{folder}/tone.yaml"),
        ("specs/tone.yaml#polite", "{folder}/specs/tone.yaml#polite"),
        ("/abs/tone.yaml", "/abs/tone.yaml"),
        ("fact", "fact"),
        ({"prompt": "inline.yaml"}, {"prompt": "inline.yaml"}),
    ],
)
def test_only_values_naming_a_file_are_paths(tmp_path: Path, given: Any, expected: Any) -> None:
    filled = settings(tmp_path).fill(FolderOptions, {"source": given})
    if isinstance(expected, str):
        expected = expected.format(folder=tmp_path)
    assert filled["source"] == expected


def test_the_metric_listing_says_which_option_takes_a_config_setting() -> None:
    assert metric_info("classify").options["spec_dirs"].endswith("+ the config's 'specs'")

"""The settings that read files in other shapes are checked with the config: a bad
delimiter, separator or system stops it, naming the key."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragjudge.config import ConfigError, load_config


def config_with(tmp_path: Path, settings: str) -> Path:
    config = tmp_path / "eval.yaml"
    config.write_text(f"data: x.tsv\nmetrics: [exact_match]\n{settings}\n", encoding="utf-8")
    return config


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ('delimiter: ";;"', "delimiter: give one character that separates the cells"),
        ("delimiter: '\"'", "a quote or line break cannot"),
        ("separators: {request: /}", "'request' is not a field that holds several values"),
        ("systems: {a: col_a, A: col_b}", "'a' and 'A' name the same system twice"),
        (
            "columns: {response: r}\nsystems: {a: col_a}",
            "leave columns.response out",
        ),
        (
            "systems: {a: col_a}\ntarget: app:answer",
            "systems: the responses of each system are in the data",
        ),
    ],
)
def test_a_bad_shape_setting_stops_the_config(settings: str, message: str, tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=message):
        load_config(config_with(tmp_path, settings))


def test_each_system_gets_a_config_named_after_it(tmp_path: Path) -> None:
    config = load_config(config_with(tmp_path, "name: wide\nsystems: {a: col_a, b: col_b}"))

    made = config.system_configs()

    assert [(system, one.name, one.system) for system, one in made] == [
        ("a", "wide/a", "a"),
        ("b", "wide/b", "b"),
    ]
    assert config.system is None
    assert load_config(config_with(tmp_path, "")).system_configs()[0][0] == ""

"""A config's YAML: aliases that stand for more values than any config holds (an alias
bomb), an alias inside the value it names and a whole number too long to read are
refused at once, naming the file and the line; anchors and merges of a real config
still read."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from ragjudge.config import ConfigError, load_config
from ragjudge.config._files import read_yaml

HEAD = "data: data.jsonl\ntarget: data\nmetrics: [exact_match]\n"


def bomb(levels: int = 9) -> str:
    """Nine lines of nine aliases to the line before: 9**9 values in a few hundred bytes."""
    names = "abcdefghi"[:levels]
    lines = ['x_a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for before, name in itertools.pairwise(names):
        lines.append(f"x_{name}: &{name} [{','.join([f'*{before}'] * 9)}]")
    return HEAD + "\n".join(lines) + f"\njunk: *{names[-1]}\n"


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "eval.yaml"
    path.write_text(text, encoding="utf-8")
    return path


# yaml-alias-bomb: a YAML alias bomb kept the config check busy for minutes
def test_an_alias_bomb_is_refused_naming_the_file_and_line(tmp_path: Path) -> None:
    path = write(tmp_path, bomb())
    assert len(path.read_bytes()) < 600

    with pytest.raises(ConfigError) as caught:
        read_yaml(path)

    # x_f, on line 9, is the first value standing for more than 100,000 (9**6 "lol"s)
    assert str(caught.value).startswith(f"{path}, line 9: the aliases (*name) here repeat")
    assert "beyond 100,000" in str(caught.value)


# yaml-alias-bomb: a YAML alias bomb kept the config check busy for minutes
def test_the_config_check_refuses_the_bomb_before_looking_at_any_key(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="beyond 100,000"):
        load_config(write(tmp_path, bomb()))


def test_aliases_that_stand_for_a_config_sized_document_still_read(tmp_path: Path) -> None:
    small = read_yaml(write(tmp_path, bomb(levels=4)))  # 9**4 = 6,561 values, twice

    assert len(small["junk"]) == 9 and small["junk"][0][0][0] == ["lol"] * 9
    merged = read_yaml(
        write(tmp_path, "judge: &j {model: scripted, rpm: 60}\nother:\n  <<: *j\n  rpm: 30\n")
    )
    assert merged["other"] == {"model": "scripted", "rpm": 30}


def test_an_alias_inside_the_value_it_names_is_refused(tmp_path: Path) -> None:
    path = write(tmp_path, HEAD + "loop: &l [1, [2, *l]]\n")

    with pytest.raises(ConfigError) as caught:
        read_yaml(path)

    assert str(caught.value) == f"{path}, line 4: an alias (*name) stands inside the value it names"


def test_a_whole_number_too_long_to_read_is_refused_naming_its_line(tmp_path: Path) -> None:
    path = write(tmp_path, HEAD + "seed: " + "9" * 5000 + "\n")

    with pytest.raises(ConfigError) as caught:
        load_config(path)

    assert str(caught.value).startswith(f"{path}, line 4: a whole number of 5,000 digits")
    quoted = read_yaml(write(tmp_path, HEAD + f"name: '{'9' * 5000}'\n"))
    assert quoted["name"] == "9" * 5000

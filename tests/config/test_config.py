"""Tests for reading an evaluation YAML file: encodings, duplicate keys, unknown keys
and formats, and values that are not text; and for metric names the export reserves."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragjudge.config import ConfigError, EvalConfig, load_config
from ragjudge.run._preparation import build_metrics

CONFIG = "name: 評価\ndata: set.jsonl\nmetrics: [exact_match]\ntrials: 2\n"


def _write(tmp_path: Path, text: str | bytes) -> Path:
    path = tmp_path / "eval.yaml"
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def _error(path: Path) -> str:
    with pytest.raises(ConfigError) as info:
        load_config(path)
    return str(info.value)


@pytest.mark.parametrize("encoding", ["utf-8", "utf-8-sig", "utf-16"])
def test_utf8_and_marked_utf16_configs_are_read(tmp_path: Path, encoding: str) -> None:
    config = load_config(_write(tmp_path, CONFIG.encode(encoding)))

    assert config.name == "評価" and config.trials == 2


def test_shift_jis_and_invalid_utf8_configs_are_refused(tmp_path: Path) -> None:
    path = _write(tmp_path, CONFIG.encode("shift_jis"))
    message = _error(path)
    assert message.startswith(f"{path}: is not UTF-8 text")
    assert "line 1, column 7" in message and "iconv -f SHIFT_JIS -t UTF-8 eval.yaml" in message

    _write(tmp_path, b"data: set.jsonl\nmetrics: [exact_match]\nname: caf\xe9\n")
    assert "the byte 0xe9 at line 3, column 10" in _error(path)


def test_duplicate_key_is_refused_with_its_lines(tmp_path: Path) -> None:
    top = _write(tmp_path, "data: a.jsonl\nmetrics: [exact_match]\ndata: b.jsonl\n")
    assert _error(top) == (
        f"{top}, line 3: the key 'data' is given twice in one mapping (first on line 1); keep one"
    )
    nested = _write(
        tmp_path, "data: a.jsonl\nmetrics: [exact_match]\njudge:\n  model: a\n  model: b\n"
    )
    assert f"{nested}, line 5: the key 'model' is given twice" in _error(nested)


def test_keys_merged_from_an_anchor_may_be_overridden(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        "defaults: &d {trials: 3, concurrency: 2}\nrun: &r\n  <<: *d\n  trials: 5\n",
    )
    # merging is allowed; the unknown keys are what this config gets wrong
    message = _error(path)
    assert "given twice" not in message and "defaults: unknown setting" in message


def test_unknown_key_suggests_the_known_one(tmp_path: Path) -> None:
    path = _write(tmp_path, "data: set.jsonl\nmetrics: [exact_match]\ntrails: 3\n")

    assert "trails: unknown setting; did you mean 'trials'?" in _error(path)


def test_unknown_format_names_the_key(tmp_path: Path) -> None:
    path = _write(tmp_path, "data: set.xml\nformat: xml\nmetrics: [exact_match]\n")

    message = _error(path)

    assert message.startswith(f"{path}: format: unknown evaluation-set format 'xml'")
    assert "mtrag_un" in message


def test_lone_surrogate_deep_nesting_and_base_dir_are_refused(tmp_path: Path) -> None:
    surrogate = _write(tmp_path, 'data: set.jsonl\nmetrics: [exact_match]\nname: "a\\ud800"\n')
    assert "name: holds the lone surrogate '\\ud800'" in _error(surrogate)

    deep = _write(tmp_path, "metrics: " + "[" * 5000 + "]" * 5000 + "\n")
    assert _error(deep) == f"{deep}: lists or mappings are nested too deeply to read"

    base_dir = _write(tmp_path, "data: set.jsonl\nmetrics: [exact_match]\nbase_dir: /\n")
    assert "base_dir is not a setting" in _error(base_dir)


def test_yaml_syntax_error_names_the_file_and_line(tmp_path: Path) -> None:
    path = _write(tmp_path, "data: set.jsonl\nmetrics: [exact_match]\n  bad: indent\n")

    message = _error(path)

    assert message.startswith(f"{path}: not valid YAML")
    assert f'in "{path}", line 3, column 3' in message


def test_config_that_is_a_folder_or_a_list(tmp_path: Path) -> None:
    folder = tmp_path / "eval.yaml"
    folder.mkdir()
    assert _error(folder) == f"{folder}: is a folder, not a YAML file"
    folder.rmdir()

    listed = _write(tmp_path, "- data: set.jsonl\n")
    assert "expected a mapping of settings at the top level" in _error(listed)


@pytest.mark.parametrize(
    ("name", "says"),
    [
        ("request_id", "'request_id' is a column of every exported sample"),
        ("response", "'response' is a column of every exported sample"),
        ("metadata.lang", "names starting with 'metadata.'"),
        ("rouge.error", "names ending in .left_out, .skipped, .error"),
    ],
)
def test_metric_names_the_export_reserves_are_refused(name: str, says: str) -> None:
    with pytest.raises(ConfigError) as info:
        build_metrics(["exact_match", {"metric": "rouge_l", "name": name}])

    message = str(info.value)
    assert f"metric {name!r}: the score name {name!r} is reserved: {says}" in message
    assert "give the metric another 'name'" in message


def test_renamed_multiscore_metric_is_checked_per_score() -> None:
    with pytest.raises(ConfigError, match=r"the score name 'metadata\.wscore' is reserved"):
        build_metrics([{"metric": "multiturn", "name": "metadata"}])


# trials-huge: trials: 1000000000 was accepted and exhausted memory
@pytest.mark.parametrize(
    ("setting", "bound"),
    [
        ("trials: 1000000000", "trials: Input should be less than or equal to 1000"),
        ("concurrency: 1000000", "concurrency: Input should be less than or equal to 1000"),
        ("processes: 100000", "Input should be less than or equal to 1024"),
        ("ray: {workers: 100000}", "ray.workers: Input should be less than or equal to 1024"),
    ],
)
def test_settings_that_size_what_a_run_allocates_are_bounded(
    tmp_path: Path, setting: str, bound: str
) -> None:
    path = _write(tmp_path, f"data: set.jsonl\nmetrics: [exact_match]\n{setting}\n")

    assert bound in _error(path)


def test_rows_times_trials_is_bounded_when_trials_repeat() -> None:
    from ragjudge.config import EvalConfig

    EvalConfig(metrics=["exact_match"], trials=1).check_run_size(5_000_000)
    EvalConfig(metrics=["exact_match"], trials=1000).check_run_size(1000)
    with pytest.raises(ConfigError) as caught:
        EvalConfig(metrics=["exact_match"], trials=1000).check_run_size(1001)

    assert str(caught.value).startswith(
        "trials: 1,000 trials of 1,001 rows are 1,001,000 scorings of each metric"
    )


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("judge: {model: scripted, rpmm: 3}", "judge.rpmm: unknown key; did you mean 'rpm'?"),
        (
            "knowledge_base: {path: docs, chunk_sise: 300}",
            "knowledge_base.chunk_sise: unknown key; did you mean 'chunk_size'?",
        ),
        ("report: {pth: out.html}", "report.pth: unknown key; did you mean 'path'?"),
        ("ray: {adress: auto}", "ray.adress: unknown key; did you mean 'address'?"),
        ("target: {kind: data, pth: x}", "takes no pth; did you mean 'path'? its keys: kind"),
    ],
)
def test_unknown_nested_keys_suggest_the_known_one(
    tmp_path: Path, line: str, expected: str
) -> None:
    path = _write(tmp_path, f"data: set.jsonl\nmetrics: [exact_match]\n{line}\n")

    message = _error(path)

    assert message.startswith(f"{path}: invalid configuration")
    assert expected in message


def test_a_config_read_from_a_file_names_it_in_messages(tmp_path: Path) -> None:
    config = load_config(_write(tmp_path, "metrics: [exact_match]\n"))

    assert config.source == tmp_path / "eval.yaml"
    assert config.where("metrics") == f"{tmp_path / 'eval.yaml'}: metrics"
    assert EvalConfig(metrics=["exact_match"]).where("metrics") == "metrics"

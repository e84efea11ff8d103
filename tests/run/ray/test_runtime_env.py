"""``ray.runtime_env`` of a config as Ray's runtime environment: the folder resolved
against the config's folder, variables given by name with their values read from the
environment (masked as secrets, never in the stored record), and the config's folder as
a worker in the shipped copy sees it. No cluster needed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pydantic import ValidationError

from ragjudge.config import ConfigError, EvalConfig, load_config
from ragjudge.config._ray import RayConfig
from ragjudge.config._secrets import config_secrets
from ragjudge.run.ray._runtime_env import job_runtime_env, on_this_node

SECRET = "sk-runtime-env-7d41c9a2"


def write_config(folder: Path, runtime_env: str) -> EvalConfig:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "data.jsonl").write_text('{"request": "q", "response": "a"}\n')
    (folder / "eval.yaml").write_text(
        "data: data.jsonl\nmetrics: [token_f1]\nexecutor: ray\n"
        f"ray: {{workers: 1, runtime_env: {runtime_env}}}\n"
    )
    return load_config(folder / "eval.yaml")


def test_the_runtime_env_resolves_the_folder_and_reads_the_variables_by_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("JUDGE_KEY", SECRET)
    config = write_config(
        tmp_path / "project" / "evals",
        "{working_dir: .., excludes: [data/], pip: ['rapidfuzz>=3'], env_vars: [JUDGE_KEY]}",
    )
    assert job_runtime_env(config) == {
        "working_dir": str((tmp_path / "project").resolve()),
        "excludes": ["data/"],
        "pip": ["rapidfuzz>=3"],
        "env_vars": {"JUDGE_KEY": SECRET},
    }


def test_the_stored_record_keeps_the_names_and_the_values_are_masked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("JUDGE_KEY", SECRET)
    config = write_config(tmp_path, "{env_vars: [JUDGE_KEY]}")
    record = json.dumps(config.to_record())
    assert '"env_vars": ["JUDGE_KEY"]' in record
    assert SECRET not in record
    assert SECRET in config_secrets(config)


def test_a_variable_not_set_is_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("JUDGE_KEY", raising=False)
    config = write_config(tmp_path, "{env_vars: [JUDGE_KEY]}")
    with pytest.raises(ConfigError, match=r"ray\.runtime_env\.env_vars names JUDGE_KEY, not set"):
        job_runtime_env(config)


def test_a_working_dir_that_is_not_a_folder_is_named(tmp_path: Path) -> None:
    config = write_config(tmp_path, "{working_dir: missing}")
    with pytest.raises(
        ConfigError, match=r"ray\.runtime_env\.working_dir: .*missing is not a folder"
    ):
        job_runtime_env(config)


def test_without_a_runtime_env_there_is_none(tmp_path: Path) -> None:
    config = EvalConfig(metrics=["token_f1"], ray=RayConfig(workers=2), base_dir=tmp_path)
    assert job_runtime_env(config) is None


@pytest.mark.parametrize(
    ("env_vars", "said"),
    [
        ({"JUDGE_KEY": SECRET}, "not values"),
        (["JUDGE_KEY=" + SECRET], "is not an environment variable name"),
    ],
)
def test_values_in_place_of_names_are_refused(env_vars: object, said: str) -> None:
    with pytest.raises(ValidationError, match=said):
        RayConfig.model_validate({"runtime_env": {"env_vars": env_vars}})


def test_a_worker_looks_up_the_config_folder_in_the_shipped_copy(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = write_config(tmp_path / "project" / "evals", "{working_dir: ..}")
    copy = tmp_path / "copy"
    copy.mkdir()
    monkeypatch.chdir(copy)  # a Ray worker runs in its copy of the working folder
    assert on_this_node(config).base_dir == copy.resolve() / "evals"
    assert on_this_node(config).resolve("data.jsonl") == copy.resolve() / "evals" / "data.jsonl"


def test_without_a_shipped_folder_a_worker_uses_the_config_folder(tmp_path: Path) -> None:
    config = write_config(tmp_path, "{pip: [rapidfuzz]}")
    assert on_this_node(config) is config

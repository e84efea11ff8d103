"""The settings are declared once (EvalConfig, RunControls): the Python API's keywords and
``ragjudge run``'s options are read from those declarations, and these tests fail when a
CLI option, an API parameter and a config key disagree."""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import Any

import pytest
import typer.main

from ragjudge.api import aevaluate, evaluate
from ragjudge.cli import app
from ragjudge.cli._options_source import OPTIONS, options_source
from ragjudge.config import EvalConfig
from ragjudge.config._surface import (
    RunControls,
    control_help,
    flag_of,
    setting_default,
    setting_help,
)

SETTINGS = [k for k in EvalConfig.model_fields if k != "base_dir"]
CONTROLS = list(RunControls.model_fields)
EMPTY_BY_NONE = {"columns", "separators", "systems", "specs", "fail_under", "fail_over"}
"""Settings whose API default None stands for the config's empty container."""
CHOSEN_BY_RUN = {"concurrency"}
"""Settings whose API default None leaves them unset, for the run to choose (a batched
judge fills its batches)."""
COMMAND_ONLY = {"config", "openai_evals", "as_json", "plan"}
"""``ragjudge run``'s parameters that are neither a setting nor a run control."""
API_OMITS = {"use_cache"}
"""Run controls of the command line only (the API turns the cache off by ``cache``)."""


def run_command() -> Any:
    group = typer.main.get_group(app)
    return group.commands["run"]


def test_every_setting_is_an_api_keyword_with_the_config_default() -> None:
    parameters = inspect.signature(aevaluate).parameters
    for key in SETTINGS:
        assert key in parameters, f"aevaluate() lacks the setting {key!r}"
        default = parameters[key].default
        if key == "metrics":
            assert default is inspect.Parameter.empty  # the one required keyword
        elif key in EMPTY_BY_NONE:
            assert default is None and not setting_default(key)
        elif key in CHOSEN_BY_RUN:
            assert default is None and setting_default(key) is not None
        else:
            assert default == setting_default(key), key


def test_every_api_keyword_is_a_setting_or_a_run_control() -> None:
    parameters = inspect.signature(aevaluate).parameters
    unknown = set(parameters) - set(SETTINGS) - set(CONTROLS)
    assert not unknown
    for key in set(CONTROLS) - API_OMITS:
        assert parameters[key].default == RunControls.model_fields[key].default, key


def test_evaluate_documents_every_keyword_with_its_declared_description() -> None:
    doc = evaluate.__doc__ or ""
    flat = " ".join(doc.split())
    for key in [*SETTINGS, *(set(CONTROLS) - API_OMITS)]:
        field = (EvalConfig.model_fields | RunControls.model_fields)[key]
        assert f"``{key}``: " + " ".join((field.description or "").split()) in flat, key
    assert inspect.signature(evaluate) == inspect.signature(aevaluate)


def test_run_options_carry_the_declared_flags_and_help() -> None:
    options = {p.name: p for p in run_command().params}
    declared = {o.key: o for o in OPTIONS}
    assert set(options) == set(declared) | COMMAND_ONLY
    for key, option in declared.items():
        param = options[key]
        expected_help = control_help(key) if option.control else setting_help(key)
        assert getattr(param, "help", None) == expected_help, key
        flags = option.flags or flag_of(key)
        assert param.opts == [flags.split("/")[0]], key
        if not option.control:
            assert key in EvalConfig.model_fields
        else:
            assert key in RunControls.model_fields


def test_the_written_options_module_is_up_to_date() -> None:
    written = Path(__file__).resolve().parents[2] / "src/ragjudge/cli/_setting_options.py"
    assert written.read_text(encoding="utf-8") == options_source(), (
        "run `python -m ragjudge.cli._options_source` to write it again"
    )


def test_a_changed_description_makes_the_written_module_stale(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    field = EvalConfig.model_fields["limit"]
    monkeypatch.setattr(field, "description", "Evaluate the first N rows, differently.")
    assert "Evaluate the first N rows, differently." in options_source()
    written = Path(__file__).resolve().parents[2] / "src/ragjudge/cli/_setting_options.py"
    assert written.read_text(encoding="utf-8") != options_source()


def test_a_command_line_setting_replaces_the_config_files(tmp_path: Path) -> None:
    from ragjudge.config import load_config

    config = tmp_path / "eval.yaml"
    config.write_text("metrics: [exact_match]\ntrials: 2\nprocesses: 1\n")
    overrides: dict[str, Any] = {"trials": 3, "processes": "2", "limit": None}
    loaded = load_config(config, **overrides)
    assert (loaded.trials, loaded.processes, loaded.limit) == (3, 2, None)

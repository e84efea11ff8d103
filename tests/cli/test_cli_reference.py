"""Tests for the command-line reference page written from the command tree: every
command, sub-command, argument and option is on it, as its help text says."""

from __future__ import annotations

import re

import typer
from typer.core import TyperGroup

from ragjudge.cli import app
from ragjudge.cli._reference import cli_reference


def _command_names() -> list[str]:
    root = typer.main.get_command(app)
    context = typer.Context(root, info_name="ragjudge")
    assert isinstance(root, TyperGroup)
    names = []
    for name in root.list_commands(context):
        names.append(name)
        command = root.get_command(context, name)
        if isinstance(command, TyperGroup):
            sub_context = typer.Context(command, info_name=name, parent=context)
            names += [f"{name} {sub}" for sub in command.list_commands(sub_context)]
    return names


def test_every_command_has_a_section() -> None:
    page = cli_reference()

    headings = re.findall(r"^#{2,3} `ragjudge ?(.*)`$", page, flags=re.MULTILINE)
    assert headings == ["", *_command_names()]
    assert {"run", "metrics", "schema", "cache stats", "cache clear"} <= set(headings)


def test_options_are_listed_with_their_help() -> None:
    page = cli_reference()

    run_section = page.split("## `ragjudge run`")[1].split("\n## ")[0]
    assert "| `--dry-run` | Build every judge prompt" in run_section
    assert "| `--fail-under METRIC=VALUE` |" in run_section
    assert "| `--gate mean\\|ci` |" in run_section
    metrics_section = page.split("## `ragjudge metrics`")[1].split("\n## ")[0]
    assert "`--presets`" in metrics_section


def test_angle_brackets_in_help_stay_text() -> None:
    page = cli_reference()

    outside_code = re.sub(r"```.*?```|`[^`\n]*`", "", page, flags=re.DOTALL)
    assert "<" not in outside_code.replace("<br>", "")

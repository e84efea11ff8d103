"""The command-line reference as a Markdown page, written from the ``ragjudge`` command
tree itself (the documentation site builds it on every build, so it cannot drift from
the commands): each command's usage, help text, arguments and options.

``python -m ragjudge.cli._reference`` prints it.
"""

from __future__ import annotations

import html
from collections.abc import Iterator
from typing import TYPE_CHECKING

import typer
from typer.core import TyperGroup

if TYPE_CHECKING:
    # typer bundles its own copy of click; the command tree is made of its classes.
    from typer._click import Command

__all__ = ["cli_reference"]

_INTRO = (
    "Every command and option of `ragjudge`, written from the commands themselves "
    "(`ragjudge COMMAND --help` prints the same). Settings of `eval.yaml` that "
    "`ragjudge run` also takes as options are described on the "
    "[configuration](configuration.md) page."
)


def cli_reference() -> str:
    """The reference page: a section per command, sub-commands under their group."""
    from ragjudge.cli import app

    root = typer.main.get_command(app)
    root_context = typer.Context(root, info_name="ragjudge")
    lines = ["# Command-line reference", "", _INTRO, ""]
    lines += _command_section(root, root_context, level=2, title="ragjudge")
    for name, command, context in _subcommands(root, root_context):
        lines += _command_section(command, context, level=2, title=f"ragjudge {name}")
        if isinstance(command, TyperGroup):
            for sub_name, sub, sub_context in _subcommands(command, context):
                lines += _command_section(
                    sub, sub_context, level=3, title=f"ragjudge {name} {sub_name}"
                )
    return "\n".join(lines).rstrip() + "\n"


def _subcommands(
    group: Command, context: typer.Context
) -> Iterator[tuple[str, Command, typer.Context]]:
    if not isinstance(group, TyperGroup):
        return
    for name in group.list_commands(context):
        command = group.get_command(context, name)
        if command is None or command.hidden:
            continue
        yield name, command, typer.Context(command, info_name=name, parent=context)


def _command_section(
    command: Command, context: typer.Context, *, level: int, title: str
) -> list[str]:
    lines = [f"{'#' * level} `{title}`", "", "```", command.get_usage(context).strip(), "```", ""]
    if command.help:
        lines += [_text(command.help), ""]
    rows = [record for p in command.get_params(context) if (record := p.get_help_record(context))]
    if rows:
        lines += ["| argument or option | what it does |", "|---|---|"]
        lines += [f"| `{_cell(name)}` | {_cell(_text(help_text))} |" for name, help_text in rows]
        lines.append("")
    return lines


def _text(text: str) -> str:
    """Help text as Markdown: its paragraphs kept, its angle brackets shown as text."""
    paragraphs = [" ".join(p.split()) for p in text.split("\n\n")]
    return html.escape("\n\n".join(p for p in paragraphs if p), quote=False)


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n\n", "<br>")


if __name__ == "__main__":
    print(cli_reference(), end="")

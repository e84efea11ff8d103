"""How ``ragjudge --help`` shows options and arguments: flags without a type
(``--json``, not ``--json <bool>``), values by what they are (``N``, ``TEXT``,
``PATH`` or the option's metavar), arguments by name (``RUN``, ``[CONFIG]``) — for
every command, whichever module registers it — and ``ragjudge --version``."""

from __future__ import annotations

from typing import Any

import typer
from typer.core import TyperArgument, TyperGroup, TyperOption

from ragjudge._version import __version__

__all__ = ["PlainHelpGroup", "version_option"]

_TYPE_WORDS = {"str": "TEXT", "int": "N", "float": "NUMBER", "path": "PATH"}


class _PlainOption(TyperOption):
    def display_type_rich(self, ctx: Any) -> str | None:
        if self.is_flag:
            return None
        if self.metavar is not None:
            return self.metavar
        shown = super().display_type_rich(ctx)
        if shown is None:
            return None
        inner = shown.strip("<>").removesuffix("...")
        word = _TYPE_WORDS.get(inner, inner if "|" in inner else inner.upper())
        return word + ("..." if shown.endswith("...") else "")


class _PlainArgument(TyperArgument):
    @property
    def display_name_raw(self) -> str:
        return self.metavar if self.metavar is not None else str(self.name).upper()

    def display_type_rich(self, ctx: Any) -> str | None:
        return None

    def _usage_display_name(self) -> str:
        name = self.display_name_raw
        name = name if self.required else f"[{name}]"
        return name + ("..." if self.nargs != 1 else "")


def _plain(command: Any) -> None:
    """Give every option and argument of ``command`` (and of its subcommands, and the
    ``--help`` option made on demand) the plain help display."""
    for param in getattr(command, "params", []):
        _plain_param(param)
    made = command.get_help_option

    def get_help_option(ctx: Any) -> Any:
        option = made(ctx)
        if option is not None:
            _plain_param(option)
        return option

    command.get_help_option = get_help_option
    for sub in getattr(command, "commands", {}).values():
        _plain(sub)


def _plain_param(param: Any) -> None:
    if type(param) is TyperOption:
        param.__class__ = _PlainOption
    elif type(param) is TyperArgument:
        param.__class__ = _PlainArgument


class PlainHelpGroup(TyperGroup):
    """The ``ragjudge`` group: its commands' help shows plain types and names."""

    def __init__(self, **attrs: Any) -> None:
        super().__init__(**attrs)
        _plain(self)

    def get_params(self, ctx: Any) -> Any:
        # typer adds --install-completion and --show-completion after the group is made
        params = super().get_params(ctx)
        for param in params:
            _plain_param(param)
        return params


def _show_version(value: bool) -> None:
    if value:
        print(f"ragjudge {__version__}")
        raise typer.Exit()


def version_option() -> Any:
    """The ``--version`` option of the main callback."""
    return typer.Option(
        "--version",
        callback=_show_version,
        is_eager=True,
        help="Print the version and exit.",
    )

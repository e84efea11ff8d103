"""Writes :mod:`ragjudge.cli._setting_options`, the options of ``ragjudge run`` that
carry a setting or a run control, from their declarations in :mod:`ragjudge.config`.

The command line imports the written module, not this one, so ``ragjudge --help``
does not load the config models. After changing a setting's description, default or
this table, run ``python -m ragjudge.cli._options_source``; a test fails while the
written module is stale.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from ragjudge.config._surface import control_help, flag_of, setting_help

__all__ = ["OPTIONS", "CommandLineOption", "options_source"]


@dataclass(frozen=True)
class CommandLineOption:
    """One option of ``ragjudge run`` for the setting or run control ``key``."""

    key: str
    type: str
    """The parameter's type as written in the command's signature."""
    metavar: str | None = None
    flags: str | None = None
    """The option's flags when they are not ``--key`` (``--cache/--no-cache``)."""
    control: bool = False
    """A run control (:class:`~ragjudge.config.RunControls`), not a setting."""

    @property
    def alias(self) -> str:
        """The name of the option's annotated type in the written module."""
        return "Run" + "".join(part.title() for part in self.key.split("_"))

    @property
    def help(self) -> str:
        return control_help(self.key) if self.control else setting_help(self.key)


OPTIONS = (
    CommandLineOption("resume", "str | None", "RUN", control=True),
    CommandLineOption("retry_errors", "bool", control=True),
    CommandLineOption("limit", "int | None", "N"),
    CommandLineOption("sample", "int | None", "N"),
    CommandLineOption("data_where", "str | None", "FILTER"),
    CommandLineOption("seed", "int | None", "S"),
    CommandLineOption("concurrency", "int | None", "N"),
    CommandLineOption("processes", "str | None", "N"),
    CommandLineOption("executor", "str | None", "NAME"),
    CommandLineOption("trials", "int | None", "N"),
    CommandLineOption("max_error_rate", "float | None", "SHARE"),
    CommandLineOption("max_cost", "float | None", "DOLLARS"),
    CommandLineOption("skip_invalid_rows", "bool"),
    CommandLineOption("incremental", "bool"),
    CommandLineOption("by", "str | None", "KEY"),
    CommandLineOption("store", "Path | None", "FILE"),
    CommandLineOption("fail_under", "list[str] | None", "METRIC=VALUE"),
    CommandLineOption("fail_over", "list[str] | None", "METRIC=VALUE"),
    CommandLineOption("gate", "str | None", "mean|ci"),
    CommandLineOption("progress", "bool", flags="--progress/--no-progress", control=True),
    CommandLineOption("use_cache", "bool", flags="--cache/--no-cache", control=True),
)
"""Every setting and run control that ``ragjudge run`` takes as an option. A setting's
value replaces the config file's; a setting flag (``--skip-invalid-rows``) can only
turn its setting on."""

_HEADER = '''"""The options of ``ragjudge run`` that carry a setting or a run control.

Written by ``python -m ragjudge.cli._options_source`` from the declarations in
:mod:`ragjudge.config` (help texts) and :mod:`ragjudge.cli._options_source` (flags,
metavars, types); do not edit by hand.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

__all__ = [
{names}
]
'''


def options_source() -> str:
    """The text of :mod:`ragjudge.cli._setting_options` for today's declarations."""
    names = "\n".join(f'    "{o.alias}",' for o in sorted(OPTIONS, key=lambda o: o.alias))
    parts = [_HEADER.format(names=names)]
    for option in OPTIONS:
        parts.append(_declaration(option))
    return "\n".join(parts)


def _declaration(option: CommandLineOption) -> str:
    arguments = [_literal(option.flags or flag_of(option.key))]
    if option.metavar is not None:
        arguments.append(f"metavar={_literal(option.metavar)}")
    arguments.append(f"help={_literal(option.help)}")
    return (
        f"{option.alias} = Annotated[\n"
        f"    {option.type},\n"
        f"    typer.Option(\n" + "".join(f"        {a},\n" for a in arguments) + "    ),\n"
        "]\n"
    )


def _literal(text: str) -> str:
    """``text`` as a double-quoted Python string, as the formatter writes it."""
    return json.dumps(text, ensure_ascii=False)


def _written_module() -> Path:
    return Path(__file__).with_name("_setting_options.py")


if __name__ == "__main__":
    _written_module().write_text(options_source(), encoding="utf-8")

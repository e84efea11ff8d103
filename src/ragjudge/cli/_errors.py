"""How a command that raises ends — the one place the command line maps errors to exit
statuses (the tree is described in :mod:`ragjudge.errors`).

A :class:`~ragjudge.errors.RagjudgeError` is a mistake in what the command was given,
or a failure ragjudge expected: ``error: <message>`` and exit 2 (for bad rows of an
evaluation set, with how to skip them). Anything else is a bug
in ragjudge: its traceback, a request to report it, and exit 1. ``ragjudge run`` ends
an interruption and a lost cluster batch itself, with the command that resumes the run.
"""

from __future__ import annotations

import traceback
from typing import Any

import typer
from rich.text import Text

from ragjudge._util.known_secrets import masked_output
from ragjudge._version import __version__
from ragjudge.cli._common import err, fail
from ragjudge.cli._help import PlainHelpGroup

__all__ = ["EXIT_BUG", "CommandGroup", "exit_for"]

EXIT_BUG = 1

# What the command-line layer raises to end a command on purpose: its exit, a usage
# mistake (a bad option value …), an abort.
_ENDINGS = (typer.Exit, typer.TyperException, typer.Abort)


class CommandGroup(PlainHelpGroup):
    """The ``ragjudge`` group: whatever a command raises ends it through
    :func:`exit_for`; whatever it prints has the secrets its run registered masked
    (:func:`~ragjudge._util.known_secrets.masked_output`)."""

    def invoke(self, ctx: Any) -> Any:
        with masked_output():
            try:
                return super().invoke(ctx)
            except _ENDINGS:
                raise
            except Exception as exc:
                raise exit_for(exc) from None


def exit_for(exc: Exception) -> typer.Exit:
    """Print what ``exc`` means for the person at the terminal; return the exit to
    raise."""
    # imported once something failed: ragjudge.errors loads pydantic, which
    # `ragjudge --help` does not need (an error of ragjudge's has loaded it already)
    from ragjudge.errors import DatasetError, RagjudgeError

    if isinstance(exc, DatasetError) and any(p.row > 0 for p in exc.problems):
        from ragjudge.run._preparation import SKIP_HINT

        return fail(f"{exc}\n{SKIP_HINT}")
    if isinstance(exc, RagjudgeError):
        return fail(str(exc))
    traceback.print_exception(exc)
    err.print(
        Text(f"ragjudge {__version__} hit a bug; please report it with the traceback above"),
        highlight=False,
        soft_wrap=True,
    )
    return typer.Exit(EXIT_BUG)

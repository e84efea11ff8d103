"""What every group of ``ragjudge`` commands shares: the consoles, the ``--store``
option, the one way a command fails with a message, and opening a store that must
exist."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.text import Text

from ragjudge.store import Store, StoreError

__all__ = [
    "DEFAULT_STORE",
    "StoreOption",
    "err",
    "fail",
    "message_of",
    "opened_store",
    "out",
    "table_console",
]

out = Console()
err = Console(stderr=True)

DEFAULT_STORE = Path(".ragjudge/runs.db")
StoreOption = Annotated[
    Path,
    typer.Option("--store", help="The SQLite store (default .ragjudge/runs.db in this folder)."),
]


def fail(message: str, code: int = 2) -> typer.Exit:
    """Print ``message`` as the command's error and return the exit to raise."""
    # the message is the user's words (paths, option values): never rich markup
    err.print(Text("error: ", style="bold red") + Text(message), highlight=False, soft_wrap=True)
    return typer.Exit(code)


def message_of(exc: Exception) -> str:
    """An exception's message; ``str()`` of a KeyError is its message in quotes."""
    return str(exc.args[0]) if isinstance(exc, KeyError) and exc.args else str(exc)


@contextmanager
def opened_store(path: Path) -> Iterator[Store]:
    """The store at ``path``, which must exist (opening would create an empty one); an
    unknown run or a rejected argument in the block ends the command with its message."""
    if not path.exists():
        raise fail(f"no store at {path}; pass --store PATH (runs are kept beside their eval.yaml)")
    try:
        opened = Store(path)
    except StoreError as exc:
        raise fail(str(exc)) from None
    with opened as store:
        try:
            yield store
        except (KeyError, ValueError) as exc:
            raise fail(message_of(exc)) from None


def table_console() -> Console:
    """Standard output for tables; piped output has no terminal width, so it gets a
    wide one that keeps run ids and statuses whole."""
    return out if out.is_terminal else Console(width=200)
